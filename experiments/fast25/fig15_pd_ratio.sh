#!/bin/sh
# FAST'25 Fig. 15: the P/D ratio sweep 5P11D to 11P5D on the synthetic
# trace (TTFT <= 10 s, TBT <= 0.1 s): effective request share, mean TTFT
# and mean TBT. Writes results/fast25/fig15_pd_ratio.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig15_work"
mkdir -p "$W"
trace_file synthetic_trace >/dev/null
EXP="$ROOT/experiments/fast25/fig15_pd_ratio.json"
getnum() { sed -n "/\"$2\": {/,/}/s/^ *\"$3\": *\([0-9.eE+-]*\),*$/\1/p" "$1/summary.json" | head -1; }
echo "prefill,decode,effective_share,ttft_mean_s,tbt_mean_s,rejected" >"$W/rows.csv"
for p in 5 6 7 8 9 10 11; do
    d=$((16 - p))
    "$BIN" run "$EXP" --quiet --out "$W/${p}p" --set cluster.prefill=$p --set cluster.decode=$d
    rej=$(getnum "$W/${p}p" requests rejected_at_arrival)
    echo "$p,$d,$(getnum "$W/${p}p" slo effective_request_capacity),$(getnum "$W/${p}p" ttft_s mean),$(getnum "$W/${p}p" tbt_s mean),$rej" >>"$W/rows.csv"
done
mv "$W/rows.csv" "$OUT/fig15_pd_ratio.csv"
awk -F, 'NR == 1 { next } { printf "| %dP+%dD | %.3f | %.3f | %.4f | %d |\n", $1, $2, $3, $4, $5, $6 }' \
    "$OUT/fig15_pd_ratio.csv" | { echo "| split | effective request share | mean TTFT s | mean TBT s | rejected |"
      echo "|---|---:|---:|---:|---:|"; cat; } >"$OUT/fig15_pd_ratio.md"
gnuplot -e "datafile='$OUT/fig15_pd_ratio.csv'; outfile='$OUT/fig15_pd_ratio.png'" "$ROOT/plots/fig15_pd_ratio.gp"
cat "$OUT/fig15_pd_ratio.md"
