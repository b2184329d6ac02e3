#!/bin/sh
# Part of make bench: the wall time of one capacity run (a vLLM baseline on
# 16 nodes, the conversation trace; budget 2 s), the CPU time --timeline
# adds to the conversation replay (budget 2x), of one whole capacity
# search (budget 30 s), of a 64-point sweep on one and two workers and of
# make reproduce.
. "$(dirname "$0")/lib.sh"
trace_file conversation_trace >/dev/null
fresh_dir "$ROOT/build/bench"
ms() { date +%s%N | awk '{ printf "%.0f", $1 / 1000000 }'; }
s=$(ms)
"$BIN" run "$ROOT/experiments/fast25/capacity_conversation_vllm.json" --quiet --out "$ROOT/build/bench/capacity"
e=$(ms)
echo "capacity run (vllm, 16 nodes, conversation trace): $((e - s)) ms wall (budget 2 s)"
over $((e - s)) 2000
s=$(ms)
"$BIN" run "$ROOT/experiments/arxiv/table3_overload.json" --quiet --out "$ROOT/build/bench/overload"
e=$(ms)
echo "overload run (baseline admission, 11P+3D, conversation trace at 2.6x): $((e - s)) ms wall (budget 1 s)"
over $((e - s)) 1000
# The timeline's cost at its default window (the first 1,000 requests):
# the conversation replay's CPU time (timing.json; the least of three
# runs, as one takes a tenth of a second) with --timeline over without
# (budget 2).
cpu() { sed -n 's/^ *"cpu_s": \([0-9.e+-]*\),*$/\1/p' "$1/timing.json"; }
c0=9e9 c1=9e9
for i in 1 2 3; do
    "$BIN" run "$ROOT/experiments/conversation_8p8d.json" --quiet --force --out "$ROOT/build/bench/tl0"
    "$BIN" run "$ROOT/experiments/conversation_8p8d.json" --quiet --force --out "$ROOT/build/bench/tl1" \
        --timeline "$ROOT/build/bench/timeline.json.zst"
    c0=$(awk -v a="$c0" -v b="$(cpu "$ROOT/build/bench/tl0")" 'BEGIN { print (b < a ? b : a) }')
    c1=$(awk -v a="$c1" -v b="$(cpu "$ROOT/build/bench/tl1")" 'BEGIN { print (b < a ? b : a) }')
done
r=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", b / a }')
echo "conversation replay (8P+8D) with --timeline: $c1 s CPU, without: $c0 s, ratio $r (budget 2)"
over "$r" 2
s=$(ms)
"$BIN" search "$ROOT/experiments/arxiv/fig12_vllm_4m.json" --quiet --lo 0.1 \
    --set trace.generator.prompt_tok=16384 --out "$ROOT/build/bench/search" >"$ROOT/build/bench/search.txt"
e=$(ms)
echo "capacity search (fig12 16k, vLLM-[4M], from 0.1 req/s, $(sed -n 's/^  "probes": \([0-9]*\),$/\1/p' "$ROOT/build/bench/search/search.json") probes): $((e - s)) ms wall (budget 30 s)"
over $((e - s)) 30000
# A 64-point sweep of the conversation replay on one worker and on two
# (budget: two workers at most 0.6x the wall time of one).
s=$(ms)
"$BIN" sweep "$ROOT/experiments/bench_sweep.json" -j 1 --quiet --out "$ROOT/build/bench/sweep-j1"
m=$(ms)
"$BIN" sweep "$ROOT/experiments/bench_sweep.json" -j 2 --quiet --out "$ROOT/build/bench/sweep-j2"
e=$(ms)
cmp -s "$ROOT/build/bench/sweep-j1/sweep.csv" "$ROOT/build/bench/sweep-j2/sweep.csv" || echo "sweep: -j1 and -j2 differ!"
echo "sweep, 64 conversation replays: -j1 $((m - s)) ms, -j2 $((e - m)) ms wall, ratio $(awk -v a=$((m - s)) -v b=$((e - m)) 'BEGIN { printf "%.2f", b / a }') (budget 0.6)"
over "$(awk -v a=$((m - s)) -v b=$((e - m)) 'BEGIN { print b / a }')" 0.6
s=$(ms)
sh "$ROOT/experiments/reproduce.sh" >/dev/null
e=$(ms)
echo "make reproduce, experiments (a)-(d): $(((e - s) / 1000)) s wall"
# calib fit on a thousand measurement points (budget 1 s): 600 prefill and
# 400 decode points drawn from a known model with 2% noise.
awk 'BEGIN {
    srand(8); printf "{\"source\": \"bench: synthetic\", \"date\": \"-\", \"hardware\": \"a800x8\",\n";
    printf " \"models\": [\"llama2-70b\"], \"prefill\": [";
    for (i = 0; i < 600; i++) {
        n = 512 + int(rand() * 131072); p = int(rand() * n);
        t = (0.1 + 1e-4 * (n - p) + 9e-10 * (n * n - p * p)) * (1 + 0.02 * (rand() - 0.5));
        printf "%s{\"n_tok\": %d, \"prefix_tok\": %d, \"s\": %.9g}", i ? ",\n" : "", n, p, t;
    }
    printf "],\n \"decode\": [";
    for (i = 0; i < 400; i++) {
        b = 1 + int(rand() * 256); c = b * (512 + int(rand() * 32768));
        t = (0.003 + (1e-4 * b > 0.0215 ? 1e-4 * b : 0.0215) + 5e-8 * c) * (1 + 0.02 * (rand() - 0.5));
        printf "%s{\"batch\": %d, \"ctx_tok\": %d, \"s\": %.9g}", i ? ",\n" : "", b, c, t;
    }
    printf "]}\n";
}' >"$ROOT/build/bench/fit1000.json"
s=$(ms)
"$BIN" calib fit "$ROOT/build/bench/fit1000.json" -o "$ROOT/build/bench/fit1000.cal.json" >/dev/null
e=$(ms)
echo "calib fit, 1000 measurement points: $((e - s)) ms wall (budget 1 s)"
over $((e - s)) 1000
bench_end "measurement(s)"
