#!/bin/sh
# The arXiv paper's end-to-end runs (sourced by fig11_datasets.sh and
# fig12_longctx.sh): for each workload, the sustained capacity of
# Mooncake-[3P+1D], Mooncake-[2P+2D] and vLLM-[4M] under Poisson arrivals,
# found by `mooncake-sim search`: the highest rate (to 2%) at which P90 TTFT
# and P90 TBT stay within 10x and 5x of what vLLM-[4M] measures at the
# workload's lowest tested rate (start), every run long enough to reach a
# steady state (at least 1,500 requests and 10 mean lifetimes). Needs FIG
# (fig11|fig12) and WORKLOADS ("name:set options+start=RATE" items) set by
# the caller. Writes results/arxiv/$FIG.md (capacities and the reference),
# ${FIG}_best.csv, ${FIG}_rates.csv (every probe, normalized) and $FIG.png.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/arxiv"
W="$OUT/${FIG}_work"
fresh_dir "$W"
EXP="$ROOT/experiments/arxiv"
# jnum DIR KEY [SUB]: the number at search.json's top-level KEY, or at KEY.SUB
jnum() {
    if [ $# = 2 ]; then
        sed -n "s/^  \"$2\": *\([0-9.eE+-]*\),*$/\1/p" "$1/search.json" | head -1
    else
        sed -n "/^  \"$2\": {/,/^  }/s/^    \"$3\": *\([0-9.eE+-]*\),*$/\1/p" "$1/search.json" | head -1
    fi
}
echo "workload,system,rate_rps,ttft_p90_norm,tbt_p90_norm,within_slo" >"$W/rows.csv"
echo "workload,system,max_rate_rps" >"$W/best.csv"
: >"$W/reference.txt"
for item in $WORKLOADS; do
    wl=${item%%:*}
    opts=$(echo "${item#*:}" | tr '+' ' ')
    start=$(echo "$opts" | sed -n 's/.*start=\([0-9.]*\).*/\1/p')
    opts=$(echo "$opts" | sed 's/start=[0-9.]*//')
    for sys in mooncake_3p1d mooncake_2p2d vllm_4m; do
        d="$W/${wl}_$sys"
        # shellcheck disable=SC2086
        "$BIN" search "$EXP/${FIG}_$sys.json" --quiet --lo "$start" --ref "$EXP/${FIG}_vllm_4m.json" \
            --out "$d" $opts >/dev/null
        # the probes in rate order, as the plot draws them
        tail -n +2 "$d/probes.csv" | sort -t, -k1,1g |
            awk -F, -v w="$wl" -v s="$sys" '{ printf "%s,%s,%s,%.4f,%.4f,%s\n", w, s, $1, $5, $6, $7 }' >>"$W/rows.csv"
        echo "$wl,$sys,$(jnum "$d" capacity)" >>"$W/best.csv"
    done
    d="$W/${wl}_vllm_4m"
    echo "$wl: reference vLLM-[4M] at $(jnum "$d" reference value) req/s ($(jnum "$d" reference requests) requests): P90 TTFT $(jnum "$d" reference ttft_p90_s) s, P90 TBT $(jnum "$d" reference tbt_p90_s) s, mean lifetime $(jnum "$d" reference mean_lifetime_s) s; SLO P90 TTFT <= $(jnum "$d" thresholds ttft_p90_s) s, P90 TBT <= $(jnum "$d" thresholds tbt_p90_s) s" >>"$W/reference.txt"
done
mv "$W/rows.csv" "$OUT/${FIG}_rates.csv"
mv "$W/best.csv" "$OUT/${FIG}_best.csv"
awk -F, 'NR == 1 { next } { if (!($1 in seen)) { seen[$1] = 1; w[++n] = $1 } b[$1, $2] = $3 }
    function show(x) { return x > 0 ? x : "none" }
    END { print "| workload | Mooncake-[3P+1D] rps | Mooncake-[2P+2D] rps | vLLM-[4M] rps | best Mooncake / vLLM |";
          print "|---|---:|---:|---:|---:|";
          for (i = 1; i <= n; i++) { m = b[w[i], "mooncake_3p1d"]; if (b[w[i], "mooncake_2p2d"] > m) m = b[w[i], "mooncake_2p2d"];
              v = b[w[i], "vllm_4m"];
              printf "| %s | %s | %s | %s | %s |\n", w[i], show(b[w[i], "mooncake_3p1d"]), show(b[w[i], "mooncake_2p2d"]),
                  show(v), (v > 0 ? sprintf("%.2fx", m / v) : "vLLM none") } }' "$OUT/${FIG}_best.csv" >"$OUT/$FIG.md"
{
    echo
    echo "Sustained capacity (mooncake-sim search, tolerance 2%): the highest Poisson rate at which"
    echo "P90 TTFT and P90 TBT stay within 10x and 5x of vLLM-[4M]'s at the lowest tested rate;"
    echo "each run has max(1500, ceil(10 x L x rate)) requests, L the reference's mean lifetime."
    echo
    cat "$W/reference.txt"
} >>"$OUT/$FIG.md"
gnuplot -e "datafile='$OUT/${FIG}_rates.csv'; outfile='$OUT/$FIG.png'; workloads='$(echo "$WORKLOADS" | tr ' ' '\n' | sed 's/:.*//' | tr '\n' ' ')'" "$ROOT/plots/arxiv_e2e.gp"
cat "$OUT/$FIG.md"
