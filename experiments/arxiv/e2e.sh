#!/bin/sh
# The arXiv paper's end-to-end runs (sourced by fig11_datasets.sh and
# fig12_longctx.sh): for each workload, Mooncake-[3P+1D], Mooncake-[2P+2D]
# and vLLM-[4M] under Poisson arrivals at increasing rates; P90 TTFT and
# P90 TBT normalized to SLOs of 10x and 5x the single-request values (one
# request at a time on one vLLM instance); the highest rate each system
# serves within both. Needs FIG (fig11|fig12) and WORKLOADS ("name:set
# options" items) set by the caller.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/arxiv"
W="$OUT/${FIG}_work"
mkdir -p "$W"
getnum() { sed -n "/\"$2\": {/,/}/s/^ *\"$3\": *\([0-9.eE+-]*\),*$/\1/p" "$1/summary.json" | head -1; }
echo "workload,system,rate_rps,ttft_p90_norm,tbt_p90_norm,within_slo" >"$W/rows.csv"
echo "workload,system,max_rate_rps" >"$W/best.csv"
for item in $WORKLOADS; do
    wl=${item%%:*}
    opts=$(echo "${item#*:}" | tr '+' ' ')
    start=$(echo "$opts" | sed -n 's/.*start=\([0-9.]*\).*/\1/p')
    opts=$(echo "$opts" | sed 's/start=[0-9.]*//')
    # single-request, no-interference reference: one vLLM instance, about 2,000 s apart
    # shellcheck disable=SC2086
    "$BIN" run "$ROOT/experiments/arxiv/${FIG}_vllm_4m.json" --quiet --out "$W/${wl}_single" $opts \
        --set cluster.colocated=1 --set trace.generator.rate_rps=0.0005 --set trace.generator.requests=50
    ttft1=$(getnum "$W/${wl}_single" ttft_s p90)
    tbt1=$(getnum "$W/${wl}_single" tbt_s p90)
    echo "$wl: single-request P90 TTFT ${ttft1} s, P90 TBT ${tbt1} s" >"$W/${wl}_reference.txt"
    for sys in mooncake_3p1d mooncake_2p2d vllm_4m; do
        best=0
        rate=$start
        for step in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
            # shellcheck disable=SC2086
            "$BIN" run "$ROOT/experiments/arxiv/${FIG}_$sys.json" --quiet --out "$W/r" $opts \
                --set trace.generator.rate_rps=$rate
            line=$(awk -v r="$rate" -v t="$(getnum "$W/r" ttft_s p90)" -v b="$(getnum "$W/r" tbt_s p90)" \
                -v t1="$ttft1" -v b1="$tbt1" 'BEGIN { nt = t / (10 * t1); nb = b / (5 * b1);
                    printf "%s,%.4f,%.4f,%d", r, nt, nb, (nt <= 1 && nb <= 1) }')
            echo "$wl,$sys,$line" >>"$W/rows.csv"
            case "$line" in *,1) best=$rate ;; esac
            rate=$(awk -v r="$rate" 'BEGIN { printf "%.4g", r * 1.25 }')
        done
        echo "$wl,$sys,$best" >>"$W/best.csv"
    done
done
mv "$W/rows.csv" "$OUT/${FIG}_rates.csv"
mv "$W/best.csv" "$OUT/${FIG}_best.csv"
awk -F, 'NR == 1 { next } { if (!($1 in seen)) { seen[$1] = 1; w[++n] = $1 } b[$1, $2] = $3 }
    END { print "| workload | Mooncake-[3P+1D] rps | Mooncake-[2P+2D] rps | vLLM-[4M] rps | best Mooncake / vLLM |";
          print "|---|---:|---:|---:|---:|";
          for (i = 1; i <= n; i++) { m = b[w[i], "mooncake_3p1d"]; if (b[w[i], "mooncake_2p2d"] > m) m = b[w[i], "mooncake_2p2d"];
              v = b[w[i], "vllm_4m"];
              printf "| %s | %s | %s | %s | %s |\n", w[i], b[w[i], "mooncake_3p1d"], b[w[i], "mooncake_2p2d"], v,
                  (v > 0 ? sprintf("%.2fx", m / v) : "vLLM none") } }' "$OUT/${FIG}_best.csv" >"$OUT/$FIG.md"
cat "$W"/*_reference.txt >>"$OUT/$FIG.md"
gnuplot -e "datafile='$OUT/${FIG}_rates.csv'; outfile='$OUT/$FIG.png'; workloads='$(echo "$WORKLOADS" | tr ' ' '\n' | sed 's/:.*//' | tr '\n' ' ')'" "$ROOT/plots/arxiv_e2e.gp"
cat "$OUT/$FIG.md"
