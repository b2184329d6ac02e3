#!/bin/sh
# The papers' end-to-end comparisons in one go: (a) effective request
# capacity, (b) the P/D ratio sweep, (c) the arXiv runs on datasets and
# long contexts, (d) the arXiv real-workload run; one summary table in
# results/reproduce/summary.md (each script also writes its own CSV, table
# and figure). (a), (b) and (d) need traces in MOONCAKE_TRACES; without
# them they are skipped, by name, with the reason (in the summary and on
# stdout), and the rest runs. The summary is written to a temporary file
# and renamed once every part has ended: a failure leaves the earlier one.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/experiments/needs.sh"
OUT="$ROOT/results/reproduce"
mkdir -p "$OUT"
TMP="$OUT/.summary.md.tmp.$$"
SKIPS="$OUT/.skipped.tmp.$$"
trap 'rm -f "$TMP" "$SKIPS"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
: >"$SKIPS"
start=$(date +%s)
# part SCRIPT: run experiments/SCRIPT into the summary, or say why not
part() {
    why=$(traces_missing "$ROOT/experiments/$1")
    if [ -n "$why" ]; then
        echo "Skipped: \`experiments/$1\` $why."
        echo "experiments/$1: $why" >>"$SKIPS"
        return 0
    fi
    sh "$ROOT/experiments/$1" || {
        echo "reproduce: experiments/$1 failed; results/reproduce/summary.md left as it was" >&2
        exit 1
    }
}
{
    echo "# mooncake-sim: end-to-end comparisons"
    echo
    echo "## (a) Effective request capacity, 16 nodes (TTFT <= 30 s)"
    echo
    part fast25/capacity.sh
    echo
    echo "## (b) P/D ratio, synthetic trace (TTFT <= 10 s, TBT <= 0.1 s)"
    echo
    part fast25/fig15_pd_ratio.sh
    echo
    echo "## (c) arXiv end-to-end: sustained capacity within 10x TTFT and 5x TBT of vLLM-[4M] at the lowest rate"
    echo
    part arxiv/fig11_datasets.sh
    echo
    part arxiv/fig12_longctx.sh
    echo
    echo "## (d) arXiv real workload: conversation trace, Mooncake-[10P+10D] vs vLLM-[20M]"
    echo
    part arxiv/fig13_real.sh
} >"$TMP"
mv "$TMP" "$OUT/summary.md"
echo "reproduce: results/reproduce/summary.md ($(( $(date +%s) - start )) s)"
sed 's/^/reproduce: skipped /' "$SKIPS"
