#!/bin/sh
# TTFT against kvcache_balancing_threshold (the paper gives no value): the
# Conductor on the conversation trace, 8P + 8D, global pool, on the paper's
# RDMA network and on TCP at 100 Gbps with 1.5x the load.
# Writes results/fast25/threshold_sweep.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/threshold_work"
fresh_dir "$W"
trace_file conversation_trace >/dev/null
EXP="$ROOT/experiments/fast25/fig5_scheduling.json"
echo "network,threshold,ttft_mean_s,ttft_p90_s,hit_rate,fetches" >"$W/rows.csv"
for net in rdma tcp; do
    extra=""
    [ "$net" = tcp ] && extra="--set network.transport=tcp --set network.nic_gbps=100 --set trace.speed=1.5"
    for th in 1 1.1 1.25 1.5 2 3 5 1000000; do
        d="$W/${net}_$th"
        # shellcheck disable=SC2086
        "$BIN" run "$EXP" --quiet --out "$d" --set scheduler.kvcache_balancing_threshold=$th \
            --set scheduler.slo_reject=0 $extra
        st=$(ttft_stats "$d/requests.csv")
        hit=$(sed -n 's/^ *"hit_rate_tokens": *\([0-9.eE+-]*\),*$/\1/p' "$d/summary.json")
        fl=$(awk -F, 'NR > 1 && $21 > 0 { n++ } END { print n + 0 }' "$d/requests.csv")
        echo "$net,$th,${st%,*},$hit,$fl" >>"$W/rows.csv"
    done
done
mv "$W/rows.csv" "$OUT/threshold_sweep.csv"
awk -F, 'NR == 1 { next } { th = $2 == 1000000 ? "inf (never fetch)" : $2;
    printf "| %s | %s | %.3f | %.3f | %.3f | %d |\n", $1, th, $3, $4, $5, $6 }' "$OUT/threshold_sweep.csv" |
    { echo "| network | threshold | mean TTFT s | p90 TTFT s | hit rate | fetches |"
      echo "|---|---:|---:|---:|---:|---:|"; cat; } >"$OUT/threshold_sweep.md"
gnuplot -e "datafile='$OUT/threshold_sweep.csv'; outfile='$OUT/threshold_sweep.png'" "$ROOT/plots/threshold_sweep.gp"
cat "$OUT/threshold_sweep.md"
