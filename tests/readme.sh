#!/bin/sh
# tests/readme.sh: the README's "I want to ..." rows and the CI recipe of
# docs/ci.md, run as written from the repository root (outputs under
# build/readme/ and build/ci/, both ignored; make figures and make
# reproduce rewrite results/ as they always do). Rows that need the
# Mooncake traces are skipped by name when MOONCAKE_TRACES is not set or
# names a folder without them. The rows run bin/mooncake-sim, as written;
# the argument is the binary the other CLI scripts take.
# Usage: sh tests/readme.sh bin/mooncake-sim
BIN=${1:?usage: readme.sh path/to/mooncake-sim}
NAME=readme
. "$(dirname "$0")/cli_lib.sh"
cd "$(dirname "$0")/.." || exit 1

# check a regression in CI: the sweep of docs/ci.md into build/ci, then the
# README's compare against the goldens kept in ci/golden.
expect 0 "" bin/mooncake-sim sweep ci/policies.json --out build/ci --force --quiet
expect 0 "0 points regressed" bin/mooncake-sim compare ci/golden build/ci --max-regress ttft_s.p90=5%
expect 0 "" bin/mooncake-sim compare ci/golden build/ci --quiet \
    --max-regress ttft_s.p90=5% --max-regress tbt_s.p90=5% \
    --max-regress slo.attainment=-0.01 --max-regress cache.hit_rate_tokens=-2%

# Rows that write under results/ run with their --out under build/readme/
# (a user's own results/ may hold other experiments); otherwise as written.
rm -rf build/readme
mkdir -p build/readme
# look up a config key
expect 0 "trace.path" bin/mooncake-sim run --help-config
# use it from Python (the shared library make builds, the package at the root)
if command -v python3 >/dev/null 2>&1; then
    expect 0 "'attainment'" python3 -c "import mooncake_sim; print(mooncake_sim.run('experiments/default.json')['slo'])"
else
    echo "SKIP: readme row 'use it from Python' (python3 not found)"
fi
# compare policies (results/default is what make run writes)
expect 0 "" bin/mooncake-sim run experiments/default.json --out build/readme/default --quiet
expect 0 "" bin/mooncake-sim run experiments/default.json --set scheduler.policy=cache_aware --out build/readme/ca --quiet
expect 0 "ttft_s.p90" bin/mooncake-sim compare build/readme/default build/readme/ca
# calibrate on my GPU: the fit and the run on its file (the measuring
# step needs a GPU: tests/calib_gpu.sh covers it without one)
m=$(ls calib/data/h200/*llama2-70b*.gpu.json 2>/dev/null | head -1)
if [ -n "$m" ]; then
    expect 0 "" bin/mooncake-sim calib fit "$m" -o build/readme/mine.json
    expect 0 "" bin/mooncake-sim run experiments/default.json --set hardware=h200x8 \
        --set cost.calibration=build/readme/mine.json --set trace.generator.requests=300 --out build/readme/mine --quiet
else
    bad "no H200 llama2-70b measurement file in calib/data/h200"
fi
# Rows that need the traces: make figures and make reproduce read both,
# the other rows the conversation trace.
why=$(traces_why conversation_trace.jsonl.zst synthetic_trace.jsonl.zst)
if [ -z "$why" ]; then
    # replay a trace
    expect 0 "" bin/mooncake-sim run experiments/conversation_8p8d.json --out build/readme/conv --quiet
    # reproduce the papers (rewrites results/: generated files only)
    make --no-print-directory figures >build/readme/figures.log 2>&1 &&
        make --no-print-directory reproduce >build/readme/reproduce.log 2>&1 && ok ||
        bad "make figures && make reproduce: $(tail -5 build/readme/*.log)"
    grep -q "^# " results/REPORT.md 2>/dev/null && grep -q " 0 skipped" build/readme/figures.log && ok ||
        bad "results/REPORT.md missing or a figure skipped with the traces set"
    # find a capacity
    expect 0 "capacity: trace.speed = " bin/mooncake-sim capacity experiments/conversation_8p8d.json --vary trace.speed \
        --target 'slo.effective_request_capacity>=0.9' --out build/readme/cap --quiet
else
    echo "SKIP: readme rows 'replay a trace', 'reproduce the papers', 'find a capacity' ($why)"
fi

# sweep a design space: 27 distinct points of the conversation trace.
why=$(traces_why conversation_trace.jsonl.zst)
if [ -z "$why" ]; then
    expect 0 "" bin/mooncake-sim sweep experiments/design_sweep.json -j 2 --out build/readme/sweep --quiet
    n=$(ls build/readme/sweep/*/summary.json 2>/dev/null | wc -l)
    d=$(for f in build/readme/sweep/*/requests.csv; do md5sum <"$f"; done | sort -u | wc -l)
    [ "$n" = 27 ] && [ "$d" = 27 ] && ok || bad "design sweep: $n points, $d distinct requests.csv (27 expected)"
else
    echo "SKIP: readme row 'sweep a design space' ($why)"
fi

echo "readme: $pass passed, $fail failed"
[ "$fail" = 0 ]
