#!/bin/sh
# What reuse does to TTFT: the conversation trace on 8P+8D with the
# KVCache pool (DRAM + SSD of every node, LRU) and without it. Writes
# results/fast25/pool_ttft.{csv,md,png} and the two runs' result folders.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
mkdir -p "$OUT"
fresh_dir "$OUT/pool_on"
fresh_dir "$OUT/pool_off"
EXP="$ROOT/experiments/conversation_8p8d.json"
"$BIN" run "$EXP" --quiet --out "$OUT/pool_on" --set cache.enabled=1
"$BIN" run "$EXP" --quiet --out "$OUT/pool_off" --set cache.enabled=0
# TTFT column 9 of requests.csv, completed requests; CDF points.
for v in on off; do
    awk -F, 'NR > 1 && $5 == "completed" { print $9 }' "$OUT/pool_$v/requests.csv" |
        sort -g | awk -v v="$v" '{ x[NR] = $1 } END { for (i = 1; i <= NR; i++) print v "," x[i] "," i / NR }'
done | { echo "pool,ttft_s,cdf"; cat; } >"$OUT/pool_ttft.csv"
awk -F, 'NR > 1 { n[$1]++; s[$1] += $2; x[$1, n[$1]] = $2 }
    function q(v, p,   k) { k = int(p * n[v] + 0.999999); if (k < 1) k = 1; return x[v, k] }
    END {
        print "| pool | completed | TTFT mean s | p50 | p90 | p99 |";
        print "|---|---:|---:|---:|---:|---:|";
        split("on off", vs, " ");
        for (i = 1; i <= 2; i++) { v = vs[i];
            printf "| %s | %d | %.3f | %.3f | %.3f | %.3f |\n", v, n[v], s[v] / n[v],
                q(v, 0.5), q(v, 0.9), q(v, 0.99) } }' "$OUT/pool_ttft.csv" >"$OUT/pool_ttft.md"
hit=$(sed -n 's/^ *"hit_rate_tokens": *\([0-9.eE+-]*\),*$/\1/p' "$OUT/pool_on/summary.json")
echo "pool hit rate (tokens): $hit" >>"$OUT/pool_ttft.md"
gnuplot -e "datafile='$OUT/pool_ttft.csv'; outfile='$OUT/pool_ttft.png'" "$ROOT/plots/pool_ttft.gp"
cat "$OUT/pool_ttft.md"
