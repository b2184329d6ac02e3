#!/bin/sh
# Traces: none
# FAST'25 Fig. 14: latency breakdown of one request (prefill, KV transfer,
# cache load on the decode node, decoding 128 tokens) for prompts of 8k to
# 128k tokens with 0% and 95% of the prefix cached, next to the paper's
# figures. Writes results/fast25/fig14_breakdown.{csv,md,png}. Needs no trace.
# The runs are the points of fig14_breakdown.sweep.json, one per trace the
# script writes to FIG14_TRACES (the work folder); each point's
# requests.csv is read by its header names.
#
# The 95% case first runs a priming request of 95% of the prompt (rounded
# down to a token), then, 1000 s later, the measured request sharing its
# prefix. KVCache is reused in whole 512-token blocks only, so the measured
# request reuses the primer's full blocks: floor(0.95 n / 512) * 512 tokens
# (8k: 7680 = 93.75% of 8192, 16k: 15360, 32k: 30720, 64k: 61952, 128k:
# 124416 = 94.9%), and prefills the rest, starting with the block whose
# first tokens the primer held but whose others it did not. The primer's
# partial last block therefore has an id of its own (see req): were it
# named like the measured request's block at that position, that block
# would be reused although its tokens differ (8k would be 100% cached).
# The script checks each row's cached_tokens against that and fails if
# they differ; the CSV's last two columns give them.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig14_work"
fresh_dir "$W"
# paper PCT N: FAST'25 Fig. 14's prefill, transfer, load_cache and
# decode_128_tokens for N tokens with PCT% cached, from
# experiments/published.json (the sets fast25_fig14_*)
command -v jq >/dev/null || { echo "$0: needs jq (reads experiments/published.json)" >&2; exit 2; }
paper() {
    jq -r --arg p "$1" --argjson n "$2" '[.sets[] | select(.id | startswith("fast25_fig14_")) |
        .points[] | select(.[0] == $p and .[1] == $n) | .[2] | tostring] | join(" ")' "$ROOT/experiments/published.json"
}
# request line: timestamp ms, input tokens, output tokens. Full 512-token
# blocks get ids 0, 1, 2, ... (so the requests share them); a partial last
# block gets 1000000000 + the prompt's length, which no block of the other
# request carries: a block is shared only if both requests hold all its tokens.
req() {
    awk -v t="$1" -v n="$2" -v o="$3" 'BEGIN {
        printf "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": [", t, n, o;
        full = int(n / 512);
        for (b = 0; b < full; b++) printf "%s%d", (b ? ", " : ""), b;
        if (n % 512) printf "%s%d", (full ? ", " : ""), 1000000000 + n;
        print "]}" }'
}
for pct in 0 95; do
    for n in 8192 16384 32768 65536 131072; do
        t="$W/p${pct}_$n.jsonl"
        : >"$t"
        primer=$((n * pct / 100))
        if [ "$primer" -gt 0 ]; then req 0 "$primer" 1 >>"$t"; fi
        req 1000000 "$n" 129 >>"$t"
    done
done
export FIG14_TRACES="$W"
sweep "$ROOT/experiments/fast25/fig14_breakdown.sweep.json" "$W/sweep"
echo "prefix_pct,prompt_tokens,sim_prefill_s,sim_transfer_s,sim_stream_s,sim_load_s,sim_decode128_s,paper_prefill_s,paper_transfer_s,paper_load_s,paper_decode128_s,cached_tokens,expected_cached_tokens" >"$W/rows.csv"
col "$W/sweep/sweep.csv" trace.path dir >"$W/points.csv"
while IFS=, read -r t d; do
    # the prefix percent and the prompt tokens from the trace's name p<pct>_<n>.jsonl
    t=${t##*/p}
    t=${t%.jsonl}
    pct=${t%_*}
    n=${t#*_}
    # the measured request is the one arriving at 1000 s; columns of
    # requests.csv by their header names
    awk -F, -v pct="$pct" -v n="$n" -v want="$((n * pct / 100 / 512 * 512))" -v paper="$(paper "$pct" "$n")" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
                  split("arrival_s ttft_s queue_s prefill_s transfer_s finish_s kv_ready_s decode_load_s decode_start_s cached_tokens", need, " ")
                  for (k in need) if (!(need[k] in c)) { print "fig14: requests.csv has no " need[k] > "/dev/stderr"; exit 1 }
                  next }
        $c["arrival_s"] + 0 >= 1000 { row = $0 }
        END { if (row == "") { print "fig14: no measured request" > "/dev/stderr"; exit 1 }
              $0 = row
              arrival = $c["arrival_s"]; ttft = $c["ttft_s"]; prefill = $c["prefill_s"]; stream = $c["transfer_s"]
              finish = $c["finish_s"]; kv_ready = $c["kv_ready_s"]; load = $c["decode_load_s"]; join = $c["decode_start_s"]
              split(paper, p, " ")
              printf "%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%s,%s,%s,%s,%d,%d\n", pct, n, prefill,
                  kv_ready - (arrival + $c["queue_s"] + prefill), stream, load, finish - join, p[1], p[2], p[3], p[4], $c["cached_tokens"], want }' \
        "$W/sweep/$d/requests.csv"
done <"$W/points.csv" >>"$W/rows.csv"
# the reused prefix is the primer's whole blocks, never more (the old
# generator shared the primer's partial block: 8k at 95% was 100% cached)
col "$W/rows.csv" prefix_pct prompt_tokens cached_tokens expected_cached_tokens >"$W/check.csv"
awk -F, '$3 != $4 { printf "fig14: %s%% of %s tokens: %s cached, want %s\n", $1, $2, $3, $4 > "/dev/stderr"; bad = 1 }
    $1 > 0 && $3 >= $2 { printf "fig14: %s%% of %s tokens is wholly cached\n", $1, $2 > "/dev/stderr"; bad = 1 }
    END { exit bad }' "$W/check.csv"
mv "$W/rows.csv" "$OUT/fig14_breakdown.csv"
awk -F, 'NR == 1 { next } {
    printf "| %s%% | %dk | %d (%.2f%%) | %.2f (%.2f) | %.3f (%.2f) | %.3f | %.3f (%.2f) | %.2f (%.2f) |\n",
        $1, $2 / 1024, $12, 100 * $12 / $2, $3, $8, $4, $9, $5, $6, $10, $7, $11 }' "$OUT/fig14_breakdown.csv" |
    { echo "| prefix | prompt | reused tokens (share) | prefill s (paper) | transfer after prefill s (paper's transfer) | whole stream s | decode-side load s (paper) | decode 128 tokens s (paper) |"
      echo "|---|---:|---:|---:|---:|---:|---:|---:|"; cat; } >"$OUT/fig14_breakdown.md"
gnuplot -e "datafile='$OUT/fig14_breakdown.csv'; outfile='$OUT/fig14_breakdown.png'; pdffile='$OUT/fig14_breakdown.pdf'" "$ROOT/plots/fig14_breakdown.gp"
cat "$OUT/fig14_breakdown.md"
