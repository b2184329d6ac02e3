#!/bin/sh
# tests/decode_span.sh: decode iterations between batch changes run as one
# event (sim/serve/decode_span.c); one event per iteration
# (sim/serve/decode_step.c, --set debug.decode_step=1) is the reference. Each run below, both ways, must give byte-identical
# requests.csv, timeseries.csv and summary.json (less the event count,
# which must drop). Usage: sh tests/decode_span.sh bin/mooncake-sim
BIN=${1:?usage: decode_span.sh path/to/mooncake-sim}
NAME=decode_span
. "$(dirname "$0")/cli_lib.sh"

E="$(dirname "$0")/../experiments"
# both NAME EXP [--set ...]: run EXP stepped and in spans, compare.
both() {
    name=$1 exp=$2
    shift 2
    d="$T/$name"
    run_pair "$d" debug.decode_step 1 0 "$exp" "$@" || return
    for x in requests.csv timeseries.csv; do
        cmp -s "$d/ref/$x" "$d/new/$x" && ok || bad "$name: $x differs"
    done
    grep -v '"events":' "$d/ref/summary.json" >"$d/step.sum"
    grep -v '"events":' "$d/new/summary.json" >"$d/span.sum"
    cmp -s "$d/step.sum" "$d/span.sum" && ok || bad "$name: summary.json differs: $(diff "$d/step.sum" "$d/span.sum" | head -5)"
    a=$(sed -n 's/.*"events": \([0-9]*\).*/\1/p' "$d/ref/summary.json")
    b=$(sed -n 's/.*"events": \([0-9]*\).*/\1/p' "$d/new/summary.json")
    [ -n "$a" ] && [ -n "$b" ] && [ "$b" -lt "$a" ] && ok || bad "$name: events $a stepped, $b in spans"
    echo "  $name: $a events stepped, $b in spans"
}

why=$(traces_why conversation_trace.jsonl.zst)
if [ -z "$why" ]; then
    both conv "$E/conversation_8p8d.json" --set trace.limit=6000
    both conv_64 "$E/conversation_8p8d.json" --set trace.limit=6000 --set cluster.prefill=64 \
        --set cluster.decode=64 --set trace.speed=8
    for p in early predictive; do # arXiv Fig. 9: the decode side overloaded
        both "fluct_$p" "$E/arxiv/fig9_fluctuation.json" --set trace.limit=4000 --set admission.policy=$p
    done
    both oracle "$E/arxiv/table3_overload.json" --set trace.limit=4000 --set admission.policy=predictive \
        --set admission.params.predictor=oracle
else
    echo "SKIP: conversation trace runs ($why)"
fi
D="$E/default.json"
both kimi "$D" --set trace.generator.requests=1500
for p in baseline early predictive; do
    both "adm_$p" "$D" --set trace.generator.requests=600 --set admission.policy=$p \
        --set scheduler.params.slo_reject=0 --set cluster.prefill=4 --set cluster.decode=1 \
        --set trace.speed=2
done
both inline "$D" --set trace.generator.requests=1500 --set hardware=h200x8 --set model=llama3-8b \
    --set metrics.interval_s=0.05
both cpp "$D" --set trace.generator.requests=600 --set cluster.prefill_group=2 \
    --set cluster.prefill_chunk=2048 --set network.transport=tcp
both schedule "$D" --set trace.generator.requests=600 --set scheduler.schedule_s=0 \
    --set cluster.decode_max_batch=16 --set metrics.interval_s=0.01

# The reference modes are command-line switches only: a bad name or value
# is refused (exit 2, naming it), and none shows in the effective config.
expect 2 "unknown debug switch 'debug.stepped'" "$BIN" run "$D" --quiet --set debug.stepped=1 \
    --out "$T/bad"
expect 2 "--set debug.decode_step=2: expected 0 or 1" "$BIN" run "$D" --quiet \
    --set debug.decode_step=2 --out "$T/bad"
grep -q debug "$T/kimi/ref/config.json" && bad "debug in config.json" || ok

echo "decode_span: $pass passed, $fail failed"
[ "$fail" = 0 ]
