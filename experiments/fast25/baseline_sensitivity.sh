#!/bin/sh
# Traces: conversation_trace synthetic_trace
# The vLLM-like baselines on 16 colocated nodes, both traces: (1) what their
# decoding goes through (prefill stalls per request, the mean length of a
# stall, the share of requests that see one, the mean decode batch), and
# the effective request capacity at TBT <= 0.1 s split by whether a request
# saw a stall (capacity_vllm.sweep.json); (2) how the capacity at 0.1 s
# moves with the engine's CPU time per sequence and per step and with the
# prefill step's token budget (baseline_<setting>.sweep.json, one setting
# moved at a time). Writes results/fast25/baseline_{stalls,sensitivity}.{csv,md}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/baseline_work"
E="$ROOT/experiments/fast25"
SETTINGS="cpu_per_seq_s cpu_per_step_s prefill_tokens"
fresh_dir "$W"
for t in conversation synthetic; do trace_file ${t}_trace >/dev/null; done
sweep "$E/capacity_vllm.sweep.json" "$W/stalls"
for k in $SETTINGS; do sweep "$E/baseline_$k.sweep.json" "$W/$k"; done
# points SWEEP COLUMN...: "trace,COLUMN...,point folder" per point of the
# sweep in folder SWEEP, the trace by name (conversation, synthetic)
points() {
    w=$1; shift
    col "$w/sweep.csv" trace.path "$@" dir | awk -F, -v OFS=, -v w="$w" '{
        sub(/.*\//, "", $1); sub(/_trace\..*/, "", $1); $NF = w "/" $NF; print }'
}
# capacity among requests that saw no stall, and among those that saw one
cap_split() {
    col "$1" prefill_stalls status ttft_s tbt_top10_s | awk -F, '{ s = ($1 > 0); n[s]++; if ($2 == "completed" && $3 <= 30 && $4 <= 0.1) ok[s]++ }
        END { printf "%.4f,%.4f", (n[0] ? ok[0] / n[0] : 0), (n[1] ? ok[1] / n[1] : 0) }'
}
echo "trace,system,mean_batch,stalls_per_request,stall_s_mean,stalled_share,capacity_0.1,capacity_no_stall,capacity_stalled" >"$W/stalls.csv"
points "$W/stalls" system.kind decode.mean_batch decode.stalls_per_request decode.stall_s_mean decode.stalled_share |
    while IFS=, read -r t s batch stalls stall_s share d; do
        echo "$t,$s,$batch,$stalls,$stall_s,$share,$(capacity "$d/requests.csv" 0.1),$(cap_split "$d/requests.csv")"
    done >>"$W/stalls.csv"
echo "trace,system,setting,value,capacity_0.1" >"$W/sens.csv"
for t in conversation synthetic; do
    for s in vllm vllm_pc vllm_cp; do
        for k in $SETTINGS; do
            # the value as a plain decimal (sweep.csv has 5e-05 for 0.00005)
            points "$W/$k" system.kind "system.params.$k" | awk -F, -v OFS=, -v t="$t" -v s="$s" '$1 == t && $2 == s {
                v = sprintf("%.12f", $3); sub(/\.?0+$/, "", v); print v, $4 }' |
                while IFS=, read -r v d; do
                    echo "$t,$s,$k,$v,$(capacity "$d/requests.csv" 0.1)"
                done
        done
    done
done >>"$W/sens.csv"
mv "$W/stalls.csv" "$OUT/baseline_stalls.csv"
mv "$W/sens.csv" "$OUT/baseline_sensitivity.csv"
awk -F, 'NR == 1 { next } { printf "| %s | %s | %.2f | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' \
    "$OUT/baseline_stalls.csv" | {
    echo "| trace | system | mean decode batch | stalls / request | mean stall s | share stalled | capacity @0.1 s | of unstalled | of stalled |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"; cat; } >"$OUT/baseline_stalls.md"
awk -F, 'NR == 1 { next } { k = $1 "," $2; if (!(k in seen)) { seen[k] = 1; keys[++n] = k } v[k, $3 "=" $4] = $5; if (!($3 "=" $4 in cs)) { cs[$3 "=" $4] = 1; cols[++m] = $3 "=" $4 } }
    END { h = "| trace | system |"; u = "|---|---|"; for (j = 1; j <= m; j++) { h = h " " cols[j] " |"; u = u "---:|" } print h; print u;
          for (i = 1; i <= n; i++) { split(keys[i], p, ","); line = "| " p[1] " | " p[2] " |";
              for (j = 1; j <= m; j++) line = line " " ((keys[i], cols[j]) in v ? sprintf("%.3f", v[keys[i], cols[j]]) : "-") " |";
              print line } }' "$OUT/baseline_sensitivity.csv" >"$OUT/baseline_sensitivity.md"
rm -rf "$W"
cat "$OUT/baseline_stalls.md" "$OUT/baseline_sensitivity.md"
