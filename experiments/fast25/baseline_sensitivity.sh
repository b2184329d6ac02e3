#!/bin/sh
# The vLLM-like baselines on 16 colocated nodes, both traces: (1) what their
# decoding goes through (prefill stalls per request, the mean length of a
# stall, the share of requests that see one, the mean decode batch), and
# the effective request capacity at TBT <= 0.1 s split by whether a request
# saw a stall; (2) how the capacity at 0.1 s moves with the engine's CPU
# time per sequence and per step and with the prefill step's token budget.
# Writes results/fast25/baseline_{stalls,sensitivity}.{csv,md}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/baseline_work"
fresh_dir "$W"
# capacity among requests that saw no stall, and among those that saw one (column 27)
cap_split() {
    awk -F, 'NR > 1 { s = ($27 > 0); n[s]++; if ($5 == "completed" && $9 <= 30 && $13 <= 0.1) ok[s]++ }
        END { printf "%.4f,%.4f", (n[0] ? ok[0] / n[0] : 0), (n[1] ? ok[1] / n[1] : 0) }' "$1"
}
echo "trace,system,mean_batch,stalls_per_request,stall_s_mean,stalled_share,capacity_0.1,capacity_no_stall,capacity_stalled" >"$W/stalls.csv"
echo "trace,system,setting,value,capacity_0.1" >"$W/sens.csv"
for t in conversation synthetic; do
    trace_file ${t}_trace >/dev/null
    for s in vllm vllm_pc vllm_cp; do
        EXP="$ROOT/experiments/fast25/capacity_${t}_$s.json"
        d="$W/${t}_$s"
        "$BIN" run "$EXP" --quiet --out "$d"
        echo "$t,$s,$(getnum "$d" decode mean_batch),$(getnum "$d" decode stalls_per_request),$(getnum "$d" decode stall_s_mean),$(getnum "$d" decode stalled_share),$(capacity "$d/requests.csv" 0.1),$(cap_split "$d/requests.csv")" >>"$W/stalls.csv"
        for v in 0 0.00005 0.00015 0.0003; do
            "$BIN" run "$EXP" --quiet --out "${d}_cpu_per_seq_$v" --set colocated.cpu_per_seq_s=$v
            echo "$t,$s,cpu_per_seq_s,$v,$(capacity "${d}_cpu_per_seq_$v/requests.csv" 0.1)" >>"$W/sens.csv"
        done
        for v in 0.005 0.01; do
            "$BIN" run "$EXP" --quiet --out "${d}_cpu_per_step_$v" --set colocated.cpu_per_step_s=$v
            echo "$t,$s,cpu_per_step_s,$v,$(capacity "${d}_cpu_per_step_$v/requests.csv" 0.1)" >>"$W/sens.csv"
        done
        if [ "$s" != vllm_cp ]; then
            "$BIN" run "$EXP" --quiet --out "${d}_prefill_131072" --set colocated.prefill_tokens=131072
            echo "$t,$s,prefill_tokens,131072,$(capacity "${d}_prefill_131072/requests.csv" 0.1)" >>"$W/sens.csv"
        fi
    done
done
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
