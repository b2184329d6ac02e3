#!/bin/sh
# tests/cli_check.sh: check catches an edited real run. One run of the
# default experiment (400 requests, a DRAM and an SSD tier small enough to
# evict, fetches and hot-spot copies); each case copies it, changes one
# value of one output and expects `check` to exit 1 naming the file, the
# line (or JSON path) and the invariant. The untouched run passes.
# Usage: sh tests/cli_check.sh bin/mooncake-sim
BIN=${1:?usage: cli_check.sh path/to/mooncake-sim}
NAME=check
. "$(dirname "$0")/cli_lib.sh"

R=$T/run
if ! "$BIN" run experiments/default.json --quiet --set trace.generator.requests=400 \
    --set cache.dram_tokens=200000 --set cache.ssd_tokens=1000000 --set metrics.interval_s=5 \
    --out "$R" 2>"$T/err"; then
    bad "the run failed: $(head -c 300 "$T/err")"
    exit 1
fi
expect 0 "$R: ok" "$BIN" check "$R"

# fresh: a copy of the run in $T/e, the directory each case edits.
fresh() { rm -rf "$T/e" && cp -R "$R" "$T/e"; }

# csv_line FILE COLUMN: the first data line whose COLUMN is above 0.
csv_line() {
    awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
        $c > 0 { print NR; exit }' "$1"
}

# csv_set FILE LINE COLUMN EXPR: set COLUMN of LINE to EXPR, an awk
# expression of v (its value).
csv_set() {
    awk -F, -v OFS=, -v l="$2" -v n="$3" -v e="$4" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
        NR == l { v = $c; $c = (e == "2v") ? 2 * v : (e == "v+0.001") ? sprintf("%.6f", v + 0.001) : e }
        { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}

# json_line FILE SECTION KEY: the line of KEY in the first object SECTION
# (-: the top level).
json_line() {
    awk -v s="\"$2\": {" -v top="$2" -v k="\"$3\":" 'top == "-" || index($0, s) { in_s = 1 }
        in_s && index($0, k) { print NR; exit }' "$1"
}

# json_double FILE LINE: double the number on LINE ("key": N,).
json_double() {
    awk -v l="$2" 'NR == l { split($0, a, ": "); sub(/,$/, "", a[2]); c = /,$/ ? "," : "";
        printf "%s: %.10g%s\n", a[1], 2 * a[2], c; next } { print }' "$1" >"$1.new" &&
        mv "$1.new" "$1"
}

# row CASE FILE COLUMN EXPR INVARIANT: edit COLUMN of the first row where it
# is above 0, expect the violation at that line.
row() {
    fresh
    f=$T/e/$2
    line=$(csv_line "$f" "$3")
    [ -n "$line" ] || { bad "$1: no row with $3 > 0"; return; }
    csv_set "$f" "$line" "$3" "$4"
    expect 1 "$f:$line: " "$BIN" check "$T/e"
    grep -F "$f:$line: " "$T/out" | grep -qF "[$5]" && ok || bad "$1: $(head -c 600 "$T/out")"
}

# sum CASE FILE SECTION KEY INVARIANT: double KEY of SECTION in FILE.
sum() {
    fresh
    f=$T/e/$2
    line=$(json_line "$f" "$3" "$4")
    [ -n "$line" ] || { bad "$1: no $3.$4 in $2"; return; }
    json_double "$f" "$line"
    if [ "$2" = timing.json ]; then
        needle=$T/e/summary.json:
    else
        needle=$f:$line:
    fi
    expect 1 "$needle" "$BIN" check "$T/e"
    grep -F "$needle" "$T/out" | grep -qF "[$5]" && ok || bad "$1: $(head -c 600 "$T/out")"
}

row pinst requests.csv prefill_instance 8 instances
row dinst requests.csv decode_instance 99 instances
row fetched requests.csv fetched_tokens 99999999 fetched
row load requests.csv load_s v+0.001 load
sum fetch_bytes summary.json fetch bytes bytes
sum ssd_bytes summary.json ssd bytes bytes
sum h2d_bytes summary.json h2d bytes bytes
sum pd_bytes summary.json pd bytes bytes
sum prefill_busy summary.json prefill busy_s busy
sum decode_busy summary.json decode busy_s busy
sum iterations summary.json decode iterations iterations
sum events summary.json sim events events
sum timing_events timing.json - events events
sum evictions summary.json cache evictions pool
sum inserts summary.json cache inserts pool

# fetched_tokens above cached_tokens yet within the input.
fresh
f=$T/e/requests.csv
line=$(awk -F, 'NR > 1 && $21 > 0 && $8 + 512 <= $3 { print NR; exit }' "$f")
awk -F, -v OFS=, -v l="$line" 'NR == l { $21 = $8 + 512 } { print }' "$f" >"$f.new" && mv "$f.new" "$f"
expect 1 "$f:$line: " "$BIN" check "$T/e"
grep -qF "> cached_tokens" "$T/out" && ok || bad "fetched above cached: $(head -c 600 "$T/out")"

# timeseries.csv: a link rate doubled in one row; the last row's pool state.
fresh
f=$T/e/timeseries.csv
line=$(csv_line "$f" fetch_gbps)
csv_set "$f" "$line" fetch_gbps 2v
expect 1 "$f: fetch_gbps" "$BIN" check "$T/e"
grep -F "$f: fetch_gbps" "$T/out" | grep -qF '[ts_bytes]' && ok || bad "ts_bytes: $(head -c 600 "$T/out")"
fresh
last=$(wc -l <"$f")
csv_set "$f" "$last" replicas_mean 1.5
expect 1 "$f:$last: replicas_mean" "$BIN" check "$T/e"
fresh
csv_set "$f" "$last" hot_replications 9999
expect 1 "$f:$last: hot_replications" "$BIN" check "$T/e"
fresh
csv_set "$f" "$last" blocks_multi 999999
expect 1 "$f:$last: blocks_multi" "$BIN" check "$T/e"

# A colocated run's time series: a p<i>_load and a d<i>_load column per
# instance, which check verifies; one dropped is caught.
C=$T/coloc
if "$BIN" run experiments/arxiv/fig11_vllm_4m.json --quiet --set trace.generator.requests=60 \
    --set metrics.interval_s=5 --out "$C" >"$T/err" 2>&1; then
    head -1 "$C/timeseries.csv" | grep -q ',p3_load,d0_load,d1_load,d2_load,d3_load$' && ok ||
        bad "colocated load columns: $(head -1 "$C/timeseries.csv")"
    expect 0 "$C: ok" "$BIN" check "$C"
    cut -d, -f1-22 "$C/timeseries.csv" >"$T/ts" && mv "$T/ts" "$C/timeseries.csv"
    expect 1 "system.params.instances has 4 and 4" "$BIN" check "$C"
else
    bad "the colocated run failed: $(head -c 300 "$T/err")"
fi

echo "cli_check: $pass passed, $fail failed"
[ "$fail" = 0 ]
