#!/bin/sh
# fuzz/run.sh BUILD NAME...: run each harness BUILD/fuzz_NAME for FUZZ_S
# seconds (default 10), FUZZ_JOBS at a time (default one per core), on a
# fresh copy of fuzz/corpus/NAME in BUILD/corpus/NAME (the committed seeds
# are never grown in place), replaying fuzz/regress/NAME (inputs of past
# findings) first. Prints the executions of each; exits 1 when any
# harness crashed, leaked, timed out or found a broken property, keeping
# the input under BUILD/crashes/ and its log under BUILD/NAME.log.
set -u
b=$1
shift
secs=${FUZZ_S:-10}
jobs=${FUZZ_JOBS:-}
[ -n "$jobs" ] || jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
mkdir -p "$b/crashes" "$b/corpus"
# The harnesses' temporary files, memory-backed where possible; removed at
# the end even when a crash skipped a harness's own clean-up.
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
FUZZ_TMPDIR=$(mktemp -d "$shm/mooncake-fuzz-run-XXXXXX") || exit 1
export FUZZ_TMPDIR
trap 'rm -rf "$FUZZ_TMPDIR"' EXIT

run_one() {
    n=$1
    rm -rf "$b/corpus/$n"
    mkdir -p "$b/corpus/$n"
    cp fuzz/corpus/"$n"/* "$b/corpus/$n/"
    set -- "$b/corpus/$n"
    [ -d "fuzz/regress/$n" ] && set -- "$@" "fuzz/regress/$n"
    # -timeout: one input may take 30 s (slow inputs are findings too, with
    # room for a busy machine); leaks are checked (ASan's default).
    "$b/fuzz_$n" -max_total_time="$secs" -timeout=30 -print_final_stats=1 \
        -artifact_prefix="$b/crashes/$n-" "$@" >"$b/$n.log" 2>&1
    echo $? >"$b/$n.rc"
}

start=$(date +%s)
while [ $# -gt 0 ]; do
    i=0
    while [ $# -gt 0 ] && [ $i -lt "$jobs" ]; do
        run_one "$1" &
        names="${names:-} $1"
        shift
        i=$((i + 1))
    done
    wait
done

fail=0
for n in $names; do
    rc=$(cat "$b/$n.rc")
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$b/$n.log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$b/$n.log" | tail -1)
    files=$(ls "$b/corpus/$n" | wc -l)
    if [ "$rc" = 0 ]; then
        echo "fuzz: $n: ${execs:-?} executions in $secs s, $cov, corpus $files inputs: ok"
        grep -h '^fuzz: known finding' "$b/$n.log" | sort -u | sed 's/^fuzz: /  /'
    else
        fail=1
        echo "fuzz: $n: FAILED (exit $rc) after ${execs:-?} executions; log $b/$n.log"
        grep -E 'ERROR|SUMMARY|property violated|internal error|runtime error' "$b/$n.log" | head -5
        grep -o "Test unit written to [^ ]*" "$b/$n.log" | sed 's/^/  /'
    fi
done
echo "fuzz: $(($(date +%s) - start)) s in all"
exit $fail
