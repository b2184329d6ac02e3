#!/bin/sh
# Traces: conversation_trace
# FAST'25 Fig. 5 style: the four placements on the conversation trace
# (8P + 8D): mean and P90 TTFT (summary.json's ttft_s.mean and ttft_s.p90,
# from sweep.csv), the share of all requests within TTFT 10 s (rejections
# count as misses; not summary.json's slo.attainment, which is over
# completed requests and both SLOs) and a TTFT box plot. The runs are the
# points of fig5_scheduling.sweep.json; sweep.csv and each point's
# requests.csv are read by their header names.
# Writes results/fast25/fig5_scheduling.{csv,md,png} and fig5_ttft.csv (the
# box plot's data: each completed request's TTFT).
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig5_work"
trace_file conversation_trace >/dev/null
sweep "$ROOT/experiments/fast25/fig5_scheduling.sweep.json" "$W"
echo "policy,ttft_s" >"$W/ttft.csv"
echo "policy,requests,completed,rejected,ttft_mean_s,ttft_p90_s,within_ttft_slo_share,hit_rate" >"$W/rows.csv"
col "$W/sweep.csv" scheduler.policy dir cache.hit_rate_tokens ttft_s.mean ttft_s.p90 >"$W/points.csv"
while IFS=, read -r p d hit tmean tp90; do
    col "$W/$d/requests.csv" status ttft_s >"$W/status_ttft.csv"
    awk -F, -v p="$p" '$1 == "completed" { print p "," $2 }' "$W/status_ttft.csv" >>"$W/ttft.csv"
    awk -F, -v p="$p" -v hit="$hit" -v tmean="$tmean" -v tp90="$tp90" '{ n++; if ($1 == "completed") { c++; if ($2 <= 10) ok++ } else rej++ }
        END { printf "%s,%d,%d,%d,%s,%s,%.4f,%s\n", p, n, c, rej + 0, tmean, tp90, ok / n, hit }' \
        "$W/status_ttft.csv" >>"$W/rows.csv"
done <"$W/points.csv"
mv "$W/rows.csv" "$OUT/fig5_scheduling.csv"
mv "$W/ttft.csv" "$OUT/fig5_ttft.csv"
awk -F, 'NR == 1 { next } { printf "| %s | %.3f | %.3f | %.4f | %.3f | %d |\n", $1, $5, $6, $7, $8, $4 }' \
    "$OUT/fig5_scheduling.csv" | { echo "| policy | mean TTFT s | p90 TTFT s | share within TTFT 10 s | hit rate | rejected |"
      echo "|---|---:|---:|---:|---:|---:|"; cat; } >"$OUT/fig5_scheduling.md"
gnuplot -e "datafile='$OUT/fig5_ttft.csv'; outfile='$OUT/fig5_scheduling.png'; pdffile='$OUT/fig5_scheduling.pdf'" "$ROOT/plots/fig5_scheduling.gp"
cat "$OUT/fig5_scheduling.md"
