#!/bin/sh
# Traces: conversation_trace
# TTFT against kvcache_balancing_threshold (the paper gives no value): the
# Conductor on the conversation trace, 8P + 8D, global pool, on the paper's
# RDMA network and on TCP at 100 Gbps with 1.5x the load. The runs are the
# points of threshold_sweep_rdma.sweep.json and threshold_sweep_tcp.sweep.json;
# sweep.csv (hit rate) and each point's requests.csv (TTFT, fetches) are
# read by their header names.
# Writes results/fast25/threshold_sweep.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/threshold_work"
fresh_dir "$W"
trace_file conversation_trace >/dev/null
echo "network,threshold,ttft_mean_s,ttft_p90_s,hit_rate,fetches" >"$W/rows.csv"
for net in rdma tcp; do
    sweep "$ROOT/experiments/fast25/threshold_sweep_$net.sweep.json" "$W/$net"
    col "$W/$net/sweep.csv" scheduler.params.kvcache_balancing_threshold dir cache.hit_rate_tokens \
        ttft_s.mean ttft_s.p90 >"$W/$net/points.csv"
    while IFS=, read -r th d hit tmean tp90; do
        fl=$(col "$W/$net/$d/requests.csv" fetched_tokens | awk '$1 > 0 { n++ } END { print n + 0 }')
        echo "$net,$th,$tmean,$tp90,$hit,$fl"
    done <"$W/$net/points.csv" >>"$W/rows.csv"
done
mv "$W/rows.csv" "$OUT/threshold_sweep.csv"
awk -F, 'NR == 1 { next } { th = $2 == 1000000 ? "inf (never fetch)" : $2;
    printf "| %s | %s | %.3f | %.3f | %.3f | %d |\n", $1, th, $3, $4, $5, $6 }' "$OUT/threshold_sweep.csv" |
    { echo "| network | threshold | mean TTFT s | p90 TTFT s | hit rate | fetches |"
      echo "|---|---:|---:|---:|---:|---:|"; cat; } >"$OUT/threshold_sweep.md"
gnuplot -e "datafile='$OUT/threshold_sweep.csv'; outfile='$OUT/threshold_sweep.png'; pdffile='$OUT/threshold_sweep.pdf'" "$ROOT/plots/threshold_sweep.gp"
cat "$OUT/threshold_sweep.md"
