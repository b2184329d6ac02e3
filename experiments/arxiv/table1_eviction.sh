#!/bin/sh
# Traces: conversation_trace
# The arXiv paper's Table 1: token hit rate of one global KVCache pool on
# the conversation trace under LRU, LFU and length-aware eviction, at 1k,
# 10k, 30k, 50k and 100k blocks of 512 tokens and unlimited.
# Writes results/arxiv/table1_eviction.{csv,md}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/arxiv"
mkdir -p "$OUT"
TRACE=$(trace_file conversation_trace)
CAPS=512000,5120000,15360000,25600000,51200000,inf
echo "policy,capacity_tokens,hit_rate_tokens" >"$OUT/table1_eviction.csv.tmp"
for p in lru lfu length_aware; do
    "$BIN" trace cache "$TRACE" --policy "$p" --capacity-tokens "$CAPS" |
        cache_json_to_csv "$p" >>"$OUT/table1_eviction.csv.tmp"
done
mv "$OUT/table1_eviction.csv.tmp" "$OUT/table1_eviction.csv"
awk -F, 'NR > 1 {
        cap = $2 == "inf" ? "inf" : ($2 / 512 / 1000) "k";
        if (!(cap in seen)) { seen[cap] = 1; caps[++nc] = cap }
        if (!($1 in seenp)) { seenp[$1] = 1; pols[++np] = $1 }
        v[$1, cap] = $3 }
    END {
        printf "| policy |"; for (i = 1; i <= nc; i++) printf " %s blocks |", caps[i]; print "";
        printf "|---|"; for (i = 1; i <= nc; i++) printf "---:|"; print "";
        for (j = 1; j <= np; j++) {
            printf "| %s |", pols[j];
            for (i = 1; i <= nc; i++) printf " %.3f |", v[pols[j], caps[i]];
            print "" } }' "$OUT/table1_eviction.csv" >"$OUT/table1_eviction.md"
cat "$OUT/table1_eviction.md"
