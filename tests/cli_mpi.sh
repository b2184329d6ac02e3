#!/bin/sh
# tests/cli_mpi.sh: sweeps under `mpirun -n 2` and `-n 3`: a rank that
# cannot load its spec, or loads a different one, ends the job at once
# with a located message and exit 2, nothing written; a point that fails on
# any rank is failed in sweep.csv (exit 1); sweep.csv is byte-identical to
# -j1, also when a point's error is cut inside a UTF-8 character. Ranks
# given different --out or --dry-run are refused alike.
# Every mpirun runs under `timeout 60` (MPI_TIMEOUT), so a hang fails
# the test.
# Needs Open MPI's mpirun (make test-mpi; make test skips it without one).
# Usage: sh tests/cli_mpi.sh bin/mooncake-sim
BIN=${1:?usage: cli_mpi.sh path/to/mooncake-sim}
NAME=mpi
case $BIN in /*) BIN_ABS=$BIN ;; *) BIN_ABS=$PWD/$BIN ;; esac
. "$(dirname "$0")/cli_lib.sh"
col() { awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$1"; }

if ! command -v mpirun >/dev/null 2>&1; then
    echo "cli_mpi: mpirun not found (install openmpi-bin)"
    exit 1
fi
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
# mpi N CMD...: CMD on N ranks, killed after 60 s (exit 124: a hang).
mpi() {
    n=$1
    shift
    timeout "${MPI_TIMEOUT:-60}" mpirun -n "$n" --oversubscribe "$@"
}
# per_rank N DIR OUT: sweep DIR/spec_R.json on each rank R into OUT
# (Open MPI gives each rank OMPI_COMM_WORLD_RANK).
per_rank() {
    mpi "$1" sh -c 'exec "$0" sweep "$1/spec_$OMPI_COMM_WORLD_RANK.json" --quiet -j 1 --out "$2"' \
        "$BIN" "$2" "$3"
}
# absent DIR: DIR was not created.
absent() { [ ! -e "$1" ] && ok || bad "$1 was created: $(ls -A "$1" | head -3 | tr '\n' ' ')"; }

printf '{"name": "small", "cluster": {"prefill": 2, "decode": 2},\n "trace": {"generator": {"kind": "kimi", "requests": 40}}}\n' >"$T/small.json"
printf '{"base": "small.json", "axes": {"network.nic_gbps": [25, 400, 100], "seed": [1, 2]}}\n' >"$T/spec_0.json"

# A spec that one rank cannot read or parse: exit 2, that rank's located
# message, no directory.
cp "$T/spec_0.json" "$T/spec_2.json"
expect 2 "rank 1: $T/spec_1.json: unable to open" per_rank 2 "$T" "$T/o1"
absent "$T/o1"
expect 2 "rank 1: $T/spec_1.json: unable to open" per_rank 3 "$T" "$T/o2"
absent "$T/o2"
printf '{"base": "small.json",\n "axes": {"seed": [1, 2}}\n' >"$T/spec_1.json"
expect 2 "rank 1: $T/spec_1.json:2:" per_rank 3 "$T" "$T/o3"
absent "$T/o3"
printf '{"base": "small.json", "axes": {"sed": [1, 2]}}\n' >"$T/spec_2.json"
cp "$T/spec_0.json" "$T/spec_1.json"
expect 2 "rank 2: $T/spec_2.json: \$.axes.sed" per_rank 3 "$T" "$T/o4"
absent "$T/o4"
# Rank 0 failing is reported the same way.
mv "$T/spec_0.json" "$T/spec_x.json"
cp "$T/spec_1.json" "$T/spec_2.json"
expect 2 "rank 0: $T/spec_0.json: unable to open" per_rank 3 "$T" "$T/o5"
absent "$T/o5"
# Every rank failing alike: the one message, as a single process gives it.
expect 2 "mooncake-sim: $T/none.json: unable to open" mpi 2 "$BIN" sweep "$T/none.json" --out "$T/o6"
grep -q "rank" "$T/err" && bad "a failure common to every rank names ranks: $(cat "$T/err")" || ok
absent "$T/o6"
mv "$T/spec_x.json" "$T/spec_0.json"

# Specs that differ between ranks: exit 2 naming the ranks and the specs.
printf '{"base": "small.json", "axes": {"network.nic_gbps": [25, 400, 100], "seed": [1, 3]}}\n' >"$T/spec_2.json"
expect 2 "rank 2: $T/spec_2.json: resolves to a different sweep from rank 0's ($T/spec_0.json)" \
    per_rank 3 "$T" "$T/o7"
absent "$T/o7"
expect 0 "" per_rank 2 "$T" "$T/o8" # ranks 0 and 1: the same spec under two names
printf '{"base": "small.json", "axes": {"seed": [1, 2], "network.nic_gbps": [25, 400, 100]}}\n' >"$T/spec_1.json"
expect 2 "rank 1: $T/spec_1.json: resolves to a different sweep" per_rank 2 "$T" "$T/o9"
absent "$T/o9"
# The same spec text whose base experiment differs between ranks.
for r in 0 1 2; do
    mkdir -p "$T/b$r" && cp "$T/small.json" "$T/spec_0.json" "$T/b$r/"
done
sed 's/40/41/' "$T/small.json" >"$T/b2/small.json"
expect 2 "rank 2: $T/b2/spec_0.json: resolves to a different sweep from rank 0's ($T/b0/spec_0.json)" \
    mpi 3 sh -c 'exec "$0" sweep "$1/b$OMPI_COMM_WORLD_RANK/spec_0.json" --quiet --out "$2"' \
    "$BIN" "$T" "$T/o10"
absent "$T/o10"

# Options that shape the outputs must match too: --out, --dry-run (the
# default --out comes from the spec's name).
expect 2 "rank 1: options --out $T/o11_1 differ from rank 0's (--out $T/o11_0)" \
    mpi 2 sh -c 'exec "$0" sweep "$1" --quiet --out "$2_$OMPI_COMM_WORLD_RANK"' "$BIN" "$T/b0/spec_0.json" "$T/o11"
absent "$T/o11_0"
absent "$T/o11_1"
expect 2 "ranks 1, 2: options --out $T/o12 --dry-run differ from rank 0's (--out $T/o12)" \
    mpi 3 sh -c 'exec "$0" sweep "$1" --quiet --out "$2" $([ "$OMPI_COMM_WORLD_RANK" = 0 ] || echo --dry-run)' \
    "$BIN" "$T/b0/spec_0.json" "$T/o12"
absent "$T/o12"
cp "$T/b0/spec_0.json" "$T/b0/spec_1.json"
expect 2 "rank 1: options --out results/spec_1 differ from rank 0's (--out results/spec_0)" \
    mpi 2 sh -c 'cd "$1" && exec "$0" sweep "spec_$OMPI_COMM_WORLD_RANK.json" --quiet' "$BIN_ABS" "$T/b0"
absent "$T/b0/results"

# Points that fail on ranks 1 and 2 (-n 3; ranks 1 and 0 at -n 2) are
# failed in sweep.csv, exit 1, and sweep.csv is the one -j1 writes.
printf '{"base": "small.json", "axes": {"network.nic_gbps": [25, -5, 0, 400, 100, 50]}}\n' >"$T/fail.json"
expect 1 "" "$BIN" sweep "$T/fail.json" -j 1 --quiet --out "$T/f1"
[ "$(col "$T/f1/sweep.csv" status | tr '\n' ' ')" = "ok failed failed ok ok ok " ] && ok ||
    bad "-j1: statuses $(col "$T/f1/sweep.csv" status | tr '\n' ' ')"
for n in 2 3; do
    expect 1 "" mpi $n "$BIN" sweep "$T/fail.json" -j 1 --quiet --out "$T/f$n"
    cmp -s "$T/f1/sweep.csv" "$T/f$n/sweep.csv" && ok || bad "a failing sweep.csv differs under mpirun -n $n"
done
# A point whose error is cut at its length limit inside a UTF-8 character
# (a trace path of 300 two-byte characters) arrives from its rank as
# failed, exit 1 (jansson refuses text that is not UTF-8: a message split
# inside a character would turn the point into ok, exit 0).
printf '{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [0]}\n' >"$T/u8good.jsonl"
printf '{"name": "u8"}\n' >"$T/u8base.json"
printf '{"base": "u8base.json", "axes": {"trace.path": ["%s", "%s/%s.jsonl"]}}\n' "$T/u8good.jsonl" "$T" \
    "$(awk 'BEGIN { for (i = 0; i < 300; i++) printf "\303\251" }')" >"$T/u8.json"
expect 1 "" "$BIN" sweep "$T/u8.json" -j 1 --out "$T/u8" --quiet
expect 1 "" mpi 2 "$BIN" sweep "$T/u8.json" --out "$T/u8mpi" --quiet
[ "$(col "$T/u8mpi/sweep.csv" status | tr '\n' ' ')" = "ok failed " ] && ok ||
    bad "a failed point under MPI: $(col "$T/u8mpi/sweep.csv" status | tr '\n' ' ')"
cmp -s "$T/u8/sweep.csv" "$T/u8mpi/sweep.csv" && ok || bad "the failed sweep differs under mpirun -n 2"
# The whole grid at -n 3 (two points per rank) against -j1.
"$BIN" sweep "$T/spec_0.json" -j 1 --quiet --out "$T/g1" || bad "-j1 grid failed"
expect 0 "(3 ranks x 1 worker)" mpi 3 "$BIN" sweep "$T/spec_0.json" -j 1 --out "$T/g3"
cmp -s "$T/g1/sweep.csv" "$T/g3/sweep.csv" && ok || bad "sweep.csv differs under mpirun -n 3"
cmp -s "$T/g1/spec.json" "$T/g3/spec.json" && ok || bad "spec.json differs under mpirun -n 3"

echo "cli_mpi: $pass passed, $fail failed"
[ "$fail" = 0 ]
