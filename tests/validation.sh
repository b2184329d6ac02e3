#!/bin/sh
# tests/validation.sh: the README's validation table is what
# experiments/validation.sh writes from experiments/published.json and
# docs/validation.csv (the committed record of a traced run), and
# docs/validation.csv holds exactly the published values. Needs no traces.
NAME=validation
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/tests/cli_lib.sh"
V="$ROOT/experiments/validation.sh"

expect 0 "" sh "$V" check

# a README whose table was edited by hand fails the check
sed 's/| all within 15% |/| within 15% |/' "$ROOT/README.md" >"$T/README.md"
cmp -s "$ROOT/README.md" "$T/README.md" && bad "the tampering sed changed nothing"
expect 1 "the validation table is not what" sh "$V" check "$T/README.md"

# the block carries both papers' values and a verdict per row
sh "$V" readme >"$T/block"
grep -q "^| FAST'25 Fig. 8, prefill time per request on one 8-GPU node" "$T/block" && ok || bad "no Fig. 8 row"
grep -q "^| arXiv Fig. 11, ArXiv Summarization" "$T/block" && ok || bad "no arXiv Fig. 11 row"
awk -F'|' '/^\| [^-r]/ && $5 !~ /within 15%|same ordering|differs/ { print; n++ } END { exit n > 0 }' "$T/block" &&
    ok || bad "a README row without a verdict"

# verdicts from a made-up results CSV: a value 10% off is within 15%, one
# 20% off in the paper's order is "same ordering", a swap differs
mkdir -p "$T/r/arxiv"
printf 'workload,system,max_rate_rps\narxiv,mooncake_3p1d,3.3\narxiv,mooncake_2p2d,1.2\narxiv,vllm_4m,2.0\n' \
    >"$T/r/arxiv/fig11_best.csv"
expect 0 "" env RESULTS="$T/r" sh "$V" compare
grep -q '^arxiv_fig11,mooncake_3p1d,,3,3.3,1.100,within 15%$' "$T/r/validation.csv" && ok || bad "10% off is not within 15%"
grep -q '^arxiv_fig11,vllm_4m,,2.5,2,0.800,same ordering$' "$T/r/validation.csv" && ok || bad "20% off in order is not same ordering"
printf 'workload,system,max_rate_rps\narxiv,mooncake_3p1d,3.0\narxiv,mooncake_2p2d,2.0\narxiv,vllm_4m,1.8\n' \
    >"$T/r/arxiv/fig11_best.csv"
expect 0 "" env RESULTS="$T/r" sh "$V" compare
grep -q '^arxiv_fig11,mooncake_2p2d,,1.5,2,1.333,differs$' "$T/r/validation.csv" && ok || bad "a swapped order does not differ"
grep -q '^fast25_fig7,vllm,0.1,0.613,,,not run$' "$T/r/validation.csv" && ok || bad "a missing CSV is not 'not run'"
# a CSV without the column published.json names is bad input
printf 'workload,system\narxiv,vllm_4m\n' >"$T/r/arxiv/fig11_best.csv"
expect 2 "has no column max_rate_rps" env RESULTS="$T/r" sh "$V" compare

echo "validation: $pass passed, $fail failed"
[ "$fail" = 0 ]
