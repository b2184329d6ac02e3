#!/bin/sh
# FAST'25 Fig. 10 style: local (each prefill node reuses its own DRAM) vs
# global (cluster-wide pool with fetches) KVCache, 10 prefill nodes of 3M
# tokens each, outputs cut to 1 token: token hit rate and mean prefill time
# per request. Writes results/fast25/fig10_local_global.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig10_work"
fresh_dir "$W"
EXP="$ROOT/experiments/fast25/fig10_local_global.json"
echo "trace,scope,hit_rate,prefill_node_s_per_request,prefill_gpu_s_per_request,ttft_mean_s" >"$W/rows.csv"
for t in conversation synthetic; do
    TRACE=$(trace_file ${t}_trace)
    for scope in local global; do
        "$BIN" run "$EXP" --quiet --out "$W/${t}_$scope" --set trace.path="$TRACE" --set cache.scope=$scope
        python_free_get() { sed -n "s/^ *\"$1\": *\([0-9.eE+-]*\),*$/\1/p" "$W/${t}_$scope/summary.json" | head -1; }
        hit=$(python_free_get hit_rate_tokens)
        busy=$(python_free_get busy_s)
        total=$(python_free_get total)
        ttft=$(awk -F, 'NR > 1 && $5 == "completed" { s += $9; n++ } END { printf "%.4f", s / n }' "$W/${t}_$scope/requests.csv")
        awk -v t="$t" -v sc="$scope" -v hit="$hit" -v busy="$busy" -v n="$total" -v ttft="$ttft" \
            'BEGIN { printf "%s,%s,%s,%.4f,%.4f,%s\n", t, sc, hit, busy / n, 8 * busy / n, ttft }' >>"$W/rows.csv"
    done
done
mv "$W/rows.csv" "$OUT/fig10_local_global.csv"
awk -F, 'NR == 1 { next } { printf "| %s | %s | %.3f | %.3f | %.2f | %.3f |\n", $1, $2, $3, $4, $5, $6 }' \
    "$OUT/fig10_local_global.csv" | { echo "| trace | cache | hit rate | prefill s per request | GPU-s per request | mean TTFT s |"
      echo "|---|---|---:|---:|---:|---:|"; cat; } >"$OUT/fig10_local_global.md"
gnuplot -e "datafile='$OUT/fig10_local_global.csv'; outfile='$OUT/fig10_local_global.png'" "$ROOT/plots/fig10_local_global.gp"
cat "$OUT/fig10_local_global.md"
