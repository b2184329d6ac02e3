#!/bin/sh
# arXiv real workload: Mooncake-[10P+10D] against vLLM-[20M] on the
# conversation trace, TTFT <= 30 s and TBT <= 0.1 s: requests served within
# the SLOs, TTFT and TBT distributions (TBT: tbt_top10_s, the per-request
# TBT the SLO judges), from each run's requests.csv by column name.
# Writes results/arxiv/fig13_real_cdf.csv and fig13_real.{md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/arxiv"
W="$OUT/fig13_work"
fresh_dir "$W"
trace_file conversation_trace >/dev/null
EXP="$ROOT/experiments/arxiv/fig13_real.json"
"$BIN" run "$EXP" --quiet --out "$W/mooncake"
"$BIN" run "$EXP" --quiet --out "$W/vllm" --set cluster.prefill=0 --set cluster.decode=0 \
    --set system.kind=vllm --set system.params.instances=20
# sorted REQUESTS.CSV COLUMN: COLUMN of the completed requests, ascending
sorted() { col "$1" status "$2" | awk -F, '$1 == "completed" { print $2 }' | sort -g; }
echo "system,metric,value_s,cdf" >"$OUT/fig13_real_cdf.csv"
for s in mooncake vllm; do
    for m in ttft:ttft_s tbt:tbt_top10_s; do
        sorted "$W/$s/requests.csv" "${m#*:}" |
            awk -v s="$s" -v m="${m%%:*}" '{ x[NR] = $1 } END { step = int(NR / 400) + 1;
                for (i = 1; i <= NR; i += step) print s "," m "," x[i] "," i / NR; print s "," m "," x[NR] ",1" }' \
            >>"$OUT/fig13_real_cdf.csv"
    done
done
{
    echo "| system | requests | within SLO | completed | rejected | TTFT mean / p90 / p99 s | TBT (top 10%) p50 / p90 / p99 s |"
    echo "|---|---:|---:|---:|---:|---|---|"
    for s in mooncake vllm; do
        col "$W/$s/requests.csv" status ttft_s tbt_top10_s |
            awk -F, -v s="$s" '{ n++; if ($1 == "completed") { c++; if ($2 <= 30 && $3 <= 0.1) ok++ } else rej++ }
                END { printf "| %s | %d | %d | %d | %d |", s, n, ok, c, rej }'
        sorted "$W/$s/requests.csv" ttft_s |
            awk '{ x[NR] = $1; t += $1 } END { printf " %.2f / %.2f / %.2f |", t / NR, x[int(0.9 * NR + 0.99)], x[int(0.99 * NR + 0.99)] }'
        sorted "$W/$s/requests.csv" tbt_top10_s |
            awk '{ x[NR] = $1 } END { printf " %.3f / %.3f / %.3f |\n", x[int(0.5 * NR + 0.99)], x[int(0.9 * NR + 0.99)], x[int(0.99 * NR + 0.99)] }'
    done
} >"$OUT/fig13_real.md"
gnuplot -e "datafile='$OUT/fig13_real_cdf.csv'; outfile='$OUT/fig13_real.png'; pdffile='$OUT/fig13_real.pdf'" "$ROOT/plots/fig13_real.gp"
cat "$OUT/fig13_real.md"
