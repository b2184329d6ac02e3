#!/bin/sh
# Traces: conversation_trace
# arXiv real workload: Mooncake-[10P+10D] against vLLM-[20M] on the
# conversation trace, TTFT <= 30 s and TBT <= 0.1 s: requests served within
# the SLOs, TTFT and TBT distributions (TBT: tbt_top10_s, the per-request
# TBT the SLO judges): the table from each run's summary.json (requests,
# slo.met, ttft_s, tbt_top10_s), the CDFs from its requests.csv by column
# name; fig13_real.csv has each system's counts and its requests within the
# SLOs over vLLM-[20M]'s (the paper's "75% more", experiments/published.json).
# Writes results/arxiv/fig13_real_cdf.csv and fig13_real.{csv,md,png}.
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
echo "system,requests,within_slo,completed,rejected,within_slo_vs_vllm" >"$W/rows.csv"
for s in mooncake vllm; do
    echo "$s,$(getnum "$W/$s" requests total),$(getnum "$W/$s" slo met),$(getnum "$W/$s" requests completed)"
done | awk -F, '{ r[NR] = $0; ok[NR] = $3; n[NR] = $2; c[NR] = $4 }
    END { for (i = 1; i <= NR; i++) printf "%s,%d,%.4f\n", r[i], n[i] - c[i], ok[i] / ok[NR] }' >>"$W/rows.csv"
mv "$W/rows.csv" "$OUT/fig13_real.csv"
{
    echo "| system | requests | within SLO | completed | rejected | TTFT mean / p90 / p99 s | TBT (top 10%) p50 / p90 / p99 s |"
    echo "|---|---:|---:|---:|---:|---|---|"
    for s in mooncake vllm; do
        d="$W/$s"
        tot=$(getnum "$d" requests total)
        done_=$(getnum "$d" requests completed)
        awk -v s="$s" -v n="$tot" -v ok="$(getnum "$d" slo met)" -v c="$done_" \
            -v tm="$(getnum "$d" ttft_s mean)" -v t90="$(getnum "$d" ttft_s p90)" -v t99="$(getnum "$d" ttft_s p99)" \
            -v b50="$(getnum "$d" tbt_top10_s p50)" -v b90="$(getnum "$d" tbt_top10_s p90)" -v b99="$(getnum "$d" tbt_top10_s p99)" \
            'BEGIN { printf "| %s | %d | %d | %d | %d | %.2f / %.2f / %.2f | %.3f / %.3f / %.3f |\n",
                s, n, ok, c, n - c, tm, t90, t99, b50, b90, b99 }'
    done
} >"$OUT/fig13_real.md"
gnuplot -e "datafile='$OUT/fig13_real_cdf.csv'; outfile='$OUT/fig13_real.png'; pdffile='$OUT/fig13_real.pdf'" "$ROOT/plots/fig13_real.gp"
cat "$OUT/fig13_real.md"
