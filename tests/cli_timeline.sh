#!/bin/sh
# tests/cli_timeline.sh: `run --timeline` (docs/timeline.md). The file is
# JSON in the documented schema, and every request's phases tile its TTFT
# and end-to-end latency as requests.csv reports them
# (tests/timeline_check.py), on the first 300 requests of every shipped
# experiment (sweep specs and published.json aside; those that read a
# trace from MOONCAKE_TRACES are skipped without it, those whose script
# writes their trace get a small one here); the other outputs are
# byte-identical with and without the flag; a .zst name gives the same
# JSON compressed; bad windows and unwritable files are located errors
# that publish nothing.
# Usage: sh tests/cli_timeline.sh bin/mooncake-sim
BIN=${1:?usage: cli_timeline.sh path/to/mooncake-sim}
NAME=timeline
. "$(dirname "$0")/cli_lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
E=$ROOT/experiments
CHECK="python3 $ROOT/tests/timeline_check.py"
OUTS="requests.csv summary.json timeseries.csv config.json"

# same DIR1 DIR2 WHAT: the default outputs of two runs are byte-identical.
same() {
    for f in $OUTS; do
        cmp -s "$1/$f" "$2/$f" || { bad "$3: $f differs with --timeline"; return; }
    done
    ok
}

# tiles TIMELINE DIR [ARGS]: the checker passes.
tiles() {
    if $CHECK "$@" >"$T/chk" 2>&1; then ok; else bad "$(head -c 600 "$T/chk")"; fi
}

# Errors: a bad window, an unwritable timeline; nothing published.
expect 2 "--timeline-window: 'requests:5-2': expected requests:A-B" \
    "$BIN" run "$E/default.json" --quiet --out "$T/w" --timeline "$T/w.json" --timeline-window requests:5-2
expect 2 "--timeline-window: 'time:1-xs'" \
    "$BIN" run "$E/default.json" --quiet --out "$T/w" --timeline "$T/w.json" --timeline-window time:1-xs
expect 2 "--timeline-window: 'frames:0-9'" \
    "$BIN" run "$E/default.json" --quiet --out "$T/w" --timeline "$T/w.json" --timeline-window frames:0-9
[ ! -e "$T/w" ] && [ ! -e "$T/w.json" ] && ok || bad "a bad window left files behind"
expect 1 "$T/nodir/t.json" "$BIN" run "$E/default.json" --quiet --out "$T/w" --timeline "$T/nodir/t.json"
[ ! -e "$T/w" ] && ok || bad "an unwritable timeline published the run directory"
expect 0 "--timeline-window W" "$BIN" run --help

# The default experiment at the default window (the first 1,000 requests):
# the same outputs, the schema and the tiling; .zst holds the same JSON.
expect 0 "" "$BIN" run "$E/default.json" --quiet --out "$T/d0"
expect 0 "" "$BIN" run "$E/default.json" --quiet --out "$T/d1" --timeline "$T/d.json"
same "$T/d0" "$T/d1" default
tiles "$T/d.json" "$T/d1"
expect 0 "" "$BIN" run "$E/default.json" --quiet --out "$T/d2" --timeline "$T/d.json.zst"
zstd -qdc "$T/d.json.zst" | cmp -s - "$T/d.json" && ok || bad "d.json.zst is not d.json compressed"
tiles "$T/d.json.zst" "$T/d2"
for w in '"name":"prefill"' '"name":"span"' '"name":"pd"' '"ph":"C"' '"name":"admit"' '"name":"decode slot wait"'; do
    grep -qF "$w" "$T/d.json" && ok || bad "d.json has no $w event"
done
# A time window, and the checker itself: a phase moved by 1 us fails it.
expect 0 "" "$BIN" run "$E/default.json" --quiet --out "$T/d3" --timeline "$T/t.json" --timeline-window time:10-20s
tiles "$T/t.json" "$T/d3" --window time:10-20s
python3 -c '
import re, sys
done = 0
for line in sys.stdin:
    m = re.search(r"\"pid\":5,.*\"name\":\"prefill\",\"ts\":([0-9.]+)", line)
    if m and not done:
        line = line.replace(m.group(1), "%.3f" % (float(m.group(1)) + 0.001), 1)
        done = 1
    sys.stdout.write(line)' <"$T/d.json" >"$T/bad.json"
cmp -s "$T/d.json" "$T/bad.json" && bad "bad.json: no phase moved"
if $CHECK "$T/bad.json" "$T/d1" >/dev/null 2>&1; then bad "the checker passed a timeline with a moved phase"; else ok; fi

# The traces the fast25 scripts write: one long prompt, then a second
# sharing most of its prefix.
awk 'BEGIN { printf "{\"timestamp\": 0, \"input_length\": 32768, \"output_length\": 8, \"hash_ids\": [";
             for (i = 0; i < 64; i++) printf "%s%d", i ? ", " : "", i; print "]}";
             printf "{\"timestamp\": 60000, \"input_length\": 32768, \"output_length\": 8, \"hash_ids\": [";
             for (i = 0; i < 64; i++) printf "%s%d", i ? ", " : "", i < 60 ? i : 100 + i; print "]}" }' >"$T/script.jsonl"

# Every shipped experiment's first 300 requests.
n_exp=0 n_skip=0
for exp in "$E"/*.json "$E"/*/*.json; do
    case $exp in */published.json) continue ;; esac
    grep -q '"axes"' "$exp" && continue # a sweep spec
    name=$(echo "${exp#"$E"/}" | tr / _)
    set --
    grep -q 'set-by-script' "$exp" && set -- --set "trace.path=$T/script.jsonl"
    why=$(exp_traces_why "$exp")
    if [ -n "$why" ]; then
        n_skip=$((n_skip + 1))
        continue
    fi
    n_exp=$((n_exp + 1))
    if ! "$BIN" run "$exp" --quiet --set trace.limit=300 "$@" --out "$T/x/$name/a" 2>"$T/err" ||
        ! "$BIN" run "$exp" --quiet --set trace.limit=300 "$@" --out "$T/x/$name/b" \
            --timeline "$T/x/$name.json" --timeline-window requests:0-300 2>"$T/err"; then
        bad "$name did not run: $(head -c 300 "$T/err")"
        continue
    fi
    same "$T/x/$name/a" "$T/x/$name/b" "$name"
    tiles "$T/x/$name.json" "$T/x/$name/b" --window requests:0-300
    rm -rf "$T/x/$name" "$T/x/$name.json"
done
[ "$n_exp" -ge 10 ] && ok || bad "only $n_exp experiments ran"
[ "$n_skip" = 0 ] || echo "cli_timeline: $n_skip experiments skipped (their traces are not in MOONCAKE_TRACES)"

echo "cli_timeline: $pass passed, $fail failed"
[ "$fail" = 0 ]
