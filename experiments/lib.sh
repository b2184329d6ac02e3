# experiments/lib.sh: shared by the experiment scripts (sourced): ROOT and
# BIN, trace lookup through MOONCAKE_TRACES, fresh work folders, the trace
# cache JSON to CSV.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$ROOT/Makefile" ] || ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN="$ROOT/bin/mooncake-sim"
[ -x "$BIN" ] || { echo "$0: build first (make)" >&2; exit 2; }
# A script builds its tables in its work folder W (rows.csv, best.csv, md)
# or beside them (results/.../NAME.csv.tmp) and moves them into place when
# complete; on a failure or an interrupt those partial files go.
trap '_rc=$?; [ "$_rc" = 0 ] || rm -f "${W:-.}/rows.csv" "${W:-.}/best.csv" "${W:-.}/md" \
    "${OUT:-.}/$(basename "$0" .sh).csv.tmp"; exit "$_rc"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trace_file() { # name without extension -> existing .jsonl.zst or .jsonl
    : "${MOONCAKE_TRACES:?set MOONCAKE_TRACES to the folder holding the Mooncake traces}"
    for f in "$MOONCAKE_TRACES/$1.jsonl.zst" "$MOONCAKE_TRACES/$1.jsonl"; do
        [ -r "$f" ] && { echo "$f"; return 0; }
    done
    echo "$0: MOONCAKE_TRACES is $MOONCAKE_TRACES, which holds no $1.jsonl.zst or $1.jsonl" >&2
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
# col CSV NAME...: the named columns of CSV (a header row, no quoted commas
# in the columns read), comma-separated, one line per row. Exit 2 naming a
# column the header lacks.
col() {
    f=$1; shift
    awk -F, -v want="$*" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
            n = split(want, w, " ")
            for (k = 1; k <= n; k++) if (!(w[k] in c)) { printf "col: %s has no column %s\n", FILENAME, w[k] > "/dev/stderr"; exit 2 }
            next }
        { for (k = 1; k <= n; k++) printf "%s%s", (k > 1 ? "," : ""), $c[w[k]]; printf "\n" }' "$f"
}
# sweep SPEC DIR: run every point of the sweep SPEC into DIR, emptied first;
# DIR/sweep.csv has one row per point (see mooncake-sim sweep --help).
sweep() { fresh_dir "$2" && "$BIN" sweep "$1" --quiet --out "$2"; }
# capacity REQUESTS.CSV TBT: the effective request capacity, the share of all
# requests completed within TTFT 30 s and TBT TBT s (tbt_top10_s: the
# per-request TBT the SLO judges)
capacity() {
    col "$1" status ttft_s tbt_top10_s | awk -F, -v tbt="$2" '{ n++; if ($1 == "completed" && $2 <= 30 && $3 <= tbt) ok++ }
        END { printf "%.4f", ok / n }'
}
# For the make bench scripts. over VALUE LIMIT: count a measurement over
# its budget in n_over and say so; bench_end WHAT: with STRICT=1, exit 1
# when any was.
n_over=0
over() { if awk -v v="$1" -v l="$2" 'BEGIN { exit !(v > l) }'; then n_over=$((n_over + 1)); echo "  over budget"; fi; }
bench_end() {
    if [ "${STRICT:-0}" = 1 ] && [ "$n_over" -gt 0 ]; then
        echo "bench: $n_over $1 over budget" >&2
        exit 1
    fi
}
# published_csv FILE SET...: the papers' published values of the sets named
# (experiments/published.json) as FILE, "set,series,x,value" with a header,
# for a plot's marks
published_csv() {
    _f=$1; shift
    command -v jq >/dev/null || { echo "$0: needs jq (reads experiments/published.json)" >&2; exit 2; }
    { echo "set,series,x,value"
      jq -r '.sets[] | select(.id as $i | $ARGS.positional | index($i)) | .id as $i |
          .points[] | [$i, (.[0] | tostring), (.[1] | tostring), (.[2] | tostring)] | join(",")' \
          "$ROOT/experiments/published.json" --args "$@"; } >"$_f"
}
