#!/bin/sh
# tests/cli_mem.sh: memory bounded by what is live, as users meet it: a
# trace line past the line bound (a small zstd file that expands to
# tens of MB in one line) is a located error, exit 2, read without
# holding the line; `trace stats` counts distinct blocks exactly,
# however many requests share one, in 9 bytes a hash slot.
# Usage: sh tests/cli_mem.sh bin/mooncake-sim
BIN=${1:?usage: cli_mem.sh path/to/mooncake-sim}
NAME=mem
. "$(dirname "$0")/cli_lib.sh"
# peak_kb CMD...: the peak memory of CMD in KB (GNU time), or nothing
# where /usr/bin/time is not GNU time.
peak_kb() {
    /usr/bin/time -f '%M' -o "$T/peak" "$@" >/dev/null 2>&1
    tail -1 "$T/peak" 2>/dev/null | grep -E '^[0-9]+$'
}
rec='{"timestamp": 0, "input_length": 600, "output_length": 10, "hash_ids": [1, 2]}'

# A line of 64 MiB (zstd: a few KB) on line 2; the bound is 1 MiB.
{ echo "$rec"; head -c 67108864 /dev/zero | tr '\0' a; echo; } | zstd -q -o "$T/bomb.jsonl.zst"
expect 2 "$T/bomb.jsonl.zst:2: line longer than 1048576 bytes" "$BIN" trace stats "$T/bomb.jsonl.zst"
kb=$(peak_kb "$BIN" trace stats "$T/bomb.jsonl.zst" || true)
if [ -n "$kb" ]; then
    [ "$kb" -lt 32768 ] && ok || bad "a 64 MiB trace line took $kb KB (bound: 1 MiB a line)"
fi
# The same in a plain file, as the last line without a newline, and a
# line of exactly the bound is accepted up to the JSON parser.
{ echo "$rec"; head -c 2097152 /dev/zero | tr '\0' a; } >"$T/long.jsonl"
expect 2 "$T/long.jsonl:2: line longer than 1048576 bytes" "$BIN" trace stats "$T/long.jsonl"
{ echo "$rec"; head -c 1048576 /dev/zero | tr '\0' ' '; echo; echo "$rec"; } >"$T/edge.jsonl"
expect 0 '"requests": 2' "$BIN" trace stats "$T/edge.jsonl"
# A run reading the bomb fails the same way, exit 2.
cat >"$T/exp.json" <<EOF2
{"trace": {"path": "$T/bomb.jsonl.zst"}}
EOF2
expect 2 "bomb.jsonl.zst:2: line longer than 1048576 bytes" "$BIN" run "$T/exp.json" --quiet --out "$T/run"
[ ! -e "$T/run" ] && ok || bad "a failed run left $T/run"

# trace stats: exact distinct counts, a block shared by 300 requests
# (past a one-byte count) and 299 blocks used once each.
i=0
while [ $i -lt 300 ]; do
    echo "{\"timestamp\": $i, \"input_length\": 1024, \"output_length\": 1, \"hash_ids\": [7, $((1000 + i))]}"
    i=$((i + 1))
done >"$T/shared.jsonl"
expect 0 '"unique_blocks": 301' "$BIN" trace stats "$T/shared.jsonl"
grep -q '"max_block_refs": 300' "$T/out" && ok || bad "max_block_refs: $(grep max_block "$T/out")"
grep -q '"blocks_used_once_share": 0.9966777409' "$T/out" && ok ||
    bad "blocks_used_once_share: $(grep once "$T/out")"

# ... and holds 4 M distinct ids in well under 200 MB (9 bytes a slot).
awk 'BEGIN { for (i = 0; i < 4000; i++) { s = ""; for (k = 0; k < 1000; k++) s = s (k ? "," : "") (i * 1000 + k)
    printf "{\"timestamp\": %d, \"input_length\": 512000, \"output_length\": 1, \"hash_ids\": [%s]}\n", i, s } }' |
    zstd -q -o "$T/ids.jsonl.zst"
expect 0 '"unique_blocks": 4000000' "$BIN" trace stats "$T/ids.jsonl.zst"
kb=$(peak_kb "$BIN" trace stats "$T/ids.jsonl.zst" || true)
if [ -n "$kb" ]; then
    [ "$kb" -lt 153600 ] && ok || bad "trace stats of 4 M distinct ids took $kb KB"
fi

echo "cli_mem: $pass passed, $fail failed"
[ "$fail" = 0 ]
