#!/bin/sh
# tests/cli_out.sh: output directories as hostile users meet them. One
# writer at a time: a second run or sweep into a --out being written is
# refused (exit 1, naming the directory). A sweep's directory holds exactly
# its spec's points: --force with another spec and a point that fails on
# rerun leave no stale point directory; a run's directory is no sweep's.
# A --out that is a symbolic link publishes into its target and stays a
# link. Leftovers of a dead writer are reclaimed, a live one's kept.
# SIGTERM of a sweep on 100 workers leaves no private directory. A mount
# point is refused as a run's --out before any simulation.
# Usage: sh tests/cli_out.sh bin/mooncake-sim
BIN=${1:?usage: cli_out.sh path/to/mooncake-sim}
NAME=out
. "$(dirname "$0")/cli_lib.sh"

# exp FILE REQUESTS: a small generated experiment.
exp() {
    printf '{"name": "o", "cluster": {"prefill": 2, "decode": 2},\n "trace": {"generator": {"kind": "kimi", "requests": %d}}}\n' "$2" >"$1"
}
exp "$T/small.json" 40
exp "$T/slow.json" 300000 # about a second or two
# wait_for GLOB: until a file matching GLOB exists (at most 20 s); 0 when
# one does.
wait_for() {
    i=0
    while [ $i -lt 200 ]; do
        for f in $1; do [ -e "$f" ] && return 0; done
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
# hidden DIR: DIR's private temporaries and aside copies (.NAME.tmp-*,
# .NAME.old-*), one a line.
hidden() { ls -A "$1" | grep -E '^\..*\.(tmp|old)-' ; }

# -- one writer at a time --
"$BIN" run "$T/slow.json" --quiet --out "$T/busy" 2>"$T/bg.err" &
bg=$!
wait_for "$T/.busy.tmp-*" || bad "the background run never started writing"
expect 1 "$T/busy: another mooncake-sim (pid $bg) is writing it" "$BIN" run "$T/small.json" --quiet --out "$T/busy"
printf '{"base": "small.json", "axes": {"seed": [1, 2]}}\n' >"$T/two.json"
expect 1 "$T/busy: another mooncake-sim (pid $bg) is writing it" "$BIN" sweep "$T/two.json" --quiet --out "$T/busy"
wait $bg && ok || bad "the first run failed: $(cat "$T/bg.err")"
[ -f "$T/busy/summary.json" ] && ok || bad "the first run published nothing"
[ -z "$(hidden "$T")" ] && [ ! -e "$T/.busy.lock" ] && ok || bad "leftovers beside busy: $(ls -A "$T")"

printf '{"base": "slow.json", "axes": {"seed": [1, 2]}}\n' >"$T/slow2.json"
"$BIN" sweep "$T/slow2.json" -j 1 --quiet --out "$T/sw" 2>"$T/bg.err" &
bg=$!
wait_for "$T/sw/.000_seed=1.tmp-*" || bad "the background sweep never started writing"
expect 1 "$T/sw: another mooncake-sim (pid $bg) is writing it" "$BIN" sweep "$T/two.json" --quiet --out "$T/sw" --force
expect 1 "$T/sw: another mooncake-sim (pid $bg) is writing it" "$BIN" run "$T/small.json" --quiet --out "$T/sw"
wait $bg && ok || bad "the first sweep failed: $(cat "$T/bg.err")"
[ "$(ls "$T/sw" | tr '\n' ' ')" = "000_seed=1 001_seed=2 spec.json sweep.csv " ] && ok ||
    bad "the sweep's directory mixes sweeps: $(ls "$T/sw")"
grep -q slow.json "$T/sw/spec.json" && ok || bad "spec.json is not the first sweep's"

# -- a sweep's directory holds exactly its spec's points --
printf '{"base": "small.json", "axes": {"network.nic_gbps": [25, 100, 400]}}\n' >"$T/nic.json"
expect 0 "" "$BIN" sweep "$T/two.json" --quiet --out "$T/sf"
expect 0 "" "$BIN" sweep "$T/nic.json" --quiet --out "$T/sf" --force
[ "$(ls "$T/sf" | tr '\n' ' ')" = "000_nic_gbps=25 001_nic_gbps=100 002_nic_gbps=400 spec.json sweep.csv " ] &&
    ok || bad "--force with another spec kept the old points: $(ls "$T/sf")"

"$BIN" trace gen "$T/small.json" -o "$T/a.jsonl" 2>"$T/err" && cp "$T/a.jsonl" "$T/b.jsonl" ||
    bad "trace gen: $(cat "$T/err")"
printf '{"name": "f", "cluster": {"prefill": 2, "decode": 2}}\n' >"$T/file.json"
printf '{"base": "file.json", "axes": {"trace.path": ["%s", "%s"]}}\n' \
    "$T/a.jsonl" "$T/b.jsonl" >"$T/paths.json"
expect 0 "" "$BIN" sweep "$T/paths.json" --quiet --out "$T/fp"
n=$(ls "$T/fp" | grep -c '^00[01]_')
[ "$n" = 2 ] && ok || bad "the trace sweep wrote $n point directories"
echo 'not json' >"$T/b.jsonl"
expect 1 "point 001_" "$BIN" sweep "$T/paths.json" --out "$T/fp"
[ "$(ls "$T/fp" | grep -c '^001_')" = 0 ] && ok || bad "a point that failed on rerun kept its directory"
[ "$(ls "$T/fp" | grep -c '^000_')" = 1 ] && ok || bad "the point that ran lost its directory"

expect 0 "" "$BIN" run "$T/small.json" --quiet --out "$T/arun"
expect 2 "$T/arun: holds a run's output" "$BIN" sweep "$T/two.json" --quiet --out "$T/arun"
expect 2 "$T/arun: holds a run's output" "$BIN" sweep "$T/two.json" --quiet --out "$T/arun" --force
[ "$(ls "$T/arun" | tr '\n' ' ')" = "config.json requests.csv summary.json timeseries.csv timing.json " ] &&
    ok || bad "a refused sweep changed the run: $(ls "$T/arun")"
mkdir "$T/foreign" && : >"$T/foreign/notes.md"
expect 2 "$T/foreign: holds 'notes.md', which is not a sweep's output" "$BIN" sweep "$T/two.json" --quiet --out "$T/foreign"

# -- a --out that is a symbolic link publishes into its target --
mkdir "$T/ln"
expect 0 "" "$BIN" run "$T/small.json" --quiet --out "$T/ln/real"
ln -s real "$T/ln/link"
cp "$T/ln/real/timing.json" "$T/timing.before"
expect 0 "" "$BIN" run "$T/small.json" --quiet --out "$T/ln/link"
[ -L "$T/ln/link" ] && ok || bad "the link is no longer a link"
[ -f "$T/ln/real/summary.json" ] && [ -f "$T/ln/link/summary.json" ] && ok || bad "the target lost its run"
[ "$(ls -A "$T/ln" | tr '\n' ' ')" = "link real " ] && ok || bad "leftovers beside the link: $(ls -A "$T/ln")"
ln -s absent "$T/ln/dangling"
expect 0 "" "$BIN" run "$T/small.json" --quiet --out "$T/ln/dangling/"
[ -L "$T/ln/dangling" ] && [ -f "$T/ln/absent/summary.json" ] && ok || bad "a link to a new directory"
expect 0 "" "$BIN" sweep "$T/two.json" --quiet --out "$T/ln/sl" && ln -s sl "$T/ln/slink"
expect 0 "" "$BIN" sweep "$T/nic.json" --quiet --out "$T/ln/slink" --force
[ -L "$T/ln/slink" ] && [ "$(ls "$T/ln/sl" | grep -c _nic_gbps=)" = 3 ] && ok || bad "a sweep through a link"

# -- leftovers of a dead writer are reclaimed, a live writer's kept --
dead=$(sh -c 'echo $$')
mkdir -p "$T/st/.r.tmp-$dead-0" "$T/st/.r.old-$dead-3" "$T/st/.r.tmp-$$-0" "$T/st/.q.tmp-$dead-0"
: >"$T/st/.r.tmp-$dead-0/requests.csv"
: >"$T/st/.r.old-$dead-3/summary.json"
expect 0 "" "$BIN" run "$T/small.json" --quiet --out "$T/st/r"
[ "$(ls -A "$T/st" | tr '\n' ' ')" = ".q.tmp-$dead-0 .r.tmp-$$-0 r " ] && ok ||
    bad "leftovers of a dead writer: $(ls -A "$T/st")"

# -- SIGTERM of a sweep on 100 workers removes every private directory --
# (sent once more than 64 points are being written, or as soon as the sweep
# started where this machine never gets there; test_out covers the table)
printf '{"base": "mid.json", "axes": {"seed": [%s]}}\n' "$(seq -s, 1 100)" >"$T/many.json"
exp "$T/mid.json" 6000
"$BIN" sweep "$T/many.json" -j 100 --quiet --out "$T/many" 2>"$T/bg.err" &
bg=$!
i=0 n=0
while [ $i -lt 2000 ] && [ "$n" -le 64 ] && kill -0 $bg 2>/dev/null; do
    n=$(hidden "$T/many" 2>/dev/null | grep -c tmp)
    i=$((i + 1))
done
kill -TERM $bg 2>/dev/null
wait $bg
st=$?
[ "$n" -gt 64 ] || echo "note: $n points in flight at SIGTERM"
[ "$st" = 143 ] || [ "$n" -le 64 ] && ok || bad "SIGTERM of the sweep: exit $st"
[ -z "$(hidden "$T/many")" ] && [ ! -e "$T/.many.lock" ] && ok ||
    bad "SIGTERM left $(hidden "$T/many" | wc -l) private directories"

# -- a mount point cannot be a run's --out (where this user may mount) --
mkdir "$T/mnt"
if mount -t tmpfs none "$T/mnt" 2>/dev/null; then
    expect 2 "$T/mnt: a mount point" "$BIN" run "$T/small.json" --quiet --out "$T/mnt"
    [ -z "$(ls -A "$T/mnt")" ] && [ "$(ls -A "$T" | grep -c '^\.mnt\.')" = 0 ] && ok || bad "a refused mount point"
    expect 0 "" "$BIN" run "$T/small.json" --quiet --out "$T/mnt/run"
    expect 0 "" "$BIN" sweep "$T/two.json" --quiet --out "$T/mnt"
    umount "$T/mnt"
fi

echo "cli_out: $pass passed, $fail failed"
[ "$fail" = 0 ]
