#!/bin/sh
# arXiv real workload: Mooncake-[10P+10D] against vLLM-[20M] on the
# conversation trace, TTFT <= 30 s and TBT <= 0.1 s: requests served within
# the SLOs, TTFT and TBT distributions. Writes results/arxiv/fig13_real.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/arxiv"
W="$OUT/fig13_work"
fresh_dir "$W"
trace_file conversation_trace >/dev/null
EXP="$ROOT/experiments/arxiv/fig13_real.json"
"$BIN" run "$EXP" --quiet --out "$W/mooncake"
"$BIN" run "$EXP" --quiet --out "$W/vllm" --set cluster.prefill=0 --set cluster.decode=0 \
    --set cluster.colocated=20
echo "system,metric,value_s,cdf" >"$OUT/fig13_real_cdf.csv"
for s in mooncake vllm; do
    for m in ttft:9 tbt:13; do
        awk -F, -v col="${m#*:}" 'NR > 1 && $5 == "completed" { print $col }' "$W/$s/requests.csv" | sort -g |
            awk -v s="$s" -v m="${m%%:*}" '{ x[NR] = $1 } END { step = int(NR / 400) + 1;
                for (i = 1; i <= NR; i += step) print s "," m "," x[i] "," i / NR; print s "," m "," x[NR] ",1" }' \
            >>"$OUT/fig13_real_cdf.csv"
    done
done
{
    echo "| system | requests | within SLO | completed | rejected | TTFT mean / p90 / p99 s | TBT (top 10%) p50 / p90 / p99 s |"
    echo "|---|---:|---:|---:|---:|---|---|"
    for s in mooncake vllm; do
        awk -F, -v s="$s" 'NR > 1 { n++; if ($5 == "completed") { c++; if ($9 <= 30 && $13 <= 0.1) ok++ } else rej++ }
            END { printf "| %s | %d | %d | %d | %d |", s, n, ok, c, rej }' "$W/$s/requests.csv"
        awk -F, 'NR > 1 && $5 == "completed" { print $9 }' "$W/$s/requests.csv" | sort -g |
            awk '{ x[NR] = $1; t += $1 } END { printf " %.2f / %.2f / %.2f |", t / NR, x[int(0.9 * NR + 0.99)], x[int(0.99 * NR + 0.99)] }'
        awk -F, 'NR > 1 && $5 == "completed" { print $13 }' "$W/$s/requests.csv" | sort -g |
            awk '{ x[NR] = $1 } END { printf " %.3f / %.3f / %.3f |\n", x[int(0.5 * NR + 0.99)], x[int(0.9 * NR + 0.99)], x[int(0.99 * NR + 0.99)] }'
    done
} >"$OUT/fig13_real.md"
gnuplot -e "datafile='$OUT/fig13_real_cdf.csv'; outfile='$OUT/fig13_real.png'" "$ROOT/plots/fig13_real.gp"
cat "$OUT/fig13_real.md"
