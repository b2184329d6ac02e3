#!/bin/sh
# arXiv Table 3: rejections and goodput per admission policy on the
# conversation trace at 2.5x speed on 10P + 3D, where both pools reach
# their SLO at peaks (the paper's 2x replay of a trace with about twice as
# many requests overloads both pools; ours at 2x on 8P + 8D leaves decode
# at a third of its SLO), and on the paper's 8P + 8D for comparison; plus
# the load threshold of early and predictive on 10P + 3D. Writes results/arxiv/table3_overload.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/arxiv"
W="$OUT/table3_work"
fresh_dir "$W"
trace_file conversation_trace >/dev/null
EXP="$ROOT/experiments/arxiv/table3_overload.json"
top() { sed -n "s/^ *\"$2\": *\([0-9.eE+-]*\),*$/\1/p" "$1/summary.json" | head -1; }
echo "split,policy,threshold,rejected_at_arrival,rejected_after_prefill,wasted_prefill_gpu_s,goodput_rps,effective_capacity" >"$W/rows.csv"
row() { # split policy threshold extra-set...
    sp=$1 pol=$2 th=$3
    shift 3
    p=${sp%P*} d=${sp#*P}
    d=${d%D}
    pname=$pol
    extra=""
    [ "$pol" = predictive_oracle ] && { pname=predictive; extra="--set admission.predictor=oracle"; }
    r="$W/${sp}_${pol}_$th"
    # shellcheck disable=SC2086
    "$BIN" run "$EXP" --quiet --out "$r" --set cluster.prefill=$p --set cluster.decode=$d \
        --set admission.policy=$pname --set admission.threshold=$th $extra
    w=$(getnum "$r" prefill wasted_s)
    echo "$sp,$pol,$th,$(getnum "$r" requests rejected_at_arrival),$(getnum "$r" requests rejected_after_prefill),$(awk -v w="$w" 'BEGIN { printf "%.1f", 8 * w }'),$(top "$r" goodput_rps),$(getnum "$r" slo effective_request_capacity)" >>"$W/rows.csv"
}
for sp in 10P3D 8P8D; do
    for pol in none baseline early predictive predictive_oracle; do
        row $sp $pol 1
    done
done
for th in 0.8 0.6 0.5; do
    for pol in early predictive; do
        row 10P3D $pol $th
    done
done
mv "$W/rows.csv" "$OUT/table3_overload.csv"
awk -F, 'NR == 1 { next } { printf "| %s | %s | %s | %d | %d | %s | %.3f | %.3f |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' \
    "$OUT/table3_overload.csv" | { echo "| split | policy | threshold | rejected at arrival | rejected after prefill | wasted prefill GPU-s | goodput req/s | within SLO |"
      echo "|---|---|---:|---:|---:|---:|---:|---:|"; cat; } >"$OUT/table3_overload.md"
gnuplot -e "datafile='$OUT/table3_overload.csv'; outfile='$OUT/table3_overload.png'" "$ROOT/plots/table3_overload.gp"
cat "$OUT/table3_overload.md"
