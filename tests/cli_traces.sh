#!/bin/sh
# tests/cli_traces.sh: the Mooncake trace shapes on hand-written fixtures
# (tests/fixtures/traces): one trace written with 16-token blocks (with
# --block-size, trace.block_size or a block_size field per record), with
# 512-token blocks, with 64-bit ids and with string ids gives the same
# `trace stats`, the same `trace cache` hit rates and the same run; bad
# block sizes and ids are located errors. Agentic rows (agentic.jsonl):
# a turn arrives when the turns it waits on have finished plus its delay
# and tool wait; the agentic generator's trace, written by trace gen,
# replays as the generator runs.
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
printf '{"name": "b", "trace": {"path": "%s", "block_size": 48}}\n' "$FX/blocks16.jsonl" \
    >"$T/b48.json"
expect 2 "b48.json: \$.trace.block_size: must divide the pool's block of 512 tokens (got 48)" \
    "$BIN" trace gen "$T/b48.json" -o "$T/b48.jsonl"
expect 2 "--block-size: expected a divisor of 512" "$BIN" trace stats "$FX/blocks16.jsonl" -b x
# In 1..512 but no divisor: refused at the option, as the message says.
expect 2 "--block-size: expected a divisor of 512" "$BIN" trace stats "$FX/blocks16.jsonl" -b 48
expect 2 "--block-size: expected a divisor of 512" "$BIN" trace stats "$FX/blocks16.jsonl" \
    --block-size 3
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

# Agentic rows: each dependent turn arrives at the latest finish of the
# turns it waits on plus its delay and tool wait (ids in arrival order:
# 0 s1-t0, 1 s2-t0, 2 s2-t1, 3 the plain row, 4 s1-t1, 5 s1-t2).
run rag "$FX/agentic.jsonl" ""
awk -F, 'NR > 1 { a[$1] = $2; f[$1] = $14 }
    function near(x, y) { return x - y < 2e-6 && y - x < 2e-6 }
    function max(x, y) { return x > y ? x : y }
    END { exit !(near(a[4], f[0] + 2) && near(a[2], max(f[0], f[1]) + 0.25) &&
                 near(a[5], f[4] + 0.5) && near(a[1], 0.5) && near(a[3], 3)) }' \
    "$T/rag/requests.csv" && ok || bad "agentic arrivals: $(cut -d, -f1,2,14 "$T/rag/requests.csv")"
expect 0 '"requests": 6' "$BIN" trace stats "$FX/agentic.jsonl"
expect 0 '"inf":' "$BIN" trace cache "$FX/agentic.jsonl" -c inf
sed '4s/"s1-t1"\]/"s9"]/' "$FX/agentic.jsonl" >"$T/ag1.jsonl"
expect 2 "ag1.jsonl:4: wait_for[0] 's9' is no earlier row's request_id" "$BIN" trace stats "$T/ag1.jsonl"
sed '3s/"s2-t0"/"s1-t0"/' "$FX/agentic.jsonl" >"$T/ag2.jsonl"
expect 2 "ag2.jsonl:3: request_id 's1-t0' repeats an earlier row's" "$BIN" trace stats "$T/ag2.jsonl"
sed '4s/"delay": 100/"delay": -1/' "$FX/agentic.jsonl" >"$T/ag3.jsonl"
expect 2 "ag3.jsonl:4: field 'delay' must be a number of ms in [0, 9.2e+12]" "$BIN" trace stats "$T/ag3.jsonl"
sed '2s/"wait_for": \["s1-t0"\]/"wait_for": "s1-t0"/' "$FX/agentic.jsonl" >"$T/ag4.jsonl"
expect 2 "ag4.jsonl:2: field 'wait_for' must be an array of request_ids" "$BIN" trace stats "$T/ag4.jsonl"
sed '2s/"wait_for": \["s1-t0"\]/"wait_for": ["s1-t1"]/' "$FX/agentic.jsonl" >"$T/ag5.jsonl"
expect 2 "ag5.jsonl:2: wait_for[0] 's1-t1' is no earlier row's request_id" "$BIN" trace stats "$T/ag5.jsonl"
sed '5s/"s2-t0", /"s2-t0", null, /' "$FX/agentic.jsonl" >"$T/ag6.jsonl"
expect 2 "ag6.jsonl:5: wait_for[1] must be a non-empty string or an integer in [0, 2^53)" "$BIN" trace stats "$T/ag6.jsonl"
# The agentic generator: its trace, written by trace gen, replays alike.
printf '{"name": "gen", "cluster": {"prefill": 2, "decode": 2},\n "trace": {"generator": {"kind": "agentic", "requests": 120, "rate_rps": 0.5, "input": {"mean": 2000}, "output": {"mean": 200}, "p_continue": 0.8, "turn_gap_s": 3, "system_prompt_tok": 1024}}}\n' >"$T/gen.json"
"$BIN" run "$T/gen.json" --quiet --out "$T/rgen" || bad "run of the agentic generator"
"$BIN" trace gen "$T/gen.json" --out "$T/ag.jsonl" || bad "trace gen of the agentic generator"
grep -q '"wait_for": \[' "$T/ag.jsonl" && ok || bad "trace gen wrote no wait_for"
printf '{"name": "gen", "cluster": {"prefill": 2, "decode": 2}, "trace": {"path": "%s"}}\n' "$T/ag.jsonl" >"$T/file.json"
"$BIN" run "$T/file.json" --quiet --out "$T/rfile" || bad "run of the written agentic trace"
same "agentic generator and its written trace: requests.csv" "$T/rgen/requests.csv" "$T/rfile/requests.csv"
expect 2 "generator 'agentic' does not read it" "$BIN" run "$T/gen.json" --set trace.generator.input.cv=1 --quiet --out "$T/rx"

echo "cli_traces: $pass passed, $fail failed"
[ "$fail" = 0 ]
