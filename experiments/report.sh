#!/bin/sh
# experiments/report.sh SCRIPT...: results/REPORT.md, the validation report
# over what `make figures` and `make reproduce` wrote, rebuilt whole on
# every run. First the verdicts against the papers' published values
# (experiments/validation.sh compare: results/validation.csv) and every
# difference; then one section per figure script given, in a fixed order
# (FAST'25 in figure order, then arXiv, then the experiments without a
# published counterpart): the paper's claim, the published values beside
# the simulator's with a verdict and the documented reason of each
# difference, the simulator's table (or the head of its CSV), its figure,
# when its files were written and the configs it ran. A script whose
# traces are missing (needs.sh) is marked skipped with the reason and shows
# no table, whatever an earlier run left under results/. Written to a
# temporary file and renamed, so an interrupted report leaves the earlier
# one.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/experiments/needs.sh"
RES="$ROOT/results"
mkdir -p "$RES"
TMP="$RES/.REPORT.md.tmp.$$"
trap 'rm -f "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# about SCRIPT: "title|the paper's claim|outputs under results/|configs
# under experiments/" (the claims as the papers state them; FAST'25 and
# arXiv 2407.00079; a dash where the paper publishes no counterpart)
about() {
    case "$1" in
    */fig15_pd_ratio.sh) echo "FAST'25 Fig. 15: P/D ratio|16 nodes from 5P+11D to 11P+5D, synthetic trace, TTFT <= 10 s and TBT <= 0.1 s: effective share, average TTFT and average TBT per split; about 1:1 is Mooncake's best split.|fast25/fig15_pd_ratio.md fast25/fig15_pd_ratio.png|fast25/fig15_*.json" ;;
    */fig11_datasets.sh) echo "arXiv Fig. 11: ArXiv Summarization and L-Eval|Mooncake-[3P+1D] sustains about 20% more than vLLM-[4M] on ArXiv Summarization (3.0 against 2.5 req/s; Mooncake-[2P+2D] 1.5) within P90 TTFT <= 10x and P90 TBT <= 5x vLLM's values at the lowest rate.|arxiv/fig11.md arxiv/fig11.png|arxiv/fig11_*.json" ;;
    */fig12_longctx.sh) echo "arXiv Fig. 12: simulated long contexts|16k to 128k prompts with 512-token outputs and 50% prefix reuse; vLLM processes these requests one at a time; Mooncake sustains higher rates.|arxiv/fig12.md arxiv/fig12.png|arxiv/fig12_*.json" ;;
    */capacity.sh) echo "FAST'25 Figs. 1/6/7 and 8: effective request capacity|16 nodes per system, TTFT <= 30 s; synthetic trace at TBT 0.1/0.2/0.3 s: Mooncake 0.996/1.0/1.0, vLLM 0.613/0.71/0.781, with prefix caching 0.61/0.708/0.772, with chunked prefill 0.466/0.573/0.695; prefill GPU time per request (per node) on conversation 1.06/1.66/1.52/2.02 s and on synthetic 0.73/2.02/1.90/2.44 s (Mooncake, vLLM, prefix caching, chunked prefill).|fast25/capacity.md fast25/capacity.png|fast25/capacity_*.json" ;;
    */capacity_speed.sh) echo "Sustained capacity on the conversation trace|-: the paper reports capacity at the recorded rate only.|fast25/capacity_speed.md|fast25/capacity_conversation_*.json" ;;
    */baseline_sensitivity.sh) echo "The vLLM-like baselines' prefill stalls and their sensitivity|-: what moves the baselines' capacity at TBT 0.1 s (engine CPU time, prefill budget); vLLM's v0.6.0 performance update quantifies v0.5's CPU time per step.|fast25/baseline_stalls.md fast25/baseline_sensitivity.md|fast25/baseline_*.json" ;;
    */table3_overload.sh) echo "arXiv Table 3: overload|the 8P+8D cluster on its real trace replayed at 2x; rejected requests, most to fewest: baseline, early rejection, prediction-based early rejection.|arxiv/table3_overload.md arxiv/table3_overload.png|arxiv/table3_*.json" ;;
    */fig13_real.sh) echo "arXiv Fig. 13: real workload|Mooncake-[10P+10D] against vLLM-[20M], TTFT <= 30 s and TBT <= 0.1 s: Mooncake serves 75% more requests within the SLOs on the paper's trace.|arxiv/fig13_real.md arxiv/fig13_real.png|arxiv/fig13_*.json" ;;
    */fig9_fluctuation.sh) echo "arXiv Fig. 9: load fluctuation|20 machines, loads sampled every 15 s: under early rejection the prefill and decode loads swing in anti-phase; prediction-based early rejection damps the swing.|arxiv/fig9_fluctuation.md arxiv/fig9_fluctuation.png|arxiv/fig9_*.json" ;;
    */fig13_bandwidth.sh) echo "FAST'25 Fig. 13: bandwidth|above 100 Gbps average TTFT stays under 2 s; below 100 Gbps TTFT rises sharply as congestion pulls the real transfer time away from the theoretical one; at 24 Gbps reusing the cache is slower than recomputing (paper: 5.1 s against 2.62 s).|fast25/fig13_bandwidth.md fast25/fig13_bandwidth.png|fast25/fig13_*.json" ;;
    */fig5_scheduling.sh) echo "FAST'25 Fig. 5: prefill scheduling|average TTFT, lowest first: global cache-aware (Algorithm 1), local cache-aware, load balancing, random.|fast25/fig5_scheduling.md fast25/fig5_scheduling.png|fast25/fig5_*.json" ;;
    */threshold_sweep.sh) echo "kvcache_balancing_threshold|-: the paper gives no value; TTFT against the threshold over RDMA and TCP.|fast25/threshold_sweep.md fast25/threshold_sweep.png|fast25/threshold_sweep_*.json" ;;
    */fig10_local_global.sh) echo "FAST'25 Fig. 10: local against global cache|10 prefill nodes, 3M tokens of cache each, outputs cut to 1 token: the global pool gives a higher hit rate and less prefill time per request than local caches.|fast25/fig10_local_global.md fast25/fig10_local_global.png|fast25/fig10_*.json" ;;
    */cpp_long_prompts.sh) echo "Chunked pipeline prefill (arXiv)|CPP cuts the TTFT of long prompts by spreading one prompt over several prefill nodes; the paper publishes no chunk or group size.|fast25/cpp_long_prompts.md fast25/cpp_long_prompts.png|fast25/cpp_long_prompts*.json" ;;
    */fig14_breakdown.sh) echo "FAST'25 Fig. 14: one request's latency breakdown|one 8x A800 node, 8k-128k prompts, 0% and 95% cached: the paper's prefill, transfer, load and decode times are in the table's paper columns.|fast25/fig14_breakdown.md fast25/fig14_breakdown.png|fast25/fig14_*.json" ;;
    */pool_ttft.sh) echo "The KVCache pool's effect on TTFT|-: the conversation trace on 8P+8D with and without reuse.|fast25/pool_ttft.md fast25/pool_ttft.png|fast25/pool_ttft*.json" ;;
    */fig9_hit_vs_capacity.sh) echo "FAST'25 Fig. 9: hit rate against cache capacity|one LRU cache, requests in order: the hit rate saturates at 0.401 (conversation) and 0.658 (synthetic).|fast25/fig9_hit_vs_capacity.png fast25/fig9_hit_vs_capacity.csv|-" ;;
    */table1_eviction.sh) echo "arXiv Table 1: eviction policies|-: the paper's table is on its own trace, which is not public; here the conversation trace.|arxiv/table1_eviction.md|-" ;;
    *) echo "$1|-|-|-" ;;
    esac
}

# the sections' order: FAST'25 in figure order, arXiv in figure order, then
# the experiments with no published counterpart
ORDER="fast25/fig5_scheduling.sh fast25/capacity.sh fast25/fig9_hit_vs_capacity.sh
fast25/fig10_local_global.sh fast25/fig13_bandwidth.sh fast25/fig14_breakdown.sh fast25/fig15_pd_ratio.sh
arxiv/table1_eviction.sh arxiv/fig9_fluctuation.sh arxiv/fig11_datasets.sh arxiv/fig12_longctx.sh
arxiv/fig13_real.sh arxiv/table3_overload.sh fast25/cpp_long_prompts.sh
fast25/capacity_speed.sh fast25/baseline_sensitivity.sh fast25/threshold_sweep.sh fast25/pool_ttft.sh"
# ordered SCRIPT...: the scripts given, in ORDER (any other at the end)
ordered() {
    for o in $ORDER; do
        for s in "$@"; do case "$s" in *"/$o") echo "$s" ;; esac; done
    done
    for s in "$@"; do
        known=0
        for o in $ORDER; do case "$s" in *"/$o") known=1 ;; esac; done
        [ "$known" = 1 ] || echo "$s"
    done
}

# section SCRIPT: its part of the report
section() {
    info=$(about "$1")
    title=${info%%|*}; rest=${info#*|}
    claim=${rest%%|*}; rest=${rest#*|}
    outs=${rest%%|*}; cfgs=${rest#*|}
    printf '### %s\n\nScript: `%s`.\n\n' "$title" "$1"
    case "$claim" in
    -:*) printf '**Paper:** no published counterpart;%s\n\n' "${claim#-:}" ;;
    *) printf '**Paper:** %s\n\n' "$claim" ;;
    esac
    why=$(traces_missing "$ROOT/$1")
    if [ -n "$why" ]; then
        printf '**Simulator:** skipped (%s); no result is shown.\n\n' "$why"
        return 0
    fi
    cmp=$(sh "$ROOT/experiments/validation.sh" table "$1")
    if [ -n "$cmp" ]; then
        printf '**Published values against the simulator** (verdicts: [docs/experiments.md](../docs/experiments.md#validation-against-the-papers)):\n\n%s\n\n' "$cmp"
    fi
    first=""
    for o in $outs; do [ -z "$first" ] && [ -f "$RES/$o" ] && first="$RES/$o"; done
    if [ -n "$first" ]; then
        printf '**Simulator** (files written %s):\n\n' "$(date -u -r "$first" '+%Y-%m-%d %H:%M UTC')"
    else
        printf '**Simulator:**\n\n'
    fi
    for o in $outs; do
        f="$RES/$o"
        if [ ! -f "$f" ]; then printf 'Not yet written: `results/%s`.\n\n' "$o"; continue; fi
        case "$o" in
        *.md) cat "$f"; echo ;;
        *.csv) printf 'Head of `results/%s`:\n\n```\n' "$o"; head -n 8 "$f"; printf '```\n\n' ;;
        *.png) printf '![%s](%s)\n\n' "$title" "$o" ;;
        esac
    done
    [ "$cfgs" = - ] && return 0
    printf 'Configs: '
    sep=""
    for c in "$ROOT"/experiments/$cfgs; do
        [ -f "$c" ] || continue
        printf '%s`%s`' "$sep" "${c#"$ROOT"/}"; sep=", "
    done
    printf '.\n\n'
}

sh "$ROOT/experiments/validation.sh" compare
{
    echo "# mooncake-sim: validation report"
    echo
    echo "Written by \`make figures\` and \`make reproduce\` (\`experiments/report.sh\`)"
    echo "from the files under \`results/\`, rebuilt whole on every run; each section names"
    echo "the script that wrote them. What each experiment does and how to read it:"
    echo "[docs/experiments.md](../docs/experiments.md)."
    echo
    echo "## Against the papers' published values"
    echo
    echo "Every value the project carries from the papers (\`experiments/published.json\`,"
    echo "each cited from its figure) beside the simulator's, in the same unit"
    echo "(\`results/validation.csv\`). Verdicts: within 15% of the published value;"
    echo "same ordering (further off, but on the same side of every other value of its"
    echo "figure as in the paper); differs. The definitions:"
    echo "[docs/experiments.md](../docs/experiments.md#validation-against-the-papers)."
    echo
    sh "$ROOT/experiments/validation.sh" summary
    echo
    echo "## Figures and tables"
    echo
    # shellcheck disable=SC2046 # the script paths hold no spaces
    for s in $(ordered "$@"); do section "$s"; done
    echo "## End-to-end comparisons (make reproduce)"
    echo
    echo "\`make reproduce\` runs \`experiments/fast25/capacity.sh\`, \`fast25/fig15_pd_ratio.sh\`,"
    echo "\`arxiv/fig11_datasets.sh\`, \`arxiv/fig12_longctx.sh\` and \`arxiv/fig13_real.sh\`; their"
    echo "tables are in their sections above, and together in"
    if [ -f "$RES/reproduce/summary.md" ]; then
        echo "\`results/reproduce/summary.md\` (written $(date -u -r "$RES/reproduce/summary.md" '+%Y-%m-%d %H:%M UTC'))."
    else
        echo "\`results/reproduce/summary.md\` (not yet written)."
    fi
} >"$TMP"
mv "$TMP" "$RES/REPORT.md"
echo "report: results/REPORT.md"
