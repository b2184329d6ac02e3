#!/bin/sh
# tests/readme.sh: the README's "I want to ..." rows and the CI recipe of
# docs/ci.md, run as written from the repository root (outputs under
# build/readme/ and build/ci/, both ignored). Rows that need the Mooncake
# traces are skipped by name without MOONCAKE_TRACES.
# Usage: sh tests/readme.sh bin/mooncake-sim
BIN=${1:?usage: readme.sh path/to/mooncake-sim}
NAME=readme
. "$(dirname "$0")/cli_lib.sh"
cd "$(dirname "$0")/.." || exit 1

# check a regression in CI: the sweep of docs/ci.md into build/ci, then the
# README's compare against the goldens kept in ci/golden.
expect 0 "" "$BIN" sweep ci/policies.json --out build/ci --force --quiet
expect 0 "0 points regressed" bin/mooncake-sim compare ci/golden build/ci --max-regress ttft_s.p90=5%
expect 0 "" bin/mooncake-sim compare ci/golden build/ci --quiet \
    --max-regress ttft_s.p90=5% --max-regress tbt_s.p90=5% \
    --max-regress slo.attainment=-0.01 --max-regress cache.hit_rate_tokens=-2%

# sweep a design space: 27 distinct points of the conversation trace.
if [ -n "${MOONCAKE_TRACES:-}" ]; then
    rm -rf build/readme
    expect 0 "" bin/mooncake-sim sweep experiments/design_sweep.json -j 2 --out build/readme/sweep --quiet
    n=$(ls build/readme/sweep/*/summary.json 2>/dev/null | wc -l)
    d=$(for f in build/readme/sweep/*/requests.csv; do md5sum <"$f"; done | sort -u | wc -l)
    [ "$n" = 27 ] && [ "$d" = 27 ] && ok || bad "design sweep: $n points, $d distinct requests.csv (27 expected)"
else
    echo "SKIP: readme row 'sweep a design space' (MOONCAKE_TRACES not set)"
fi

echo "readme: $pass passed, $fail failed"
[ "$fail" = 0 ]
