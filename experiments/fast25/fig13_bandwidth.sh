#!/bin/sh
# FAST'25 Fig. 13 style: average TTFT against per-node NIC bandwidth (24 to
# 400 Gbps) on the synthetic trace with the global KVCache pool, against
# recomputing every prompt. Writes results/fast25/fig13_bandwidth.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig13_work"
mkdir -p "$W"
trace_file synthetic_trace >/dev/null
EXP="$ROOT/experiments/fast25/fig13_bandwidth.json"
mean_ttft() { awk -F, 'NR > 1 && $5 == "completed" { s += $9; n++ } END { printf "%.4f", s / n }' "$1"; }
echo "nic_gbps,ttft_pool_s,ttft_recompute_s,hit_rate,fetched_gbytes" >"$W/rows.csv"
for g in 24 40 80 100 160 320 400; do
    "$BIN" run "$EXP" --quiet --out "$W/pool_$g" --set network.nic_gbps=$g
    "$BIN" run "$EXP" --quiet --out "$W/recompute_$g" --set network.nic_gbps=$g --set cache.enabled=0
    hit=$(sed -n 's/^ *"hit_rate_tokens": *\([0-9.eE+-]*\),*$/\1/p' "$W/pool_$g/summary.json")
    fetched=$(awk -F, 'NR > 1 { s += $21 } END { printf "%.1f", s * 327680 / 1e9 }' "$W/pool_$g/requests.csv")
    echo "$g,$(mean_ttft "$W/pool_$g/requests.csv"),$(mean_ttft "$W/recompute_$g/requests.csv"),$hit,$fetched" >>"$W/rows.csv"
done
mv "$W/rows.csv" "$OUT/fig13_bandwidth.csv"
awk -F, 'NR == 1 { next } { printf "| %d | %.3f | %.3f | %.3f | %.0f |\n", $1, $2, $3, $4, $5 }' \
    "$OUT/fig13_bandwidth.csv" | { echo "| NIC Gbps | mean TTFT, global pool (s) | mean TTFT, recompute (s) | hit rate | fetched GB |"
      echo "|---:|---:|---:|---:|---:|"; cat; } >"$OUT/fig13_bandwidth.md"
gnuplot -e "datafile='$OUT/fig13_bandwidth.csv'; outfile='$OUT/fig13_bandwidth.png'" "$ROOT/plots/fig13_bandwidth.gp"
cat "$OUT/fig13_bandwidth.md"
