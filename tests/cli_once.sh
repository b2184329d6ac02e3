#!/bin/sh
# tests/cli_once.sh: trace files parsed once per process (traces/store.h)
# as users meet them: every probe of a capacity search over trace.speed
# reports what a run of its own at that speed reports, and a sweep whose
# axis varies trace.path to a file bad at line 3 fails only the points
# that read it, with that file's located error, under 1 and 2 workers.
# Usage: sh tests/cli_once.sh bin/mooncake-sim
BIN=${1:?usage: cli_once.sh path/to/mooncake-sim}
NAME=once
. "$(dirname "$0")/cli_lib.sh"

i=0
: >"$T/good.jsonl"
while [ $i -lt 40 ]; do
    printf '{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": [0, %d]}\n' \
        $((i * 250)) $((700 + i * 8)) $((20 + i % 7)) $((i % 5 + 1)) >>"$T/good.jsonl"
    i=$((i + 1))
done
head -n 2 "$T/good.jsonl" >"$T/bad.jsonl"
printf '{"timestamp": 900, "input_length": 700, "output_length": 3, "hash_ids": [0]}\n' >>"$T/bad.jsonl"
printf '{"name": "once", "cluster": {"prefill": 1, "decode": 1}, "trace": {"path": "%s"}}\n' \
    "$T/good.jsonl" >"$T/exp.json"

# capacity: each probe's metric is the one its own run gives
expect 0 "capacity: trace.speed" "$BIN" capacity "$T/exp.json" --vary trace.speed --lo 1 \
    --target 'ttft_s.p90<=0.5' --tol 0.1 --max-probes 30 --quiet --out "$T/cap"
tail -n +2 "$T/cap/probes.csv" | while IFS=, read -r n v req m pass; do
    "$BIN" run "$T/exp.json" --set "trace.speed=$v" --quiet --out "$T/run_$n" >/dev/null 2>&1 || echo "run $v failed"
    got=$(awk '/"ttft_s"/ { f = 1 } f && /"p90"/ { gsub(/[ ,]/, ""); sub(/"p90":/, ""); print; exit }' "$T/run_$n/summary.json")
    awk -v a="$got" -v b="$m" 'BEGIN { exit !(a + 0 == b + 0) }' || echo "probe $n at speed $v: $m, its run $got"
done >"$T/cap_diff"
[ ! -s "$T/cap_diff" ] && ok || bad "capacity probes differ from their runs: $(cat "$T/cap_diff")"

# sweep: the bad file fails its points only, with its located error
printf '{"base": "exp.json", "axes": {"trace.path": ["%s", "%s"], "trace.speed": [1, 3]}}\n' \
    "$T/good.jsonl" "$T/bad.jsonl" >"$T/spec.json"
expect 1 "sweep: 4 points, 2 failed" "$BIN" sweep "$T/spec.json" -j 1 --out "$T/s1"
expect 1 "" "$BIN" sweep "$T/spec.json" -j 2 --out "$T/s2" --quiet
cmp -s "$T/s1/sweep.csv" "$T/s2/sweep.csv" && ok || bad "sweep.csv differs between -j1 and -j2"
[ "$(grep -c "bad.jsonl:3: " "$T/s1/sweep.csv")" = 2 ] && ok || bad "expected 2 points failing at bad.jsonl:3: $(cat "$T/s1/sweep.csv")"
[ "$(grep -c ',ok,' "$T/s1/sweep.csv")" = 2 ] && ok || bad "expected the 2 good points ok"
"$BIN" run "$T/exp.json" --set trace.speed=3 --quiet --out "$T/r3" >/dev/null 2>&1
cmp -s "$T/r3/requests.csv" "$(ls -d "$T"/s1/001_*)/requests.csv" && ok ||
    bad "a sweep point's requests.csv differs from its own run's"

echo "cli_once: $pass passed, $fail failed"
[ "$fail" = 0 ]
