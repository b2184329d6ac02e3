#!/bin/sh
# experiments/figures.sh SCRIPT...: the figure scripts of `make figures`,
# up to FIGURE_JOBS at once (default: the machine's cores). Each script's
# output goes to build/figures/<n>.log and is printed, in the order given,
# once all have ended; the exit status is 1 when any of them failed. The
# scripts write disjoint files, so running them together changes no result.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOG="$ROOT/build/figures"
rm -rf "$LOG" && mkdir -p "$LOG" || exit 2
export LOG
jobs=${FIGURE_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
start=$(date +%s)
i=0
for s in "$@"; do
    i=$((i + 1))
    echo "$i $s"
done | xargs -n 2 -P "$jobs" sh -c 'sh "$2" >"$LOG/$1.log" 2>&1; echo $? >"$LOG/$1.rc"' sh
failed=""
i=0
for s in "$@"; do
    i=$((i + 1))
    echo "== $s"
    cat "$LOG/$i.log"
    [ "$(cat "$LOG/$i.rc" 2>/dev/null)" = 0 ] || failed="$failed $s"
done
echo "figures: $# scripts, $jobs at once, $(( $(date +%s) - start )) s"
[ -z "$failed" ] || { echo "figures: failed:$failed (logs in build/figures/)" >&2; exit 1; }
