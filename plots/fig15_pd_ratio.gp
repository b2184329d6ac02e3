# plots/fig15_pd_ratio.gp: effective request share and latency by P/D split.
# Input: datafile (prefill,decode,effective_share,ttft_mean_s,tbt_mean_s,...), outfile.
set terminal pngcairo size 1000,420 font ",11" noenhanced
set output outfile
set datafile separator ","
set multiplot layout 1,2
set xlabel "prefill nodes (of 16)"
set grid
set key off
set title "effective request share (TTFT <= 10 s, TBT <= 0.1 s)"
set yrange [0:1.05]
plot datafile every ::1 using 1:3 with linespoints lw 2 pt 7
set title "mean TTFT (s, left) and mean TBT (ms, right)"
set yrange [0:*]
set y2range [0:*]
set ytics nomirror
set y2tics
set key top right
plot datafile every ::1 using 1:4 axes x1y1 with linespoints lw 2 pt 7 title "TTFT", \
     datafile every ::1 using 1:($5 * 1000) axes x1y2 with linespoints lw 2 pt 5 title "TBT"
unset multiplot
