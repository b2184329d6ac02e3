#!/bin/sh
# tests/place_view.sh: Algorithm 1 estimates only the candidates of
# sim_cluster_prefill_view (sim/serve/place.c); an estimate of every prefill
# instance (--set debug.place_scan=1) is the reference. Each run below,
# both ways, must give byte-identical requests.csv, timeseries.csv and
# summary.json. From SIM_PPICK_MIN_INSTANCES (32) prefill instances up
# the view comes from the index of sim/serve/prefill_pick.c, and with
# debug.view_check=1 (set in every run here) every such view is also taken by the pass over
# every instance and compared field by field (a difference aborts the run).
# Usage: sh tests/place_view.sh bin/mooncake-sim
BIN=${1:?usage: place_view.sh path/to/mooncake-sim}
NAME=place_view
. "$(dirname "$0")/cli_lib.sh"

E="$(dirname "$0")/../experiments"
# both NAME EXP [--set ...]: run EXP with every instance estimated and
# with the candidates only, compare.
both() {
    name=$1 exp=$2
    shift 2
    d="$T/$name"
    run_pair "$d" debug.place_scan 1 0 "$exp" --set debug.view_check=1 "$@" || return
    for x in requests.csv timeseries.csv summary.json; do
        cmp -s "$d/ref/$x" "$d/new/$x" && ok || bad "$name: $x differs"
    done
}

why=$(traces_why conversation_trace.jsonl.zst)
if [ -z "$why" ]; then
    both conv "$E/conversation_8p8d.json" --set trace.limit=6000
    both conv_64 "$E/conversation_8p8d.json" --set trace.limit=6000 --set cluster.prefill=64 \
        --set cluster.decode=64 --set trace.speed=8
    both conv_256 "$E/conversation_8p8d.json" --set trace.limit=4000 --set cluster.prefill=256 \
        --set cluster.decode=64 --set trace.speed=32
    both conv_local "$E/conversation_8p8d.json" --set trace.limit=4000 --set cache.scope=local \
        --set cluster.prefill=32 --set trace.speed=4
    both overload "$E/arxiv/table3_overload.json" --set trace.limit=4000
else
    echo "SKIP: conversation trace runs ($why)"
fi
D="$E/default.json"
both kimi "$D" --set trace.generator.requests=1500
both kimi_64 "$D" --set trace.generator.requests=3000 --set cluster.prefill=64 --set trace.speed=8
# DRAM holds a few prompts: prefixes on SSD, in both tiers across nodes
both ssd "$D" --set trace.generator.requests=1500 --set cluster.prefill=32 --set trace.speed=4 \
    --set cache.dram_tokens=60000 --set cache.ssd_tokens=400000
both threshold "$D" --set trace.generator.requests=1500 --set cluster.prefill=24 \
    --set scheduler.params.kvcache_balancing_threshold=1 --set scheduler.params.handoff_aware=0
both cache_aware "$D" --set trace.generator.requests=1500 --set cluster.prefill=24 \
    --set scheduler.policy=cache_aware
both tcp "$D" --set trace.generator.requests=1000 --set cluster.prefill=16 \
    --set network.transport=tcp --set network.nic_gbps=10
both cpp "$D" --set trace.generator.requests=600 --set cluster.prefill_group=2 \
    --set cluster.prefill_chunk=2048
both day "$E/scale/day_1024.json" --set trace.generator.requests=4000

echo "place_view: $pass passed, $fail failed"
[ "$fail" = 0 ]
