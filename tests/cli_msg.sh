#!/bin/sh
# tests/cli_msg.sh: hostile input files and arguments meet a located
# message and exit status 2, or are read as documented: NUL bytes, a UTF-8
# byte-order mark, a leading zstd skippable frame, deep JSON nesting, Azure
# timestamps far from today, a malformed --target, calibration files with
# unknown keys or impossible numbers, hash ids with a fraction.
# Usage: sh tests/cli_msg.sh bin/mooncake-sim
BIN=${1:?usage: cli_msg.sh path/to/mooncake-sim}
NAME=msg
. "$(dirname "$0")/cli_lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REC='"timestamp": 0, "input_length": 600, "output_length": 5'
# nest N: N opening brackets, no newline.
nest() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "[" }'; }

# A NUL byte in a line is named with its column (not "missing field").
printf '{"timestamp": 0, "input_length": 10, "output_\000length": 5, "hash_ids": [1]}\n' >"$T/nul.jsonl"
expect 2 "nul.jsonl:1: NUL byte at column 46" "$BIN" trace stats "$T/nul.jsonl"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,10\000,5\n' >"$T/nul.csv"
expect 2 "nul.csv:2: NUL byte at column 31" "$BIN" trace stats "$T/nul.csv"

# A UTF-8 byte-order mark opening a trace or a config is skipped.
printf '\357\273\277{%s, "hash_ids": [1, 2]}\n' "$REC" >"$T/bom.jsonl"
expect 0 '"requests": 1' "$BIN" trace stats "$T/bom.jsonl"
printf '\357\273\277TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,10,5\n' >"$T/bom.csv"
expect 0 '"requests": 1' "$BIN" trace stats "$T/bom.csv"
printf '\357\273\277{"name": "bom", "cluster": {"prefill": 1, "decode": 1},\n "trace": {"generator": {"kind": "kimi", "requests": 5}}}\n' >"$T/bom.json"
expect 0 "" "$BIN" run "$T/bom.json" --quiet --out "$T/bom-run"

# A zstd file opening with a skippable frame (magic 0x184D2A50..5F) reads
# as the frames after it.
if command -v zstd >/dev/null 2>&1; then
    printf '{%s, "hash_ids": [1, 2]}\n' "$REC" | zstd -q -c >"$T/frame.zst"
    { printf '\120\052\115\030\004\000\000\000skip'; cat "$T/frame.zst"; } >"$T/skip.jsonl.zst"
    expect 0 '"requests": 1' "$BIN" trace stats "$T/skip.jsonl.zst"
    { printf '\137\052\115\030\000\000\000\000'; cat "$T/frame.zst"; } >"$T/skip0.jsonl.zst"
    expect 0 '"requests": 1' "$BIN" trace stats "$T/skip0.jsonl.zst"
fi

# Deep nesting says so, where (cJSON in traces, jansson in configs).
{ printf '{%s, "hash_ids": [1, 2]}\n{"a": ' "$REC"; nest 1500; echo; } >"$T/deep.jsonl"
expect 2 "deep.jsonl:2: JSON nested deeper than 1000 levels (column 1006)" "$BIN" trace stats "$T/deep.jsonl"
{ printf '{"name": '; nest 3000; echo '}'; } >"$T/deep.json"
expect 2 "deep.json:1:2057: JSON nested deeper than 2048 levels" "$BIN" run "$T/deep.json" --out "$T/deep-run"
[ ! -e "$T/deep-run" ] && ok || bad "a refused config left $T/deep-run"
# "[[" inside a string is no nesting: still plain bad JSON.
printf '{"a": "[[[[", }\n' >"$T/badjson.jsonl"
expect 2 "badjson.jsonl:1: bad JSON (column 16)" "$BIN" trace stats "$T/badjson.jsonl"

# Azure timestamps: any year 0000..9999 of the calendar; a span past the
# simulated time range and impossible dates are named as such.
AZ='TIMESTAMP,ContextTokens,GeneratedTokens'
printf '%s\n9999-12-31 23:59:59.9999999,10,5\n' "$AZ" >"$T/y9999.csv"
expect 0 '"requests": 1' "$BIN" trace stats "$T/y9999.csv"
printf '%s\n1970-01-01 00:00:00,10,5\n9999-01-01 00:00:00,10,5\n' "$AZ" >"$T/span.csv"
expect 2 "span.csv:3: TIMESTAMP '9999-01-01 00:00:00' out of range: more than 9200000000 s" "$BIN" trace stats "$T/span.csv"
printf '%s\n2023-02-29 00:00:00,10,5\n' "$AZ" >"$T/feb29.csv"
expect 2 "feb29.csv:2: bad TIMESTAMP '2023-02-29 00:00:00': day 29 out of range" "$BIN" trace stats "$T/feb29.csv"
printf '%s\n2023-11-16T18:15:46,10,5\n' "$AZ" >"$T/iso.csv"
expect 2 "iso.csv:2: bad TIMESTAMP '2023-11-16T18:15:46' (expected YYYY-MM-DD HH:MM:SS[.fffffff]" "$BIN" trace stats "$T/iso.csv"

# --target: the comparison as written, not a metric "x=".
printf '{"name": "small", "cluster": {"prefill": 1, "decode": 1},\n "trace": {"generator": {"kind": "kimi", "requests": 20}}}\n' >"$T/small.json"
capt() { "$BIN" capacity "$T/small.json" --vary trace.generator.rate_rps --out "$T/cap" --target "$@"; }
expect 2 "--target x=>0.9: bad comparison '=>' (use METRIC>=X, METRIC<=X" capt 'x=>0.9'
expect 2 "--target x==1: bad comparison '=='" capt 'x==1'
expect 2 "--target >=1: no metric before '>='" capt '>=1'
expect 2 "--target x>=0.9x: '0.9x' is not a finite number" capt 'x>=0.9x'
[ ! -e "$T/cap" ] && ok || bad "a refused --target left $T/cap"

# Calibration files: unknown keys refused at their JSON path, every number
# within its physical range.
CAL="$ROOT/models/calib/h200x8.json"
sed 's/"hbm_bytes_per_s": [0-9.e+]*/"hbm_bytes_per_s": 1e300/' "$CAL" >"$T/cal-hbm.json"
expect 2 "cal-hbm.json: \$.decode.hbm_bytes_per_s: must be in (0, 1e+15] bytes/s (got 1e+300)" "$BIN" calib report "$T/cal-hbm.json"
sed 's/"fit_model"/"fit_modle"/' "$CAL" >"$T/cal-key.json"
expect 2 "cal-key.json: \$.decode.fit_modle: unknown key (valid here: form, coef" "$BIN" calib report "$T/cal-key.json"
sed 's/"r2": 1.0,/"r2": 1.0, "notes": 1,/' "$CAL" >"$T/cal-root.json"
expect 2 "cal-root.json: \$.prefill.notes: unknown key" "$BIN" calib report "$T/cal-root.json"
sed 's/"flops_per_s": [0-9.e+]*/"flops_per_s": -1/' "$CAL" >"$T/cal-ach.json"
expect 2 "cal-ach.json: \$.decode.achieved.flops_per_s: must be in (0, 1e+18] FLOP/s (got -1)" "$BIN" calib report "$T/cal-ach.json"
expect 2 "cal-hbm.json: \$.decode.hbm_bytes_per_s" "$BIN" run "$T/small.json" --set hardware=h200x8 \
    --set model=llama2-70b --set cost.calibration="$T/cal-hbm.json" --out "$T/cal-run"
[ ! -e "$T/cal-run" ] && ok || bad "a refused calibration left $T/cal-run"
for f in "$ROOT"/models/calib/*.json; do
    case $f in *.points.json) continue ;; esac
    expect 0 "" "$BIN" calib report "$f"
done

# Hash ids are integers by their text: 2^52 + 0.5 rounds to a whole
# double but is not one; 1.5e1 is 15.
printf '{%s, "hash_ids": [3, 4503599627370496.5]}\n' "$REC" >"$T/half.jsonl"
expect 2 "half.jsonl:1: hash_ids[1] must be an integer (got 4503599627370496.5)" "$BIN" trace stats "$T/half.jsonl"
printf '{%s, "hash_ids": [1.0000000000000000001, 2]}\n' "$REC" >"$T/tiny.jsonl"
expect 2 "tiny.jsonl:1: hash_ids[0] must be an integer (got 1.0000000000000000001)" "$BIN" trace stats "$T/tiny.jsonl"
printf '{%s, "hash_ids": [1.5e1, 100e-2]}\n' "$REC" >"$T/exp.jsonl"
expect 0 '"unique_blocks": 2' "$BIN" trace stats "$T/exp.jsonl"
printf '{%s, "hash_ids": [1, 18446744073709551616]}\n' "$REC" >"$T/big.jsonl"
expect 2 "big.jsonl:1: hash_ids[1] is too large" "$BIN" trace stats "$T/big.jsonl"

echo "cli_msg: $pass passed, $fail failed"
[ "$fail" = 0 ]
