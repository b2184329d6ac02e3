#!/bin/sh
# tests/cli_newcomer.sh: the mistakes a new user makes first, each met by a
# message that names what to change: a bad --set value blamed on the --set
# (or the sweep axis) that gave it, `--set PATH VALUE` with a space, a
# trace given where an experiment belongs, MOONCAKE_TRACES naming the
# wrong folder; and the help texts list what they promise.
# Usage: sh tests/cli_newcomer.sh bin/mooncake-sim
BIN=${1:?usage: cli_newcomer.sh path/to/mooncake-sim}
NAME=newcomer
. "$(dirname "$0")/cli_lib.sh"
ROOT=$(dirname "$0")/..

printf '{"name": "small", "cluster": {"prefill": 2, "decode": 2},\n "trace": {"generator": {"kind": "kimi", "requests": 20}}}\n' >"$T/small.json"

# A bad value from --set names the --set, not the experiment file.
for s in scheduler.policy=kv-centric model=foo hardware=bar system.kind=x admission.policy=x \
    cache.policy=x cost.model=x trace.format=x; do
    expect 2 "mooncake-sim: --set $s: unknown" "$BIN" run "$T/small.json" --set "$s" --out "$T/never"
done
# The file's own bad value still names the file, whatever else --set set.
sed 's/"small"/"small", "model": "nope"/' "$T/small.json" >"$T/badmodel.json"
expect 2 "mooncake-sim: $T/badmodel.json: \$.model: unknown model 'nope'" "$BIN" run "$T/badmodel.json" \
    --set scheduler.policy=random --set hardware=h800x8 --out "$T/never"
# capacity's --set alike; a sweep's bad axis value names the axis.
expect 2 "mooncake-sim: --set cost.model=fit: unknown cost model 'fit'" "$BIN" capacity "$T/small.json" \
    --vary trace.generator.rate_rps --target 'slo.attainment>=0.9' --set cost.model=fit --out "$T/never"
printf '{"base": "small.json", "axes": {"scheduler.policy": ["random", "kv-centric"]}}\n' >"$T/axis.json"
expect 1 "" "$BIN" sweep "$T/axis.json" --out "$T/axis" --quiet
grep -qF "\"$T/axis.json: \$.axes.scheduler.policy[1]: unknown placement policy 'kv-centric'" "$T/axis/sweep.csv" &&
    ok || bad "sweep.csv does not blame the axis: $(grep failed "$T/axis/sweep.csv" | head -c 300)"
[ ! -e "$T/never" ] && ok || bad "a refused run wrote $T/never"

# `--set PATH VALUE` (a space for the '='): the hint shows the one word.
for cmd in run "search" "trace gen"; do
    expect 2 "mooncake-sim: --set cluster.prefill: expected PATH=VALUE (write --set cluster.prefill=4)" \
        "$BIN" $cmd "$T/small.json" --set cluster.prefill 4 --out "$T/never"
done
expect 2 "mooncake-sim: --set cluster.prefill: expected PATH=VALUE (write --set cluster.prefill=4)" \
    "$BIN" run --set cluster.prefill 4 "$T/small.json" --out "$T/never"
expect 2 "mooncake-sim: --set cluster.decode: expected PATH=VALUE (write --set cluster.decode=2)" \
    "$BIN" capacity "$T/small.json" --vary trace.speed --target 'slo.attainment>=0.9' -S cluster.decode 2
expect 2 "mooncake-sim: --set cluster.prefill: expected PATH=VALUE" "$BIN" run "$T/small.json" --set cluster.prefill
# The target's '>' is a shell redirection unless quoted: help and docs quote it.
expect 0 "--target 'METRIC>=X'" "$BIN" capacity --help
for f in "$ROOT"/README.md "$ROOT"/docs/*.md; do
    [ -f "$f" ] || continue
    grep -n -- "--target [^'\"\$]" "$f" | grep -v -- "--target: " && bad "$f: an unquoted --target" || ok
done
[ ! -e "$T/never" ] && ok || bad "a refused command wrote $T/never"

# A trace where an experiment belongs: recognised, pointed at trace.path.
"$BIN" trace gen "$T/small.json" --out "$T/t.jsonl" 2>"$T/err" || bad "trace gen: $(cat "$T/err")"
head -n 1 "$T/t.jsonl" >"$T/one.jsonl"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n' >"$T/az.csv"
for f in t.jsonl one.jsonl az.csv; do
    expect 2 "mooncake-sim: $T/$f looks like a trace, not an experiment file: name it in an experiment's trace.path (for example {\"trace\": {\"path\": \"$T/$f\"}})" \
        "$BIN" run "$T/$f" --out "$T/never"
done
if command -v zstd >/dev/null 2>&1; then
    zstd -q "$T/t.jsonl" -o "$T/t.jsonl.zst"
    expect 2 "$T/t.jsonl.zst looks like a trace, not an experiment file" "$BIN" run "$T/t.jsonl.zst" --out "$T/never"
    expect 2 "$T/t.jsonl.zst looks like a trace" "$BIN" capacity "$T/t.jsonl.zst" --vary trace.speed --target 'slo.attainment>=1'
else
    echo "SKIP: a zstd trace given to run (no zstd command)"
fi
printf '{"cluster": {"prefill": 2}\n' >"$T/broken.json"
expect 2 "$T/broken.json:2:0: '}' expected" "$BIN" run "$T/broken.json" --out "$T/never"
[ ! -e "$T/never" ] && ok || bad "a refused command wrote $T/never"

# MOONCAKE_TRACES unset and MOONCAKE_TRACES naming the wrong folder are told apart.
mkdir -p "$T/empty"
E=$ROOT/experiments
(unset MOONCAKE_TRACES; expect 2 "conversation_8p8d.json: \$.trace.path: environment variable MOONCAKE_TRACES is not set" \
    "$BIN" run "$E/conversation_8p8d.json" --out "$T/never")
MOONCAKE_TRACES=$T/empty expect 2 "conversation_8p8d.json: \$.trace.path: MOONCAKE_TRACES is $T/empty, which does not hold conversation_trace.jsonl.zst (or conversation_trace.jsonl): set it to the folder holding the traces" \
    "$BIN" run "$E/conversation_8p8d.json" --out "$T/never"
MOONCAKE_TRACES=$T/empty expect 2 "MOONCAKE_TRACES is $T/empty, which holds no conversation_trace.jsonl.zst" "$BIN" bench
(unset MOONCAKE_TRACES; expect 2 "set MOONCAKE_TRACES to the folder" "$BIN" bench)
why() { MOONCAKE_TRACES=$1 sh -c '. "$0"; traces_missing "$1"' "$E/needs.sh" "$E/arxiv/fig13_real.sh"; }
[ "$(why "")" = "needs MOONCAKE_TRACES (conversation trace), which is not set" ] && ok ||
    bad "needs.sh without MOONCAKE_TRACES: $(why "")"
[ "$(why "$T/empty")" = "needs MOONCAKE_TRACES (conversation trace): $T/empty holds no conversation_trace.jsonl.zst (or .jsonl)" ] &&
    ok || bad "needs.sh with MOONCAKE_TRACES a wrong folder: $(why "$T/empty")"
# an experiment script's own lookup (experiments/lib.sh) says the same
mkdir -p "$T/x/experiments/a" "$T/x/bin" && : >"$T/x/Makefile" && cp "$BIN" "$T/x/bin/mooncake-sim" &&
    cp "$E/lib.sh" "$T/x/experiments/" &&
    printf '. "$(dirname "$0")/../lib.sh"\ntrace_file conversation_trace\n' >"$T/x/experiments/a/s.sh"
MOONCAKE_TRACES=$T/empty expect 2 "MOONCAKE_TRACES is $T/empty, which holds no conversation_trace.jsonl.zst or conversation_trace.jsonl" \
    sh "$T/x/experiments/a/s.sh"
[ ! -e "$T/never" ] && ok || bad "a refused command wrote $T/never"

# The help lists what it promises: each name-valued key's valid names (the
# same ones its error lists), every calib subcommand, every file run writes.
"$BIN" run --help-config >"$T/hc"
for k in model hardware trace.format trace.generator.kind system.kind scheduler.policy \
    admission.policy cache.policy cost.model; do
    listed=$(sed -n "s/^  $k  *string default [^ ]*  {\(.*\)}\$/\1/p" "$T/hc" | tr '|' ' ')
    "$BIN" run "$T/small.json" --set "$k=none-such" --out "$T/never" 2>"$T/err"
    valid=$(sed -n 's/.*(valid: \(.*\))$/\1/p' "$T/err" | sed 's/,//g')
    [ -n "$listed" ] && [ "$listed" = "$valid" ] && ok ||
        bad "--help-config lists '$listed' for $k, its error '$valid'"
done
"$BIN" --help >"$T/help"
for c in fit report roofline tcp; do
    grep -q "calib $c" "$T/help" && ok || bad "mooncake-sim --help does not name calib $c"
done
"$BIN" run --help >"$T/help"
"$BIN" run "$T/small.json" --quiet --out "$T/files" 2>"$T/err" || bad "run small.json: $(cat "$T/err")"
for f in $(ls "$T/files"); do
    grep -qF "$f" "$T/help" && ok || bad "run --help does not name $f, which run writes"
done
gens=$(sed -n 's/^  trace.generator.kind  *string default [^ ]*  {\(.*\)}$/\1/p' "$T/hc" | tr '|' ' ')
row=$(grep '^| `trace.generator.kind`' "$ROOT/docs/cli.md")
for g in $gens; do
    case "$row" in *"\`$g\`"*) ok ;; *) bad "docs/cli.md's trace.generator.kind row lacks $g" ;; esac
done
grep -q -- '--allow-run-as-root' "$ROOT/docs/sweeps.md" && ok || bad "docs/sweeps.md does not say how to run mpirun as root"

# compare: the headline metrics head the table, TTFT first.
"$BIN" run "$T/small.json" --quiet --set scheduler.policy=random --out "$T/files2" 2>"$T/err" ||
    bad "run small.json: $(cat "$T/err")"
"$BIN" compare "$T/files" "$T/files2" >"$T/cmp" 2>&1 || bad "compare: $(cat "$T/cmp")"
[ "$(sed -n '4s/ .*//p' "$T/cmp")" = ttft_s.p50 ] && ok || bad "compare's first row is not ttft_s.p50: $(head -5 "$T/cmp")"
head -14 "$T/cmp" | grep -q "^slo.effective_request_capacity " && head -14 "$T/cmp" | grep -q "^goodput_rps " && ok ||
    bad "compare's head lacks the SLO and throughput rows: $(head -14 "$T/cmp")"
[ "$(grep -c '^ttft_s.p90 ' "$T/cmp")" = 1 ] && ok || bad "compare printed ttft_s.p90 more than once"

# search's varied parameter is not a --set: a run's bad value names the run.
expect 2 "small.json: a run with trace.generator.prompt_tok=2000: generator 'kimi' does not read it" \
    "$BIN" search "$T/small.json" --param trace.generator.prompt_tok --lo 2000 --out "$T/never"
[ ! -e "$T/never" ] && ok || bad "a refused search wrote $T/never"

echo "cli_newcomer: $pass passed, $fail failed"
[ "$fail" = 0 ]
