#!/bin/sh
# CPP against a single node: TTFT of one 32k to 128k-token prompt on a
# prefill group of 1, 2, 4 and 8 nodes (chunks of 8k tokens), and the
# 128k prompt's TTFT by chunk size on 4 nodes (the chunk sensitivity).
# Writes results/fast25/cpp_long_prompts.{csv,md,png}. Needs no trace.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/cpp_work"
fresh_dir "$W"
EXP="$ROOT/experiments/fast25/cpp_long_prompts.json"
ttft() { # prompt tokens, group, chunk -> TTFT seconds
    t="$W/p$1.jsonl"
    [ -s "$t" ] || awk -v n="$1" 'BEGIN {
        printf "{\"timestamp\": 0, \"input_length\": %d, \"output_length\": 2, \"hash_ids\": [", n;
        for (b = 0; b < int((n + 511) / 512); b++) printf "%s%d", (b ? ", " : ""), b;
        print "]}" }' >"$t"
    d="$W/p$1_g$2_c$3"
    "$BIN" run "$EXP" --quiet --out "$d" --set trace.path="$t" \
        --set cluster.prefill_group="$2" --set cluster.prefill_chunk="$3"
    awk -F, 'NR == 2 { print $9 }' "$d/requests.csv"
}
echo "prompt_tokens,group,chunk,ttft_s" >"$W/rows.csv"
for n in 32768 65536 131072; do
    for g in 1 2 4 8; do
        echo "$n,$g,8192,$(ttft $n $g 8192)" >>"$W/rows.csv"
    done
done
for ch in 2048 4096 16384 32768; do
    echo "131072,4,$ch,$(ttft 131072 4 $ch)" >>"$W/rows.csv"
done
mv "$W/rows.csv" "$OUT/cpp_long_prompts.csv"
awk -F, 'NR > 1 && $3 == 8192 { t[$1, $2] = $4; if (!($1 in s)) { s[$1] = 1; ns[++n] = $1 } }
    END { print "| prompt | 1 node | 2 nodes | 4 nodes | 8 nodes | speed-up on 8 |";
          print "|---:|---:|---:|---:|---:|---:|";
          for (i = 1; i <= n; i++) { p = ns[i];
              printf "| %dk | %.2f | %.2f | %.2f | %.2f | %.2fx |\n", p / 1024, t[p, 1], t[p, 2],
                  t[p, 4], t[p, 8], t[p, 1] / t[p, 8] } }' "$OUT/cpp_long_prompts.csv" >"$OUT/cpp_long_prompts.md"
awk -F, 'NR > 1 && $1 == 131072 && $2 == 4 { printf "128k on 4 nodes, chunk %d: TTFT %.2f s\n", $3, $4 }' \
    "$OUT/cpp_long_prompts.csv" | sort -t' ' -k6 -n >>"$OUT/cpp_long_prompts.md"
gnuplot -e "datafile='$OUT/cpp_long_prompts.csv'; outfile='$OUT/cpp_long_prompts.png'" "$ROOT/plots/cpp_long_prompts.gp"
cat "$OUT/cpp_long_prompts.md"
