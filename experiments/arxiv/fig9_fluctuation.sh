#!/bin/sh
# arXiv Fig. 9: mean prefill load and mean decode load over time on a
# 20-node cluster under early and under predictive rejection, and the
# correlation of the two series (negative: anti-phase swings).
# Writes results/arxiv/fig9_fluctuation.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/arxiv"
W="$OUT/fig9_work"
mkdir -p "$W"
trace_file conversation_trace >/dev/null
EXP="$ROOT/experiments/arxiv/fig9_fluctuation.json"
echo "policy,time_s,prefill_load,decode_load" >"$OUT/fig9_fluctuation.csv"
echo "| policy | correlation (prefill, decode load) | mean prefill load | mean decode load | rejected at arrival | goodput req/s |" >"$W/md"
echo "|---|---:|---:|---:|---:|---:|" >>"$W/md"
for p in early predictive; do
    "$BIN" run "$EXP" --quiet --out "$W/$p" --set admission.policy=$p
    # columns 14 and 15 of timeseries.csv: prefill_load_mean, decode_load_mean
    awk -F, -v p="$p" 'NR > 1 { print p "," $1 "," $14 "," $15 }' "$W/$p/timeseries.csv" >>"$OUT/fig9_fluctuation.csv"
    rej=$(sed -n 's/^ *"rejected_at_arrival": *\([0-9]*\),*$/\1/p' "$W/$p/summary.json")
    gp=$(sed -n 's/^ *"goodput_rps": *\([0-9.eE+-]*\),*$/\1/p' "$W/$p/summary.json")
    awk -F, -v p="$p" -v rej="$rej" -v gp="$gp" 'NR > 1 { n++; x = $14; y = $15; sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y }
        END { d = sqrt((n * sxx - sx * sx) * (n * syy - sy * sy));
              printf "| %s | %.3f | %.3f | %.3f | %d | %.3f |\n", p, (d > 0 ? (n * sxy - sx * sy) / d : 0), sx / n, sy / n, rej, gp }' \
        "$W/$p/timeseries.csv" >>"$W/md"
done
mv "$W/md" "$OUT/fig9_fluctuation.md"
gnuplot -e "datafile='$OUT/fig9_fluctuation.csv'; outfile='$OUT/fig9_fluctuation.png'" "$ROOT/plots/fig9_fluctuation.gp"
cat "$OUT/fig9_fluctuation.md"
