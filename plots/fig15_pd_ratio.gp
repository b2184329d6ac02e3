# plots/fig15_pd_ratio.gp: effective request share, mean TTFT and mean TBT
# by P/D split of 16 nodes, at 1x and at the speed s2.
# Input: datafile (speed,prefill,decode,effective_share,ttft_mean_s,
# tbt_mean_s,tbt_req_mean_s,..., read by column name), outfile, s2 (the
# second speed).
set terminal pngcairo size 1500,430 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set multiplot layout 1,3
set xlabel "prefill nodes (of 16; the rest decode)"
set xrange [0.5:15.5]
set xtics 1,2,15
set grid
set key bottom center
# the paper's range, 5P+11D to 11P+5D
set object 1 rect from 5,graph 0 to 11,graph 1 behind fc rgb "#eeeeee" fs solid noborder
# at(s, y): column y of the rows at speed s, NaN elsewhere
at(s, y) = (abs(column("speed") - s) < 1e-9 ? column(y) : NaN)
l1 = "1x (recorded timestamps)"
l2 = sprintf("%gx (capacity of 8P+8D)", s2)
set title "effective request share (TTFT <= 10 s, TBT <= 0.1 s)"
set yrange [0:1.05]
plot datafile using "prefill":(at(1, "effective_share")) with linespoints lw 2 pt 7 lc 1 title l1, \
     datafile using "prefill":(at(s2, "effective_share")) with linespoints lw 2 pt 5 lc 2 title l2
set title "mean TTFT (s)"
set yrange [0:*]
set key top right
plot datafile using "prefill":(at(1, "ttft_mean_s")) with linespoints lw 2 pt 7 lc 1 title l1, \
     datafile using "prefill":(at(s2, "ttft_mean_s")) with linespoints lw 2 pt 5 lc 2 title l2
set title "mean TBT (ms): per request (solid), per interval (dashed)"
set key top left
plot datafile using "prefill":(1000 * at(1, "tbt_req_mean_s")) with linespoints lw 2 pt 7 lc 1 title l1, \
     datafile using "prefill":(1000 * at(s2, "tbt_req_mean_s")) with linespoints lw 2 pt 5 lc 2 title l2, \
     datafile using "prefill":(1000 * at(1, "tbt_mean_s")) with linespoints lw 1 dt 2 pt 6 lc 1 notitle, \
     datafile using "prefill":(1000 * at(s2, "tbt_mean_s")) with linespoints lw 1 dt 2 pt 4 lc 2 notitle
unset multiplot
