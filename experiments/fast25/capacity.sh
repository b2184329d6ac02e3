#!/bin/sh
# Traces: conversation_trace synthetic_trace
# FAST'25 effective request capacity: Mooncake against vllm, vllm_pc and
# vllm_cp, 16 nodes each, on the conversation and synthetic traces: the
# share of all requests with TTFT <= 30 s and TBT (mean of a request's
# longest 10% of intervals) <= 0.1, 0.2 and 0.3 s, and the mean prefill GPU
# time per request (8 GPUs x node-seconds). Mooncake runs once per TBT SLO
# (its Conductor and inlining use it: capacity_mooncake.sweep.json); the
# vLLM baselines ignore SLOs, so one run serves all three
# (capacity_vllm.sweep.json). Writes results/fast25/capacity.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/capacity_work"
fresh_dir "$W"
for t in conversation synthetic; do trace_file ${t}_trace >/dev/null; done
sweep "$ROOT/experiments/fast25/capacity_mooncake.sweep.json" "$W/mooncake"
sweep "$ROOT/experiments/fast25/capacity_vllm.sweep.json" "$W/vllm"
# points SWEEP AXIS TRACE: "AXIS value,point folder,mean prefill GPU-s per
# request" per point of the sweep in folder SWEEP on TRACE
points() {
    col "$1/sweep.csv" trace.path "$2" dir prefill.busy_s requests.total |
        awk -F, -v w="$1" -v t="$3" '$1 ~ "/" t "_trace" { printf "%s,%s/%s,%.2f\n", $2, w, $3, 8 * $4 / $5 }'
}
echo "trace,system,tbt_slo_s,effective_capacity,prefill_gpu_s_per_request" >"$W/rows.csv"
for t in conversation synthetic; do
    points "$W/mooncake" slo.tbt_s "$t" | while IFS=, read -r tbt d g; do
        echo "$t,mooncake,$tbt,$(capacity "$d/requests.csv" "$tbt"),$g"
    done
    points "$W/vllm" system.kind "$t" | while IFS=, read -r s d g; do
        for tbt in 0.1 0.2 0.3; do
            echo "$t,$s,$tbt,$(capacity "$d/requests.csv" "$tbt"),$g"
        done
    done
done >>"$W/rows.csv"
mv "$W/rows.csv" "$OUT/capacity.csv"
awk -F, 'NR == 1 { next } { k = $1 "," $2; if (!(k in seen)) { seen[k] = 1; keys[++n] = k; g[k] = $5 } v[k, $3] = $4 }
    END { print "| trace | system | TBT <= 0.1 s | TBT <= 0.2 s | TBT <= 0.3 s | prefill GPU-s / request (s on one 8-GPU node) |";
          print "|---|---|---:|---:|---:|---:|";
          for (i = 1; i <= n; i++) { split(keys[i], p, ",");
              printf "| %s | %s | %.3f | %.3f | %.3f | %s (%.2f) |\n", p[1], p[2], v[keys[i], "0.1"],
                  v[keys[i], "0.2"], v[keys[i], "0.3"], g[keys[i]], g[keys[i]] / 8 } }' "$OUT/capacity.csv" >"$OUT/capacity.md"
published_csv "$W/published.csv" fast25_fig7 fast25_fig8
gnuplot -e "datafile='$OUT/capacity.csv'; pubfile='$W/published.csv'; outfile='$OUT/capacity.png'; pdffile='$OUT/capacity.pdf'" "$ROOT/plots/capacity.gp"
cat "$OUT/capacity.md"
