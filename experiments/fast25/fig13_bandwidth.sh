#!/bin/sh
# Traces: synthetic_trace
# FAST'25 Fig. 13 style: average TTFT against per-node NIC bandwidth (24 to
# 400 Gbps) on the synthetic trace with the global KVCache pool, against
# recomputing every prompt on the same cluster; with the theoretical P->D
# transfer time of the mean request (its KV over one NIC) and the real one
# (prefill start to hand-off), and the part of it left after prefill (what
# TTFT pays). The runs are the points of fig13_bandwidth.sweep.json (each
# bandwidth with the pool, then recomputing); sweep.csv and each point's
# requests.csv are read by their header names.
# Writes results/fast25/fig13_bandwidth.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/fig13_work"
trace_file synthetic_trace >/dev/null
sweep "$ROOT/experiments/fast25/fig13_bandwidth.sweep.json" "$W"
# means over completed requests of requests.csv columns named by its header:
# ttft, transfer (prefill start to hand-off), after (hand-off - prefill end),
# input tokens, fetched tokens (all requests)
means() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { f += $c["fetched_tokens"] }
        $c["status"] == "completed" { n++; t += $c["ttft_s"]; x += $c["transfer_s"]; k += $c["input_tokens"]
          if ($c["kv_ready_s"] != "") { m++; a += $c["kv_ready_s"] - $c["arrival_s"] - $c["queue_s"] - $c["prefill_s"] } }
        END { printf "%.4f,%.4f,%.4f,%.1f,%.1f", t / n, x / n, (m ? a / m : 0), k / n, f * 327680 / 1e9 }' "$1"
}
echo "nic_gbps,ttft_pool_s,ttft_recompute_s,hit_rate,fetched_gbytes,theoretical_transfer_s,real_transfer_s,transfer_after_prefill_s" >"$W/rows.csv"
# two rows of sweep.csv per bandwidth: the pool's (cache.enabled 1), then recomputing's
col "$W/sweep.csv" network.nic_gbps cache.enabled dir cache.hit_rate_tokens >"$W/points.csv"
while IFS=, read -r g on pool hit && IFS=, read -r _ off rec _; do
    [ "$on,$off" = "1,0" ] || { echo "$0: sweep.csv: $g Gbps is not pool then recompute" >&2; exit 1; }
    echo "$(means "$W/$pool/requests.csv")|$(means "$W/$rec/requests.csv")" | awk -F'[,|]' -v g="$g" -v h="$hit" \
        '{ printf "%d,%s,%s,%s,%s,%.4f,%s,%s\n", g, $1, $6, h, $5, $4 * 327680 / (g * 1e9 / 8), $2, $3 }'
done <"$W/points.csv" >>"$W/rows.csv"
mv "$W/rows.csv" "$OUT/fig13_bandwidth.csv"
awk -F, 'NR == 1 { next } { printf "| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f |\n", $1, $2, $3, $6, $7, $8, $4, $5 }' \
    "$OUT/fig13_bandwidth.csv" | { echo "| NIC Gbps | mean TTFT, global pool (s) | mean TTFT, recompute (s) | theoretical transfer (s) | real transfer (s) | transfer after prefill (s) | hit rate | fetched GB |"
      echo "|---:|---:|---:|---:|---:|---:|---:|---:|"; cat; } >"$OUT/fig13_bandwidth.md"
published_csv "$W/published.csv" fast25_fig13_ttft fast25_fig13_theory fast25_fig13_real fast25_fig13_recompute
gnuplot -e "datafile='$OUT/fig13_bandwidth.csv'; pubfile='$W/published.csv'; outfile='$OUT/fig13_bandwidth.png'; pdffile='$OUT/fig13_bandwidth.pdf'" "$ROOT/plots/fig13_bandwidth.gp"
cat "$OUT/fig13_bandwidth.md"
