#!/bin/sh
# Traces: synthetic_trace
# FAST'25 Fig. 15: the P/D split of 16 nodes on the synthetic trace (TTFT
# <= 10 s, TBT <= 0.1 s): effective request share, mean TTFT and mean TBT
# per split, at two replay speeds: fig15_pd_ratio.sweep.json (every split)
# at 1x and at s*, found by fig15_speed.sweep.json. Writes
# results/fast25/fig15_pd_ratio.{csv,md,png}.
#
# Replay speed. The paper does not state the rate of Fig. 15. Two speeds
# are run, each fixed by a definition, not chosen for the curve's shape:
#  - 1x, the trace's own timestamps: how the paper replays its traces
#    ("requests are dispatched according to these timestamps").
#  - s*, the effective capacity of the 1:1 split (8P+8D, about Mooncake's
#    best per the paper and the split of the capacity runs): the highest
#    speed, in steps of 0.1 from 1x up to 3x, at which 8P+8D still has at
#    least 99% of the effective requests it has at 1x, i.e. load costs it
#    at most 1% of them. The criterion is relative because about 16% of
#    requests miss the TBT SLO at any load (short answers to long prompts
#    whose first interval carries the decode node's DRAM->VRAM load of
#    their KV), so an absolute share such as 99% is never reached.
# Splits: every one from 1P+15D to 15P+1D; the paper's 5P+11D..11P+5D is a
# sub-range. The wider range shows where the decode pool starts to bind:
# on this trace a prefill node serves about 1.35 requests/s (0.74 s of a
# node each) and a decode node 8-12 (its TBT SLO starts to bind between
# 7.8 and 11.7 requests/s on one node), so the decode pool binds only
# with 1-2 nodes (docs/experiments.md, Fig. 15 results).
#
# Columns besides the paper's three: the mean per-request TBT (the paper's
# TBT: mean of a request's longest 10% of intervals) next to the mean over
# all intervals; requests lost to TTFT (rejected at arrival, or TTFT over
# the SLO) and to TBT (of them, answers under 20 tokens); mean decode
# batch (per iteration); mean prefill queueing (arrival to prefill start,
# 0.05 s of scheduling included); prefill busy share (node-time busy over
# prefill nodes x trace span; above 1 when prefill runs on after the last
# arrival).
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig15_work"
E="$ROOT/experiments/fast25"
fresh_dir "$W"
trace_file synthetic_trace >/dev/null

# s*: 8P+8D at 1x to 3x in steps of 0.1 (fig15_speed.sweep.json); s* is
# the speed before the first that falls below 99% of its effective
# requests at 1x. pick: "s* point-folder".
sweep "$E/fig15_speed.sweep.json" "$W/speed"
pick=$(col "$W/speed/sweep.csv" trace.speed slo.met dir | awk -F, 'NR == 1 { met1 = $2 }
    $2 < 0.99 * met1 { printf "%.1f %s\n", s, d; exit } { s = $1; d = $3 }')
[ -n "$pick" ] || { echo "$0: no capacity speed within fig15_speed.sweep.json's speeds" >&2; exit 1; }
star=${pick%% *}

# Every split (fig15_pd_ratio.sweep.json) at 1x, its base's speed, and at
# s*: the same spec run from a folder where its base, fig15_pd_ratio.json,
# is the effective config (config.json) of the s* point, 8P+8D at s*.
sweep "$E/fig15_pd_ratio.sweep.json" "$W/x1.0"
mkdir "$W/star"
cp "$W/speed/${pick#* }/config.json" "$W/star/fig15_pd_ratio.json"
cp "$E/fig15_pd_ratio.sweep.json" "$W/star/"
sweep "$W/star/fig15_pd_ratio.sweep.json" "$W/x$star"

# rows SPEED SWEEP: one CSV row per split of the sweep in folder SWEEP
rows() {
    col "$2/sweep.csv" dir cluster.prefill cluster.decode slo.effective_request_capacity ttft_s.mean \
        tbt_s.mean tbt_top10_s.mean requests.rejected_at_arrival decode.mean_batch prefill.mean_queue_s \
        prefill.busy_s trace.span_s slo.ttft_s slo.tbt_s |
    while IFS=, read -r d p n share ttft tbt tbt10 rejected batch queue busy span ttft_slo tbt_slo; do
        lost=$(col "$2/$d/requests.csv" status ttft_s tbt_top10_s output_tokens |
            awk -F, -v a="$ttft_slo" -v b="$tbt_slo" '{
                if ($1 != "completed" || $2 > a) t++
                else if ($3 != "" && $3 > b) { d++; if ($4 < 20) s++ } }
            END { printf "%d,%d,%d", t, d, s }')
        busy=$(awk -v b="$busy" -v p="$p" -v s="$span" 'BEGIN { printf "%.3f", b / (p * s) }')
        echo "$1,$p,$n,$share,$ttft,$tbt,$tbt10,$rejected,$lost,$batch,$queue,$busy"
    done
}
echo "speed,prefill,decode,effective_share,ttft_mean_s,tbt_mean_s,tbt_req_mean_s,rejected,lost_ttft,lost_tbt,lost_tbt_short,decode_batch_mean,prefill_queue_s,prefill_busy" >"$W/rows.csv"
rows 1.0 "$W/x1.0" >>"$W/rows.csv"
rows "$star" "$W/x$star" >>"$W/rows.csv"
mv "$W/rows.csv" "$OUT/fig15_pd_ratio.csv"
{
    echo "Replay speeds: 1x (recorded timestamps) and ${star}x, the effective capacity of 8P+8D (highest speed, in 0.1 steps, with at least 99% of its effective requests at 1x). The paper's splits are 5P+11D to 11P+5D."
    echo
    echo "| speed | split | effective share | mean TTFT s | mean TBT per request ms | mean TBT per interval ms | rejected | lost to TTFT | lost to TBT (output < 20) | decode batch | prefill queue s | prefill busy |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -F, 'NR == 1 { next } { printf "| %.1fx | %dP+%dD | %.3f | %.3f | %.1f | %.1f | %d | %d | %d (%d) | %.1f | %.3f | %.2f |\n",
        $1, $2, $3, $4, $5, 1000 * $7, 1000 * $6, $8, $9, $10, $11, $12, $13, $14 }' "$OUT/fig15_pd_ratio.csv"
} >"$OUT/fig15_pd_ratio.md"
gnuplot -e "datafile='$OUT/fig15_pd_ratio.csv'; outfile='$OUT/fig15_pd_ratio.png'; pdffile='$OUT/fig15_pd_ratio.pdf'; s2=$star" "$ROOT/plots/fig15_pd_ratio.gp"
cat "$OUT/fig15_pd_ratio.md"
