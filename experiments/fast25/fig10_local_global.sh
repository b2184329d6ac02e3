#!/bin/sh
# Traces: conversation_trace synthetic_trace
# FAST'25 Fig. 10 style: local (each prefill node reuses its own DRAM) vs
# global (cluster-wide pool with fetches) KVCache, 10 prefill nodes of 3M
# tokens each, outputs cut to 1 token: token hit rate and mean prefill time
# per request. The runs are the points of fig10_local_global.sweep.json
# (each trace, local then global); sweep.csv (hit rate, prefill busy time,
# requests) and each point's requests.csv are read by their header names.
# Writes results/fast25/fig10_local_global.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig10_work"
trace_file conversation_trace >/dev/null
trace_file synthetic_trace >/dev/null
sweep "$ROOT/experiments/fast25/fig10_local_global.sweep.json" "$W"
echo "trace,scope,hit_rate,prefill_node_s_per_request,prefill_gpu_s_per_request,ttft_mean_s" >"$W/rows.csv"
col "$W/sweep.csv" trace.path cache.scope dir cache.hit_rate_tokens prefill.busy_s requests.total >"$W/points.csv"
while IFS=, read -r path scope d hit busy total; do
    t=${path##*/}
    t=${t%%_trace.*}
    col "$W/$d/requests.csv" status ttft_s | awk -F, -v t="$t" -v sc="$scope" -v hit="$hit" -v busy="$busy" -v n="$total" \
        '$1 == "completed" { s += $2; m++ } END { printf "%s,%s,%s,%.4f,%.4f,%.4f\n", t, sc, hit, busy / n, 8 * busy / n, s / m }'
done <"$W/points.csv" >>"$W/rows.csv"
mv "$W/rows.csv" "$OUT/fig10_local_global.csv"
awk -F, 'NR == 1 { next } { printf "| %s | %s | %.3f | %.3f | %.2f | %.3f |\n", $1, $2, $3, $4, $5, $6 }' \
    "$OUT/fig10_local_global.csv" | { echo "| trace | cache | hit rate | prefill s per request | GPU-s per request | mean TTFT s |"
      echo "|---|---|---:|---:|---:|---:|"; cat; } >"$OUT/fig10_local_global.md"
gnuplot -e "datafile='$OUT/fig10_local_global.csv'; outfile='$OUT/fig10_local_global.png'; pdffile='$OUT/fig10_local_global.pdf'" "$ROOT/plots/fig10_local_global.gp"
cat "$OUT/fig10_local_global.md"
