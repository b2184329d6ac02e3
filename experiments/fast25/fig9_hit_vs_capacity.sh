#!/bin/sh
# Traces: conversation_trace synthetic_trace
# FAST'25 Fig. 9 style: token hit rate of one global KVCache pool against
# its capacity (1e4 to 1e9 tokens), conversation and synthetic traces, for
# each eviction policy. Writes results/fast25/fig9_hit_vs_capacity.{csv,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
mkdir -p "$OUT"
# half decades, and the capacities FAST'25 Fig. 9 publishes (experiments/published.json)
CAPS=10000,31623,100000,316228,1000000,2000000,3162278,4000000,5000000,8000000,10000000,31622777,50000000,100000000,316227766,500000000,1000000000
echo "trace,policy,capacity_tokens,hit_rate_tokens" >"$OUT/fig9_hit_vs_capacity.csv.tmp"
for t in conversation synthetic; do
    TRACE=$(trace_file ${t}_trace)
    for p in lru lfu length_aware; do
        "$BIN" trace cache "$TRACE" --policy "$p" --capacity-tokens "$CAPS" |
            cache_json_to_csv "$p" | sed "s/^/$t,/" >>"$OUT/fig9_hit_vs_capacity.csv.tmp"
    done
done
mv "$OUT/fig9_hit_vs_capacity.csv.tmp" "$OUT/fig9_hit_vs_capacity.csv"
published_csv "$OUT/.fig9_published.csv" fast25_fig9
gnuplot -e "datafile='$OUT/fig9_hit_vs_capacity.csv'; pubfile='$OUT/.fig9_published.csv'; outfile='$OUT/fig9_hit_vs_capacity.png'; pdffile='$OUT/fig9_hit_vs_capacity.pdf'" \
    "$ROOT/plots/fig9_hit_vs_capacity.gp"
rm -f "$OUT/.fig9_published.csv"
echo "wrote $OUT/fig9_hit_vs_capacity.csv and .png"
