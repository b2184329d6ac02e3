#!/bin/sh
# tests/cli_traces.sh: the Mooncake trace shapes on hand-written fixtures
# (tests/fixtures/traces): one trace written with 16-token blocks (with
# --block-size, trace.block_size or a block_size field per record), with
# 512-token blocks, with 64-bit ids and with string ids gives the same
# `trace stats`, the same `trace cache` hit rates and the same run; bad
# block sizes and ids are located errors.
# Usage: sh tests/cli_traces.sh bin/mooncake-sim
BIN=${1:?usage: cli_traces.sh path/to/mooncake-sim}
NAME=traces
. "$(dirname "$0")/cli_lib.sh"
FX="$(cd "$(dirname "$0")" && pwd)/fixtures/traces"

# same WHAT A B: the files A and B are byte-identical.
same() { if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi; }

# The 512-token hit rates of every shape equal those of blocks512.jsonl.
caps=1024,2048,4096,inf
for pol in lru lfu length_aware; do
    "$BIN" trace cache "$FX/blocks512.jsonl" -c $caps -p $pol >"$T/c512" || bad "trace cache blocks512"
    "$BIN" trace cache "$FX/blocks16.jsonl" -b 16 -c $caps -p $pol >"$T/c16" || bad "trace cache blocks16"
    same "trace cache -p $pol, 16-token blocks" "$T/c512" "$T/c16"
    for f in blocks16_field ids64 ids_str; do
        "$BIN" trace cache "$FX/$f.jsonl" -c $caps -p $pol >"$T/c" || bad "trace cache $f"
        same "trace cache -p $pol, $f" "$T/c512" "$T/c"
    done
done
grep -q '"inf": 0.69235' "$T/c512" && ok || bad "blocks512: unexpected hit rates: $(cat "$T/c512")"
"$BIN" trace stats "$FX/blocks512.jsonl" >"$T/s512" || bad "trace stats blocks512"
"$BIN" trace stats "$FX/blocks16.jsonl" --block-size 16 >"$T/s16" || bad "trace stats blocks16"
same "trace stats, 16-token blocks" "$T/s512" "$T/s16"
for f in blocks16_field ids64 ids_str; do
    "$BIN" trace stats "$FX/$f.jsonl" >"$T/s" || bad "trace stats $f"
    same "trace stats, $f" "$T/s512" "$T/s"
done

# Located errors.
expect 2 "blocks16.jsonl:1: hash_ids has 69 ids, expected 3 = ceil(input_length 1100 / 512)" \
    "$BIN" trace stats "$FX/blocks16.jsonl"
expect 2 "\$.trace.block_size: must divide the pool's block of 512 tokens (got 48)" \
    "$BIN" trace stats "$FX/blocks16.jsonl" -b 48
expect 2 "--block-size: expected a divisor of 512" "$BIN" trace stats "$FX/blocks16.jsonl" -b x
sed '3s/"block_size": 16/"block_size": 12/' "$FX/blocks16_field.jsonl" >"$T/bs12.jsonl"
expect 2 "bs12.jsonl:3: field 'block_size' must divide the pool's block of 512 tokens (got 12)" \
    "$BIN" trace stats "$T/bs12.jsonl"
sed '2s/"h[0-9a-f]*"/""/' "$FX/ids_str.jsonl" >"$T/empty.jsonl"
expect 2 "empty.jsonl:2: hash_ids[0] is an empty string" "$BIN" trace stats "$T/empty.jsonl"

# A run of each shape: the same requests and summary (but for the config).
run() {
    printf '{"name": "fx", "cluster": {"prefill": 1, "decode": 1},\n "trace": {"path": "%s"%s}}\n' \
        "$2" "$3" >"$T/$1.json"
    "$BIN" run "$T/$1.json" --quiet --out "$T/$1" || bad "run $1"
}
run r512 "$FX/blocks512.jsonl" ""
run r16 "$FX/blocks16.jsonl" ', "block_size": 16'
run rstr "$FX/ids_str.jsonl" ""
for r in r16 rstr; do
    same "run $r: requests.csv" "$T/r512/requests.csv" "$T/$r/requests.csv"
    grep -v '"version"' "$T/r512/summary.json" >"$T/a"
    grep -v '"version"' "$T/$r/summary.json" >"$T/b"
    same "run $r: summary.json" "$T/a" "$T/b"
done
grep -q '"hit_rate_tokens": 0\.[0-9]*[1-9]' "$T/r512/summary.json" && ok ||
    bad "run r512: no cache hits: $(grep hit_rate_tokens "$T/r512/summary.json")"
# trace gen writes the re-blocked trace: 512-token blocks, read back alike.
"$BIN" trace gen "$T/r16.json" --out "$T/gen.jsonl" || bad "trace gen r16"
"$BIN" trace cache "$T/gen.jsonl" -c $caps >"$T/cg" || bad "trace cache gen.jsonl"
"$BIN" trace cache "$FX/blocks512.jsonl" -c $caps >"$T/c512"
same "trace gen of 16-token blocks, trace cache" "$T/c512" "$T/cg"

echo "cli_traces: $pass passed, $fail failed"
[ "$fail" = 0 ]
