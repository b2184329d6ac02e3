# plots/fig14_breakdown.gp: one request's latency by prompt length, 0% and
# 95% cached, simulated (lines) against the paper's Fig. 14 (points).
# Input: datafile (fig14_breakdown.csv), outfile.
set terminal pngcairo size 1400,480 font ",11" noenhanced
set output outfile
set datafile separator ","
set multiplot layout 1,2
set logscale xy
set xlabel "prompt tokens"
set ylabel "seconds"
set key outside right top
set xrange [6000:180000]
set grid
do for [pct in "0 95"] {
    set title pct."% of the prefix cached"
    plot datafile using (strcol(1) eq pct ? $2 : NaN):3 with lines lw 2 lc 1 title "prefill (sim)", \
         datafile using (strcol(1) eq pct ? $2 : NaN):8 with points pt 7 lc 1 title "prefill (paper)", \
         datafile using (strcol(1) eq pct ? $2 : NaN):5 with lines lw 2 lc 2 title "KV stream (sim)", \
         datafile using (strcol(1) eq pct ? $2 : NaN):9 with points pt 7 lc 2 title "transfer (paper)", \
         datafile using (strcol(1) eq pct ? $2 : NaN):6 with lines lw 2 lc 3 title "decode-side load (sim)", \
         datafile using (strcol(1) eq pct ? $2 : NaN):10 with points pt 7 lc 3 title "load (paper)", \
         datafile using (strcol(1) eq pct ? $2 : NaN):7 with lines lw 2 lc 4 title "decode 128 (sim)", \
         datafile using (strcol(1) eq pct ? $2 : NaN):11 with points pt 7 lc 4 title "decode 128 (paper)"
}
unset multiplot
