#!/bin/sh
# The papers' end-to-end comparisons in one go: (a) effective request
# capacity, (b) the P/D ratio sweep, (c) the arXiv runs on datasets and
# long contexts, (d) the arXiv real-workload run; one summary table in
# results/reproduce/summary.md (each script also writes its own CSV, table
# and figure). Needs MOONCAKE_TRACES for (a), (b) and (d).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/results/reproduce"
mkdir -p "$OUT"
start=$(date +%s)
{
    echo "# mooncake-sim: end-to-end comparisons"
    echo
    echo "## (a) Effective request capacity, 16 nodes (TTFT <= 30 s)"
    echo
    sh "$ROOT/experiments/fast25/capacity.sh"
    echo
    echo "## (b) P/D ratio, synthetic trace (TTFT <= 10 s, TBT <= 0.1 s)"
    echo
    sh "$ROOT/experiments/fast25/fig15_pd_ratio.sh"
    echo
    echo "## (c) arXiv end-to-end: sustained capacity within 10x TTFT and 5x TBT of vLLM-[4M] at the lowest rate"
    echo
    sh "$ROOT/experiments/arxiv/fig11_datasets.sh"
    echo
    sh "$ROOT/experiments/arxiv/fig12_longctx.sh"
    echo
    echo "## (d) arXiv real workload: conversation trace, Mooncake-[10P+10D] vs vLLM-[20M]"
    echo
    sh "$ROOT/experiments/arxiv/fig13_real.sh"
} >"$OUT/summary.md.tmp"
mv "$OUT/summary.md.tmp" "$OUT/summary.md"
echo "reproduce: results/reproduce/summary.md ($(( $(date +%s) - start )) s)"
