#!/bin/sh
# Part of make bench: speed at production scale, as CPU time from each
# run's timing.json (the run's own thread) and ratios measured in this run.
#  1. The conversation replay at 8P+8D (kvcentric, global pool, RDMA) over
#     the physical trace-reading floor (bench/trace_floor: zstd
#     decompression and a scan of the integers of every line, nothing
#     else); budget 6x.
#  2. CPU per request at 64P+64D and 512P+512D, the trace sped up 8x and
#     64x so that every instance sees the same load, over that at 8P+8D;
#     budgets 1.2x and 1.5x.
#  3. experiments/scale/day_1024.json (a generated day, 8.64 M requests on
#     512P+512D): wall time, CPU time and peak memory, run twice with the
#     outputs compared; budgets 90 s wall, 4 GiB. BENCH_DAY_S=SECONDS runs
#     only the first SECONDS of the day (default 600; 86400 is the whole
#     day) and extrapolates the wall time linearly.
#  4. experiments/scale/mem_8p8d.json at 1 M and 10 M generated requests:
#     peak memory of each and their ratio; budget 2 (memory follows what
#     is live, not the requests or block ids seen).
# Ratios are medians over BENCH_REPEAT (default 7) interleaved rounds:
# single runs on a shared or virtual machine move by a quarter, and a
# round of the three sizes takes well under a second.
. "$(dirname "$0")/lib.sh"
FLOOR=${FLOOR:?set FLOOR to the trace_floor program (make bench builds it)}
trace=$(trace_file conversation_trace)
out="$ROOT/build/bench/scale"
fresh_dir "$out"
rep=${BENCH_REPEAT:-7}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
r3() { awk -v x="$1" 'BEGIN { printf "%.3f", x }'; }
json_num() { sed -n "s/^ *\"$2\": *\([0-9.eE+-]*\),*$/\1/p" "$1" | head -1; }
# cpu_of NAME SETS...: CPU seconds of one run of the conversation replay
# at 8P+8D with SETS applied, in $out/NAME.
cpu_of() {
    name=$1; shift
    "$BIN" run "$ROOT/experiments/conversation_8p8d.json" --quiet --force --out "$out/$name" "$@" || exit 1
    json_num "$out/$name/timing.json" cpu_s
}
# Rounds of the four measurements interleaved, so that a machine whose
# speed drifts moves every ratio's two sides alike; each ratio is the
# median of its per-round ratios.
i=0
while [ $i -lt "$rep" ]; do
    f=$("$FLOOR" "$trace" | sed 's/.*lines, \([0-9.]*\) s cpu.*/\1/')
    c8=$(cpu_of p8) || exit 1
    c64=$(cpu_of p64 --set cluster.prefill=64 --set cluster.decode=64 --set trace.speed=8) || exit 1
    c512=$(cpu_of p512 --set cluster.prefill=512 --set cluster.decode=512 --set trace.speed=64) || exit 1
    echo "$f $c8 $c64 $c512"
    i=$((i + 1))
done > "$out/rounds.txt"
n8=$(json_num "$out/p8/summary.json" total)
n64=$(json_num "$out/p64/summary.json" total)
n512=$(json_num "$out/p512/summary.json" total)
col() { awk -v k="$1" '{ print $k }' "$out/rounds.txt" | median; }
ratio() { awk -v a="$1" -v b="$2" -v na="$3" -v nb="$4" '{ print ($a / na) / ($b / nb) }' "$out/rounds.txt" | median; }
floor=$(col 1)
c8=$(col 2)
r8=$(ratio 2 1 1 1)
echo "conversation replay, 8P+8D kvcentric: $(r3 "$c8") s cpu; physical trace-reading floor $(r3 "$floor") s; ratio $(awk -v x="$r8" 'BEGIN { printf "%.2f", x }') (budget 6; medians of $rep interleaved rounds)"
over "$r8" 6
us() { awk -v a="$1" -v n="$2" 'BEGIN { printf "%.1f", a / n * 1e6 }'; }
r64=$(ratio 3 2 "$n64" "$n8")
echo "CPU per request, 64P+64D at 8x speed: $(us "$(col 3)" "$n64") us vs $(us "$c8" "$n8") us at 8P+8D: ratio $(awk -v x="$r64" 'BEGIN { printf "%.2f", x }') (budget 1.2)"
over "$r64" 1.2
r512=$(ratio 4 2 "$n512" "$n8")
echo "CPU per request, 512P+512D at 64x speed: $(us "$(col 4)" "$n512") us: ratio $(awk -v x="$r512" 'BEGIN { printf "%.2f", x }') (budget 1.5)"
over "$r512" 1.5
day_s=${BENCH_DAY_S:-600}
nreq=$((day_s * 100))
for k in 1 2; do
    "$BIN" run "$ROOT/experiments/scale/day_1024.json" --quiet --force --out "$out/day$k" \
        --set trace.generator.requests=$nreq || exit 1
done
same=identical
for f in summary.json requests.csv timeseries.csv; do
    cmp -s "$out/day1/$f" "$out/day2/$f" || same="DIFFERENT ($f)"
done
w=$(json_num "$out/day1/timing.json" wall_s)
c=$(json_num "$out/day1/timing.json" cpu_s)
m=$(json_num "$out/day1/timing.json" peak_rss_mib)
full=$(awk -v w="$w" -v s="$day_s" 'BEGIN { printf "%.0f", w * 86400 / s }')
echo "day_1024, first $day_s s of the day ($nreq requests, 512P+512D): $(r3 "$w") s wall, $(r3 "$c") s cpu, peak $(r3 "$m") MiB; outputs of two runs $same"
echo "  the whole day: $full s wall$( [ "$day_s" = 86400 ] || echo ' (extrapolated)') (budget 90 s), peak $(r3 "$m") MiB (budget 4096)"
over "$full" 90
over "$m" 4096
[ "$same" = identical ] || n_over=$((n_over + 1))
# 4. Memory against run length: peak memory of 1 M and of 10 M generated
#    requests (BENCH_MEM_N, default 10000000) on 8P+8D; budget ratio 2.
mem_n=${BENCH_MEM_N:-10000000}
for n in 1000000 "$mem_n"; do
    "$BIN" run "$ROOT/experiments/scale/mem_8p8d.json" --quiet --force --out "$out/mem$n" \
        --set trace.generator.requests="$n" || exit 1
    rm -f "$out/mem$n/requests.csv" # 2 GB at 10 M requests; only the memory is compared
done
m1=$(json_num "$out/mem1000000/timing.json" peak_rss_mib)
mn=$(json_num "$out/mem$mem_n/timing.json" peak_rss_mib)
mratio=$(awk -v a="$mn" -v b="$m1" 'BEGIN { printf "%.2f", a / b }')
echo "mem_8p8d peak memory: 1000000 requests $(r3 "$m1") MiB, $mem_n requests $(r3 "$mn") MiB: ratio $mratio (budget 2)"
over "$mratio" 2
bench_end "scale measurement(s)"
