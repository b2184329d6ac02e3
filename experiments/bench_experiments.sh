#!/bin/sh
# Part of make bench: the wall time of one capacity run (a vLLM baseline on
# 16 nodes, the conversation trace; budget 2 s) and of make reproduce.
. "$(dirname "$0")/lib.sh"
trace_file conversation_trace >/dev/null
ms() { date +%s%N | awk '{ printf "%.0f", $1 / 1000000 }'; }
s=$(ms)
"$BIN" run "$ROOT/experiments/fast25/capacity_conversation_vllm.json" --quiet --out "$ROOT/build/bench/capacity"
e=$(ms)
echo "capacity run (vllm, 16 nodes, conversation trace): $((e - s)) ms wall (budget 2 s)"
s=$(ms)
"$BIN" run "$ROOT/experiments/arxiv/table3_overload.json" --quiet --out "$ROOT/build/bench/overload"
e=$(ms)
echo "overload run (baseline admission, 8P+8D, conversation trace at 2x): $((e - s)) ms wall (budget 1 s)"
s=$(ms)
sh "$ROOT/experiments/reproduce.sh" >/dev/null
e=$(ms)
echo "make reproduce, experiments (a)-(d): $(((e - s) / 1000)) s wall"
