#!/bin/sh
# tests/cli_sweep.sh: sweep and capacity as users meet them: a 2x2x2 grid
# gives byte-identical sweep.csv with 1 and 2 workers (under mpirun:
# tests/cli_mpi.sh); a bad value fails only its points; bad specs are
# located errors (exit 2, nothing written); a directory holding another
# sweep is refused without --force; capacity finds the rate a fine grid
# of runs finds, within its tolerance.
# Usage: sh tests/cli_sweep.sh bin/mooncake-sim
BIN=${1:?usage: cli_sweep.sh path/to/mooncake-sim}
NAME=sweep
. "$(dirname "$0")/cli_lib.sh"
# col CSV NAME: the named column of CSV, one value per row.
col() { awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$1"; }

expect 0 "usage: mooncake-sim sweep SPEC.json" "$BIN" sweep --help
expect 0 "usage: mooncake-sim capacity EXP.json" "$BIN" capacity --help
expect 2 "expected exactly one sweep spec" "$BIN" sweep
expect 2 "--jobs 0: expected an integer" "$BIN" sweep x.json -j 0

printf '{"name": "small", "cluster": {"prefill": 2, "decode": 2},\n "trace": {"generator": {"kind": "kimi", "requests": 80}}}\n' >"$T/small.json"
cat >"$T/grid.json" <<'EOF'
{"base": "small.json", "set": {"trace.generator.rate_rps": 2},
 "axes": {"scheduler.policy": ["kvcentric", "least_loaded"], "network.nic_gbps": [25, 400], "seed": [1, 2]}}
EOF
expect 0 "007_policy=least_loaded_nic_gbps=400_seed=2 scheduler.policy=least_loaded" "$BIN" sweep "$T/grid.json" --dry-run
expect 0 "sweep: 8 points, 0 failed" "$BIN" sweep "$T/grid.json" -j 1 --out "$T/j1"
expect 0 "" "$BIN" sweep "$T/grid.json" -j 2 --out "$T/j2" --quiet
cmp -s "$T/j1/sweep.csv" "$T/j2/sweep.csv" && ok || bad "sweep.csv differs between -j1 and -j2"
cmp -s "$T/j1/spec.json" "$T/j2/spec.json" && ok || bad "spec.json differs between -j1 and -j2"
[ "$(wc -l <"$T/j1/sweep.csv")" = 9 ] && ok || bad "sweep.csv: expected a header and 8 rows"
[ "$(col "$T/j1/sweep.csv" status | sort -u)" = ok ] && ok || bad "sweep.csv: a point not ok"
[ "$(col "$T/j1/sweep.csv" requests.total | sort -u)" = 80 ] && ok || bad "sweep.csv: requests.total"
cmp -s "$T/j1/005_policy=least_loaded_nic_gbps=25_seed=2/requests.csv" \
    "$T/j2/005_policy=least_loaded_nic_gbps=25_seed=2/requests.csv" && ok || bad "a point's requests.csv differs"
expect 0 "" "$BIN" sweep "$T/grid.json" --out "$T/j1" --quiet # the same sweep again
cmp -s "$T/j1/sweep.csv" "$T/j2/sweep.csv" && ok || bad "rerun changed sweep.csv"

# compare: two sweeps point by point; an injected regression in one point.
expect 0 "compare: 8 points, 1 bound each, 0 points regressed" "$BIN" compare "$T/j1" "$T/j2" --max-regress ttft_s.p90=0%
cp -r "$T/j2" "$T/jx"
p3="$T/jx/003_policy=kvcentric_nic_gbps=400_seed=2/summary.json"
awk '/"ttft_s": \{/ { t = 1 } t && /"p90":/ { sub(/"p90": [0-9.e+-]*/, "\"p90\": 99.5"); t = 0 } { print }' "$p3" >"$T/s.json" && mv "$T/s.json" "$p3"
expect 1 "point 003_policy=kvcentric_nic_gbps=400_seed=2: VIOLATED ttft_s.p90" "$BIN" compare "$T/j1" "$T/jx" --max-regress ttft_s.p90=5% --quiet
cp -r "$T/j2" "$T/jy" && sed -i '$d' "$T/jy/sweep.csv"
expect 2 "not the same sweep (8 points against 7)" "$BIN" compare "$T/j1" "$T/jy"

# An error cut at its length limit inside a UTF-8 character (a trace path
# of 300 two-byte characters) stays valid UTF-8 in sweep.csv (the same
# sweep under MPI: tests/cli_mpi.sh).
printf '{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [0]}\n' >"$T/u8good.jsonl"
printf '{"name": "u8"}\n' >"$T/u8base.json"
printf '{"base": "u8base.json", "axes": {"trace.path": ["%s", "%s/%s.jsonl"]}}\n' "$T/u8good.jsonl" "$T" \
    "$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "\303\251" }')" >"$T/u8.json"
expect 1 "" "$BIN" sweep "$T/u8.json" --out "$T/u8" --quiet
iconv -f UTF-8 -t UTF-8 "$T/u8/sweep.csv" >/dev/null 2>&1 && ok || bad "sweep.csv is not valid UTF-8"

# A bad value fails its points alone; the exit status says so.
cat >"$T/badpoint.json" <<'EOF'
{"base": "small.json", "axes": {"network.nic_gbps": [100, -5], "seed": [1, 2]}}
EOF
expect 1 "point 002_nic_gbps=-5_seed=1 failed: $T/badpoint.json: \$.axes.network.nic_gbps[1]: -5 is out of range" \
    "$BIN" sweep "$T/badpoint.json" --out "$T/bp"
[ "$(col "$T/bp/sweep.csv" status | tr '\n' ' ')" = "ok ok failed failed " ] && ok || bad "badpoint statuses"
[ -s "$T/bp/001_nic_gbps=100_seed=2/summary.json" ] && ok || bad "a good point lost its results"
[ ! -e "$T/bp/002_nic_gbps=-5_seed=1" ] && ok || bad "a failed point left a directory"

# Bad specs: located, exit 2, nothing written.
printf '{"base": "small.json",\n "axes": {"seed": [1,]}}\n' >"$T/syntax.json"
expect 2 "syntax.json:2:" "$BIN" sweep "$T/syntax.json" --out "$T/s1"
printf '{"base": "small.json", "axes": {"cluster.prefil": [1]}}\n' >"$T/key.json"
expect 2 "key.json: \$.axes.cluster.prefil: unknown config path" "$BIN" sweep "$T/key.json" --out "$T/s1"
printf '{"base": "small.json", "mode": "list", "axes": {"seed": [1, 2], "trace.speed": [1]}}\n' >"$T/list.json"
expect 2 "list.json: \$.axes.trace.speed: 1 values, but \$.axes.seed has 2" "$BIN" sweep "$T/list.json" --out "$T/s1"
printf '{"base": "small.json", "set": {"cluster.decode": "two"}, "axes": {"seed": [1]}}\n' >"$T/set.json"
expect 2 "set.json: \$.set.cluster.decode: expected an integer" "$BIN" sweep "$T/set.json" --out "$T/s1"
[ ! -e "$T/s1" ] && ok || bad "a bad spec left $T/s1"

# Another sweep may not write over this one without --force.
printf '{"base": "small.json", "axes": {"seed": [3]}}\n' >"$T/other.json"
expect 2 "holds a different sweep" "$BIN" sweep "$T/other.json" --out "$T/j1"
cmp -s "$T/j1/sweep.csv" "$T/j2/sweep.csv" && ok || bad "a refused sweep changed sweep.csv"
expect 0 "sweep: 1 points" "$BIN" sweep "$T/other.json" --out "$T/j1" --force

# capacity: a run that completes no request (its one prompt cannot fit
# any decode node's VRAM: rejected at arrival) misses even an upper bound
# its zero percentiles would meet.
awk 'BEGIN { printf "{\"timestamp\": 0, \"input_length\": 1400000, \"output_length\": 5, \"hash_ids\": ["
    for (i = 0; i < 2735; i++) printf "%s%d", (i ? "," : ""), i; print "]}" }' >"$T/huge.jsonl"
printf '{"name": "huge", "trace": {"path": "%s"}}\n' "$T/huge.jsonl" >"$T/huge.json"
expect 0 "capacity: none" "$BIN" capacity "$T/huge.json" --vary trace.speed --target 'ttft_s.p90<=5' \
    --out "$T/hugecap" --quiet
grep -q '"found": false' "$T/hugecap/capacity.json" && ok || bad "capacity counted a run that completed nothing"
# A target still met at the key's range bound: the capacity is at least
# the bound (never a probe out of range).
printf '{"trace": {"generator": {"kind": "kimi", "requests": 30}}}\n' >"$T/tiny.json"
expect 0 "capacity: cluster.inline_stall_s >= 1000, the key's range bound" "$BIN" capacity "$T/tiny.json" \
    --vary cluster.inline_stall_s --lo 300 --target 'slo.attainment>=0' --out "$T/boundcap" --quiet
grep -q '"at_bound": true' "$T/boundcap/capacity.json" && [ "$(tail -1 "$T/boundcap/probes.csv" | cut -d, -f2)" = 1000 ] &&
    ok || bad "capacity at the range bound: $(cat "$T/boundcap/capacity.json")"

# capacity: the highest passing rate agrees with a fine grid of runs.
printf '{"name": "cap", "cluster": {"prefill": 1, "decode": 1},\n "trace": {"generator": {"kind": "kimi", "requests": 2000, "rate_rps": 0.5}}}\n' >"$T/cap.json"
expect 0 "capacity: trace.generator.rate_rps = " "$BIN" capacity "$T/cap.json" --vary trace.generator.rate_rps \
    --target 'slo.effective_request_capacity>=0.9' --tol 0.01 --out "$T/cap" --quiet
cap=$(sed -n 's/^capacity: trace.generator.rate_rps = \([0-9.]*\) .*/\1/p' "$T/out")
[ "$(head -1 "$T/cap/probes.csv")" = "probe,value,requests,slo.effective_request_capacity,pass" ] && ok || bad "probes.csv header"
printf '{"base": "cap.json", "axes": {"trace.generator.rate_rps": [%s]}}\n' \
    "$(awk 'BEGIN { for (r = 1.0; r <= 2.0001; r += 0.02) printf "%s%.2f", (r > 1 ? ", " : ""), r }')" >"$T/capgrid.json"
expect 0 "" "$BIN" sweep "$T/capgrid.json" --out "$T/capgrid" --quiet
# The grid's crossing: from the last rate before the first miss to the
# highest rate that meets the target; the search must land in it, give
# or take its tolerance and one grid step.
col "$T/capgrid/sweep.csv" trace.generator.rate_rps >"$T/rates"
col "$T/capgrid/sweep.csv" slo.effective_request_capacity >"$T/metric"
paste "$T/rates" "$T/metric" | awk -v cap="$cap" '
    $2 >= 0.9 { last_pass = $1 } $2 < 0.9 && !miss { miss = 1; first_lo = prev } { prev = $1 }
    END { lo = first_lo - 0.02 - 0.01 * cap; hi = last_pass + 0.02 + 0.01 * cap;
          if (cap == "" || cap < lo || cap > hi) { printf "capacity %s outside grid crossing [%g, %g]\n", cap, lo, hi; exit 1 } }' &&
    ok || bad "capacity disagrees with the grid"
expect 2 "--target rate: expected METRIC>=X" "$BIN" capacity "$T/cap.json" --vary trace.generator.rate_rps --target rate
expect 2 "--vary scheduler.policy: not a numeric config key" "$BIN" capacity "$T/cap.json" --vary scheduler.policy --target 'slo.attainment>=1'
expect 2 "summary.json has no number at 'slo.atainment'" "$BIN" capacity "$T/cap.json" --vary trace.generator.rate_rps --target 'slo.atainment>=1' --out "$T/c2"
[ ! -e "$T/c2" ] && ok || bad "a failed capacity search left $T/c2"

# A write that fails exits 1 naming the file and the reason (bad input: 2).
printf '{"base": "small.json", "axes": {"seed": [1]}}\n' >"$T/one.json"
: >"$T/afile"
mkdir -p "$T/wf/sweep.csv" "$T/wc/capacity.json"
expect 1 "$T/afile/sw: cannot lock $T/afile/.sw.lock: Not a directory" "$BIN" sweep "$T/one.json" --out "$T/afile/sw" --quiet
expect 1 "$T/wf/sweep.csv: cannot rename into place: Is a directory" "$BIN" sweep "$T/one.json" --out "$T/wf" --quiet
expect 1 "$T/ws/spec.json: write failed: File too large" sh -c 'trap "" XFSZ; ulimit -f 1; exec "$0" sweep "$1" --quiet --out "$2"' "$BIN" "$T/one.json" "$T/ws"
capnone() { "$BIN" capacity "$T/small.json" --vary trace.generator.rate_rps --lo 0.5 --target 'slo.attainment>1' --quiet "$@"; }
expect 1 "$T/afile/cap: cannot create directory: Not a directory" capnone --out "$T/afile/cap"
expect 1 "$T/wc/capacity.json: cannot rename into place: Is a directory" capnone --out "$T/wc"
[ "$(ls -A "$T/wc")" = capacity.json ] && ok || bad "a failed capacity left probes.csv in $T/wc"

echo "cli_sweep: $pass passed, $fail failed"
[ "$fail" = 0 ]
