#!/bin/sh
# The arXiv paper's end-to-end runs (sourced by fig11_datasets.sh and
# fig12_longctx.sh): for each workload, the sustained capacity of
# Mooncake-[3P+1D], Mooncake-[2P+2D] and vLLM-[4M] under Poisson arrivals,
# found by `mooncake-sim search`: the highest rate (to 2%) at which P90 TTFT
# and P90 TBT over requests (TBT per request: the mean of its longest 10%
# of intervals) stay within 10x and 5x of what vLLM-[4M] measures at the
# workload's lowest tested rate (start), every run long enough to reach a
# steady state (at least 1,500 requests and 10 mean lifetimes). Needs FIG
# (fig11|fig12) and WORKLOADS ("name:set options+start=RATE" items) set by
# the caller. Reads each search's probes.csv by column name and its
# search.json with jq. Writes results/arxiv/$FIG.md (capacities and the
# reference), ${FIG}_best.csv, ${FIG}_rates.csv (every probe, normalized)
# and $FIG.png.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/arxiv"
W="$OUT/${FIG}_work"
command -v jq >/dev/null || { echo "$0: needs jq (reads the search.json files)" >&2; exit 2; }
fresh_dir "$W"
EXP="$ROOT/experiments/arxiv"
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
        col "$d/probes.csv" value ttft_norm tbt_norm pass | sort -t, -k1,1g |
            awk -F, -v w="$wl" -v s="$sys" '{ printf "%s,%s,%s,%.4f,%.4f,%s\n", w, s, $1, $2, $3, $4 }' >>"$W/rows.csv"
        echo "$wl,$sys,$(jq -r '.capacity // ""' "$d/search.json")" >>"$W/best.csv"
    done
    jq -r --arg wl "$wl" '.reference as $r | .thresholds as $t |
        "\($wl): reference vLLM-[4M] at \($r.value) req/s (\($r.requests) requests): " +
        "P90 TTFT \($r.ttft_p90_s) s, P90 TBT \($r.tbt_p90_s) s, mean lifetime \($r.mean_lifetime_s) s; " +
        "SLO P90 TTFT <= \($t.ttft_p90_s) s, P90 TBT <= \($t.tbt_p90_s) s"' "$W/${wl}_vllm_4m/search.json" >>"$W/reference.txt"
done
mv "$W/rows.csv" "$OUT/${FIG}_rates.csv"
mv "$W/best.csv" "$OUT/${FIG}_best.csv"
col "$OUT/${FIG}_best.csv" workload system max_rate_rps | awk -F, '{ if (!($1 in seen)) { seen[$1] = 1; w[++n] = $1 } b[$1, $2] = $3 }
    function show(x) { return x > 0 ? x : "none" }
    END { print "| workload | Mooncake-[3P+1D] rps | Mooncake-[2P+2D] rps | vLLM-[4M] rps | best Mooncake / vLLM |";
          print "|---|---:|---:|---:|---:|";
          for (i = 1; i <= n; i++) { m = b[w[i], "mooncake_3p1d"]; if (b[w[i], "mooncake_2p2d"] > m) m = b[w[i], "mooncake_2p2d"];
              v = b[w[i], "vllm_4m"];
              printf "| %s | %s | %s | %s | %s |\n", w[i], show(b[w[i], "mooncake_3p1d"]), show(b[w[i], "mooncake_2p2d"]),
                  show(v), (v > 0 ? sprintf("%.2fx", m / v) : "vLLM none") } }' >"$OUT/$FIG.md"
{
    echo
    echo "Sustained capacity (mooncake-sim search, tolerance 2%): the highest Poisson rate at which"
    echo "P90 TTFT and P90 TBT over requests (a request's TBT: the mean of its longest 10% of"
    echo "token intervals) stay within 10x and 5x of vLLM-[4M]'s at the lowest tested rate;"
    echo "each run has max(1500, ceil(10 x L x rate)) requests, L the reference's mean lifetime."
    echo
    cat "$W/reference.txt"
} >>"$OUT/$FIG.md"
# The papers' published capacities, marked on the SLO line (only ArXiv
# Summarization's are published: arXiv Fig. 11).
published_csv "$W/published.csv" arxiv_fig11
gnuplot -e "datafile='$OUT/${FIG}_rates.csv'; pubfile='$W/published.csv'; outfile='$OUT/$FIG.png'; pdffile='$OUT/$FIG.pdf'; workloads='$(echo "$WORKLOADS" | tr ' ' '\n' | sed 's/:.*//' | tr '\n' ' ')'" "$ROOT/plots/arxiv_e2e.gp"
cat "$OUT/$FIG.md"
