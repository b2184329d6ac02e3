#!/bin/sh
# FAST'25 Fig. 5 style: the four placements on the conversation trace
# (8P + 8D): mean TTFT, TTFT SLO attainment (TTFT <= 10 s over all
# requests, rejections count as misses) and a TTFT box plot.
# Writes results/fast25/fig5_scheduling.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig5_work"
fresh_dir "$W"
trace_file conversation_trace >/dev/null
EXP="$ROOT/experiments/fast25/fig5_scheduling.json"
echo "policy,ttft_s" >"$W/ttft.csv"
echo "policy,requests,completed,rejected,ttft_mean_s,ttft_p90_s,ttft_slo_attainment,hit_rate" >"$W/rows.csv"
for p in kvcentric cache_aware load_balance random; do
    "$BIN" run "$EXP" --quiet --out "$W/$p" --set scheduler.policy=$p
    awk -F, -v p="$p" 'NR > 1 && $5 == "completed" { print p "," $9 }' "$W/$p/requests.csv" >>"$W/ttft.csv"
    hit=$(sed -n 's/^ *"hit_rate_tokens": *\([0-9.eE+-]*\),*$/\1/p' "$W/$p/summary.json")
    st=$(ttft_stats "$W/$p/requests.csv")
    awk -F, -v p="$p" -v hit="$hit" -v st="$st" 'NR > 1 { n++; if ($5 == "completed") { c++; if ($9 <= 10) ok++ } else rej++ }
        END { split(st, v, ","); printf "%s,%d,%d,%d,%s,%s,%.4f,%s\n", p, n, c, rej + 0, v[1], v[2], ok / n, hit }' \
        "$W/$p/requests.csv" >>"$W/rows.csv"
done
mv "$W/rows.csv" "$OUT/fig5_scheduling.csv"
mv "$W/ttft.csv" "$OUT/fig5_ttft.csv"
awk -F, 'NR == 1 { next } { printf "| %s | %.3f | %.3f | %.4f | %.3f | %d |\n", $1, $5, $6, $7, $8, $4 }' \
    "$OUT/fig5_scheduling.csv" | { echo "| policy | mean TTFT s | p90 TTFT s | TTFT SLO attainment | hit rate | rejected |"
      echo "|---|---:|---:|---:|---:|---:|"; cat; } >"$OUT/fig5_scheduling.md"
gnuplot -e "datafile='$OUT/fig5_ttft.csv'; outfile='$OUT/fig5_scheduling.png'" "$ROOT/plots/fig5_scheduling.gp"
cat "$OUT/fig5_scheduling.md"
