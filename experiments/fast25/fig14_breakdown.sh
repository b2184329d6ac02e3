#!/bin/sh
# FAST'25 Fig. 14: latency breakdown of one request (prefill, KV transfer,
# cache load on the decode node, decoding 128 tokens) for prompts of 8k to
# 128k tokens with 0% and 95% of the prefix cached, next to the paper's
# figures. Writes results/fast25/fig14_breakdown.{csv,md,png}. Needs no trace.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig14_work"
mkdir -p "$W"
# paper (FAST'25 Fig. 14): prefill, transfer, load_cache, decode_128_tokens
paper() {
    case "$1:$2" in
    0:8192) echo "1.00 0.03 0.03 3.39" ;; 0:16384) echo "2.05 0.06 0.05 3.44" ;;
    0:32768) echo "4.48 0.13 0.11 3.52" ;; 0:65536) echo "10.59 0.25 0.21 3.66" ;;
    0:131072) echo "27.52 0.49 0.42 3.94" ;;
    95:8192) echo "0.13 0.03 0.03 3.40" ;; 95:16384) echo "0.23 0.06 0.05 3.44" ;;
    95:32768) echo "0.41 0.12 0.11 3.52" ;; 95:65536) echo "0.88 0.25 0.21 3.66" ;;
    95:131072) echo "2.33 0.50 0.42 3.95" ;;
    esac
}
# request line: timestamp ms, input tokens, output tokens; blocks 0..n-1
req() {
    awk -v t="$1" -v n="$2" -v o="$3" 'BEGIN {
        printf "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": [", t, n, o;
        for (b = 0; b < int((n + 511) / 512); b++) printf "%s%d", (b ? ", " : ""), b;
        print "]}" }'
}
echo "prefix_pct,prompt_tokens,sim_prefill_s,sim_transfer_s,sim_stream_s,sim_load_s,sim_decode128_s,paper_prefill_s,paper_transfer_s,paper_load_s,paper_decode128_s" >"$W/rows.csv"
for pct in 0 95; do
    for n in 8192 16384 32768 65536 131072; do
        t="$W/p${pct}_$n.jsonl"
        : >"$t"
        if [ "$pct" = 95 ]; then req 0 $((n * 95 / 100)) 1 >>"$t"; fi
        req 1000000 "$n" 129 >>"$t"
        "$BIN" run "$ROOT/experiments/fast25/fig14_breakdown.json" --quiet --out "$W/p${pct}_$n" \
            --set trace.path="$t"
        # the measured request is the last row (it finishes last)
        tail -1 "$W/p${pct}_$n/requests.csv" | awk -F, -v pct="$pct" -v n="$n" -v paper="$(paper "$pct" "$n")" '{
            arrival = $2; ttft = $9; prefill = $16; stream = $17; finish = $14
            kv_ready = $23; load = $24; join = $25
            split(paper, p, " ")
            printf "%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%s,%s,%s,%s\n", pct, n, prefill,
                kv_ready - (arrival + ttft), stream, load, finish - join, p[1], p[2], p[3], p[4] }' >>"$W/rows.csv"
    done
done
mv "$W/rows.csv" "$OUT/fig14_breakdown.csv"
awk -F, 'NR == 1 { next } {
    printf "| %s%% | %dk | %.2f (%.2f) | %.3f (%.2f) | %.3f | %.3f (%.2f) | %.2f (%.2f) |\n",
        $1, $2 / 1024, $3, $8, $4, $9, $5, $6, $10, $7, $11 }' "$OUT/fig14_breakdown.csv" |
    { echo "| cached | prompt | prefill s (paper) | transfer after prefill s (paper's transfer) | whole stream s | decode-side load s (paper) | decode 128 tokens s (paper) |"
      echo "|---|---:|---:|---:|---:|---:|---:|"; cat; } >"$OUT/fig14_breakdown.md"
gnuplot -e "datafile='$OUT/fig14_breakdown.csv'; outfile='$OUT/fig14_breakdown.png'" "$ROOT/plots/fig14_breakdown.gp"
cat "$OUT/fig14_breakdown.md"
