#!/bin/sh
# experiments/figures.sh [--plan] SCRIPT...: the figure scripts of `make
# figures`, up to FIGURE_JOBS at once (default: the machine's cores). A
# script whose traces (its "# Traces:" header line, see needs.sh) are not
# in MOONCAKE_TRACES is skipped, by name, with the reason; the others run.
# Each script's output goes to build/figures/<n>.log and is printed, in the
# order given, once all have ended; then the skipped ones are listed. The
# exit status is 1 when any script that ran failed, else 0. The scripts
# write disjoint files, so running them together changes no result.
# --plan prints "run: SCRIPT" or "skip: SCRIPT: reason" for each and stops.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/experiments/needs.sh"
plan=0
[ "${1:-}" = --plan ] && { plan=1; shift; }
torun=""
skipped=""
for s in "$@"; do
    why=$(traces_missing "$s")
    if [ -n "$why" ]; then
        skipped="$skipped$s: $why
"
        [ "$plan" = 1 ] && echo "skip: $s: $why"
    else
        torun="$torun $s"
        [ "$plan" = 1 ] && echo "run: $s"
    fi
done
[ "$plan" = 1 ] && exit 0
LOG="$ROOT/build/figures"
rm -rf "$LOG" && mkdir -p "$LOG" || exit 2
export LOG
jobs=${FIGURE_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
start=$(date +%s)
# shellcheck disable=SC2086 # the script paths hold no spaces
set -- $torun
i=0
for s in "$@"; do
    i=$((i + 1))
    echo "$i $s"
done | xargs -r -n 2 -P "$jobs" sh -c 'sh "$2" >"$LOG/$1.log" 2>&1; echo $? >"$LOG/$1.rc"' sh
failed=""
i=0
for s in "$@"; do
    i=$((i + 1))
    echo "== $s"
    cat "$LOG/$i.log"
    [ "$(cat "$LOG/$i.rc" 2>/dev/null)" = 0 ] || failed="$failed $s"
done
nskip=$(printf '%s' "$skipped" | grep -c . || true)
echo "figures: $# scripts run, $nskip skipped, $jobs at once, $(( $(date +%s) - start )) s"
printf '%s' "$skipped" | sed 's/^/figures: skipped /'
[ -z "$failed" ] || { echo "figures: failed:$failed (logs in build/figures/)" >&2; exit 1; }
