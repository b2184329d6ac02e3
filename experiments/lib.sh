# experiments/lib.sh: shared by the experiment scripts (sourced): ROOT and
# BIN, trace lookup through MOONCAKE_TRACES, fresh work folders, the trace
# cache JSON to CSV.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$ROOT/Makefile" ] || ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/bin/mooncake-sim"
[ -x "$BIN" ] || { echo "$0: build first (make)" >&2; exit 2; }
trace_file() { # name without extension -> existing .jsonl.zst or .jsonl
    : "${MOONCAKE_TRACES:?set MOONCAKE_TRACES to the folder holding the Mooncake traces}"
    for f in "$MOONCAKE_TRACES/$1.jsonl.zst" "$MOONCAKE_TRACES/$1.jsonl"; do
        [ -r "$f" ] && { echo "$f"; return 0; }
    done
    echo "$0: no $1 trace in $MOONCAKE_TRACES" >&2
    exit 2
}
# fresh_dir DIR: DIR, emptied. A script's work folder starts empty: `run`
# refuses an output folder whose config.json is another experiment's, such
# as one left by an earlier checkout (other paths, other config keys).
fresh_dir() { rm -rf "$1" && mkdir -p "$1"; }
# cache_json_to_csv POLICY: "  "cap": rate," lines on stdin -> "policy,cap,rate"
cache_json_to_csv() {
    sed -n 's/^ *"\([^"]*\)": *\([0-9.eE+-]*\),*$/\1,\2/p' | sed "s/^/$1,/"
}
# getnum DIR SECTION KEY: a number of DIR/summary.json's "SECTION": { "KEY": ... }
getnum() { sed -n "/\"$2\": {/,/}/s/^ *\"$3\": *\([0-9.eE+-]*\),*$/\1/p" "$1/summary.json" | head -1; }
# capacity REQUESTS.CSV TBT: the effective request capacity, the share of all
# requests completed within TTFT 30 s and TBT TBT s (columns 5, 9, 13)
capacity() { awk -F, -v tbt="$2" 'NR > 1 { n++; if ($5 == "completed" && $9 <= 30 && $13 <= tbt) ok++ } END { printf "%.4f", ok / n }' "$1"; }
# ttft_stats REQUESTS.CSV: "mean,p90,completed" of TTFT over completed requests
ttft_stats() {
    awk -F, 'NR > 1 && $5 == "completed" { print $9 }' "$1" | sort -g |
        awk '{ t[NR] = $1; s += $1 } END { k = int(0.9 * NR + 0.999999); if (k < 1) k = 1;
               printf "%.4f,%.4f,%d", (NR ? s / NR : 0), t[k], NR }'
}
