#!/bin/sh
# Traces: conversation_trace
# arXiv Fig. 9: mean prefill load and mean decode load over time on a
# 20-node cluster under early and under predictive rejection, and the
# correlation of the two series (negative: anti-phase swings).
# The two runs are the points of fig9_fluctuation.sweep.json; loads are
# sampled every metrics.interval_s (15 s, as in the paper) into each
# point's timeseries.csv. The correlation and the means cover the arrival
# window only: the samples from the trace's first to its last arrival
# (requests.csv's arrival_s, rejected requests included); after the last
# arrival the cluster only drains, which is pipeline lag, not admission.
# fig9_fluctuation.csv keeps every sample (in_window marks the window's);
# sweep.csv (rejections, goodput), requests.csv and timeseries.csv are
# read by their header names.
# Writes results/arxiv/fig9_fluctuation.{csv,md,png}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/arxiv"
W="$OUT/fig9_work"
trace_file conversation_trace >/dev/null
sweep "$ROOT/experiments/arxiv/fig9_fluctuation.sweep.json" "$W"
echo "policy,time_s,prefill_load,decode_load,in_window" >"$OUT/fig9_fluctuation.csv"
echo "| policy | sampling s | samples (arrival window) | arrival window s | correlation (prefill, decode load) | mean prefill load | mean decode load | rejected at arrival | goodput req/s |" >"$W/md"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|" >>"$W/md"
col "$W/sweep.csv" admission.policy dir requests.rejected_at_arrival goodput_rps | while IFS=, read -r p d rej gp; do
    # the arrival window: first and last arrival_s of requests.csv
    win=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
                             if (!("arrival_s" in c)) { print "fig9: requests.csv has no arrival_s" > "/dev/stderr"; exit 1 }
                             next }
                   { a = $c["arrival_s"] + 0; if (n++ == 0 || a < lo) lo = a; if (a > hi) hi = a }
                   END { if (!n) { print "fig9: no requests" > "/dev/stderr"; exit 1 }
                         printf "%.6f %.6f", lo, hi }' "$W/$d/requests.csv")
    # every sample to the CSV; correlation and means over the window's
    awk -F, -v p="$p" -v win="$win" -v rej="$rej" -v gp="$gp" -v csv="$OUT/fig9_fluctuation.csv" -v md="$W/md" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
                  split("time_s prefill_load_mean decode_load_mean", need, " ")
                  for (k in need) if (!(need[k] in c)) { print "fig9: timeseries.csv has no " need[k] > "/dev/stderr"; bad = 1; exit 1 }
                  split(win, w, " "); next }
        { t = $c["time_s"] + 0; x = $c["prefill_load_mean"] + 0; y = $c["decode_load_mean"] + 0
          if (rows++) dt = (dt ? dt : t - last); last = t
          in_w = (t >= w[1] && t <= w[2])
          printf "%s,%s,%s,%s,%d\n", p, $c["time_s"], $c["prefill_load_mean"], $c["decode_load_mean"], in_w >> csv
          if (in_w) { n++; sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y } }
        END { if (bad) exit 1
              if (n < 3) { printf "fig9: %s: %d samples in the arrival window\n", p, n > "/dev/stderr"; exit 1 }
              if (dt != 15) printf "fig9: %s: loads sampled every %g s, not the paper'"'"'s 15 s\n", p, dt > "/dev/stderr"
              d = sqrt((n * sxx - sx * sx) * (n * syy - sy * sy)); r = (d > 0 ? (n * sxy - sx * sy) / d : 0)
              printf "| %s | %g | %d | %.0f-%.0f | %.3f | %.3f | %.3f | %d | %.3f |\n", p, dt, n, w[1], w[2], r, sx / n, sy / n, rej, gp >> md
              printf "fig9: %s: %d samples every %g s over the arrivals %.0f-%.0f s, correlation %.3f\n", p, n, dt, w[1], w[2], r }' \
        "$W/$d/timeseries.csv"
done
mv "$W/md" "$OUT/fig9_fluctuation.md"
gnuplot -e "datafile='$OUT/fig9_fluctuation.csv'; outfile='$OUT/fig9_fluctuation.png'; pdffile='$OUT/fig9_fluctuation.pdf'" "$ROOT/plots/fig9_fluctuation.gp"
cat "$OUT/fig9_fluctuation.md"
