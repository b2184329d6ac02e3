#!/bin/sh
# Traces: conversation_trace
# What reuse does to TTFT: the conversation trace on 8P+8D with the
# KVCache pool (DRAM + SSD of every node, LRU) and without it. The two runs
# are the points of pool_ttft.sweep.json (results/fast25/pool_work: on,
# then off); sweep.csv (hit rate) and each point's requests.csv (TTFT) are
# read by their header names.
# Writes results/fast25/pool_ttft.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/pool_work"
trace_file conversation_trace >/dev/null
sweep "$ROOT/experiments/fast25/pool_ttft.sweep.json" "$W"
col "$W/sweep.csv" cache.enabled dir >"$W/points.csv"
# CDF points of TTFT over completed requests, pool on then off
while IFS=, read -r on d; do
    col "$W/$d/requests.csv" status ttft_s | awk -F, '$1 == "completed" { print $2 }' | sort -g |
        awk -v v="$on" 'BEGIN { v = v == 1 ? "on" : "off" } { x[NR] = $1 } END { for (i = 1; i <= NR; i++) print v "," x[i] "," i / NR }'
done <"$W/points.csv" | { echo "pool,ttft_s,cdf"; cat; } >"$OUT/pool_ttft.csv"
# the table: summary.json's numbers, from sweep.csv (on, then off)
col "$W/sweep.csv" cache.enabled requests.completed ttft_s.mean ttft_s.p50 ttft_s.p90 ttft_s.p99 |
    awk -F, 'BEGIN { print "| pool | completed | TTFT mean s | p50 | p90 | p99 |"; print "|---|---:|---:|---:|---:|---:|" }
        { printf "| %s | %d | %.3f | %.3f | %.3f | %.3f |\n", $1 == 1 ? "on" : "off", $2, $3, $4, $5, $6 }' \
    >"$OUT/pool_ttft.md"
hit=$(col "$W/sweep.csv" cache.enabled cache.hit_rate_tokens | awk -F, '$1 == 1 { print $2 }')
printf '\npool hit rate (tokens): %s\n' "$hit" >>"$OUT/pool_ttft.md"
gnuplot -e "datafile='$OUT/pool_ttft.csv'; outfile='$OUT/pool_ttft.png'; pdffile='$OUT/pool_ttft.pdf'" "$ROOT/plots/pool_ttft.gp"
cat "$OUT/pool_ttft.md"
