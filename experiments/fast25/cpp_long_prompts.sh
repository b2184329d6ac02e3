#!/bin/sh
# Traces: none
# CPP against a single node: TTFT of one 32k to 128k-token prompt on a
# prefill group of 1, 2, 4 and 8 nodes (chunks of 8k tokens), and the
# 128k prompt's TTFT by chunk size on 4 nodes (the chunk sensitivity).
# The runs are the points of cpp_long_prompts.sweep.json, on one-prompt
# traces the script writes to CPP_TRACES (the work folder); sweep.csv
# (the prompt's tokens, group, chunk) and each point's requests.csv (TTFT)
# are read by their header names.
# Writes results/fast25/cpp_long_prompts.{csv,md,png}. Needs no trace.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/cpp_work"
fresh_dir "$W"
export CPP_TRACES="$W"
for n in 32768 65536 131072; do
    awk -v n="$n" 'BEGIN {
        printf "{\"timestamp\": 0, \"input_length\": %d, \"output_length\": 2, \"hash_ids\": [", n;
        for (b = 0; b < int((n + 511) / 512); b++) printf "%s%d", (b ? ", " : ""), b;
        print "]}" }' >"$W/p$n.jsonl"
done
sweep "$ROOT/experiments/fast25/cpp_long_prompts.sweep.json" "$W/sweep"
echo "prompt_tokens,group,chunk,ttft_s" >"$W/rows.csv"
col "$W/sweep/sweep.csv" trace.input_tokens cluster.prefill_group cluster.prefill_chunk dir >"$W/points.csv"
while IFS=, read -r n g ch d; do
    echo "$n,$g,$ch,$(col "$W/sweep/$d/requests.csv" ttft_s)"
done <"$W/points.csv" >>"$W/rows.csv"
mv "$W/rows.csv" "$OUT/cpp_long_prompts.csv"
awk -F, 'NR > 1 && $3 == 8192 { t[$1, $2] = $4; if (!($1 in s)) { s[$1] = 1; ns[++n] = $1 } }
    END { print "| prompt | 1 node | 2 nodes | 4 nodes | 8 nodes | speed-up on 8 |";
          print "|---:|---:|---:|---:|---:|---:|";
          for (i = 1; i <= n; i++) { p = ns[i];
              printf "| %dk | %.2f | %.2f | %.2f | %.2f | %.2fx |\n", p / 1024, t[p, 1], t[p, 2],
                  t[p, 4], t[p, 8], t[p, 1] / t[p, 8] } }' "$OUT/cpp_long_prompts.csv" >"$OUT/cpp_long_prompts.md"
echo >>"$OUT/cpp_long_prompts.md"
awk -F, 'NR > 1 && $1 == 131072 && $2 == 4 { printf "128k on 4 nodes, chunk %d: TTFT %.2f s\n", $3, $4 }' \
    "$OUT/cpp_long_prompts.csv" | sort -t' ' -k6 -n >>"$OUT/cpp_long_prompts.md"
gnuplot -e "datafile='$OUT/cpp_long_prompts.csv'; outfile='$OUT/cpp_long_prompts.png'; pdffile='$OUT/cpp_long_prompts.pdf'" "$ROOT/plots/cpp_long_prompts.gp"
cat "$OUT/cpp_long_prompts.md"
