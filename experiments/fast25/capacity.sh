#!/bin/sh
# FAST'25 effective request capacity: Mooncake against vllm, vllm_pc and
# vllm_cp, 16 nodes each, on the conversation and synthetic traces: the
# share of all requests with TTFT <= 30 s and TBT (mean of a request's
# longest 10% of intervals) <= 0.1, 0.2 and 0.3 s, and the mean prefill GPU
# time per request (8 GPUs x node-seconds). Mooncake runs once per TBT SLO
# (its Conductor and inlining use it); the vLLM baselines ignore SLOs, so
# one run serves all three. Writes results/fast25/capacity.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/capacity_work"
fresh_dir "$W"
gpu_s() { # mean prefill GPU-seconds per request
    busy=$(sed -n '/"prefill": {/,/}/s/^ *"busy_s": *\([0-9.eE+-]*\),*$/\1/p' "$1/summary.json")
    n=$(sed -n '/"requests": {/,/}/s/^ *"total": *\([0-9]*\),*$/\1/p' "$1/summary.json")
    awk -v b="$busy" -v n="$n" 'BEGIN { printf "%.2f", 8 * b / n }'
}
echo "trace,system,tbt_slo_s,effective_capacity,prefill_gpu_s_per_request" >"$W/rows.csv"
for t in conversation synthetic; do
    trace_file ${t}_trace >/dev/null
    for s in mooncake vllm vllm_pc vllm_cp; do
        EXP="$ROOT/experiments/fast25/capacity_${t}_$s.json"
        for tbt in 0.1 0.2 0.3; do
            dir="$W/${t}_$s"
            if [ "$s" = mooncake ]; then
                dir="$W/${t}_${s}_$tbt"
                "$BIN" run "$EXP" --quiet --out "$dir" --set slo.tbt_s=$tbt
            elif [ "$tbt" = 0.1 ]; then
                "$BIN" run "$EXP" --quiet --out "$dir"
            fi
            echo "$t,$s,$tbt,$(capacity "$dir/requests.csv" $tbt),$(gpu_s "$dir")" >>"$W/rows.csv"
        done
    done
done
mv "$W/rows.csv" "$OUT/capacity.csv"
awk -F, 'NR == 1 { next } { k = $1 "," $2; if (!(k in seen)) { seen[k] = 1; keys[++n] = k; g[k] = $5 } v[k, $3] = $4 }
    END { print "| trace | system | TBT <= 0.1 s | TBT <= 0.2 s | TBT <= 0.3 s | prefill GPU-s / request |";
          print "|---|---|---:|---:|---:|---:|";
          for (i = 1; i <= n; i++) { split(keys[i], p, ",");
              printf "| %s | %s | %.3f | %.3f | %.3f | %s |\n", p[1], p[2], v[keys[i], "0.1"],
                  v[keys[i], "0.2"], v[keys[i], "0.3"], g[keys[i]] } }' "$OUT/capacity.csv" >"$OUT/capacity.md"
gnuplot -e "datafile='$OUT/capacity.csv'; outfile='$OUT/capacity.png'" "$ROOT/plots/capacity.gp"
cat "$OUT/capacity.md"
