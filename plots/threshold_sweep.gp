# plots/threshold_sweep.gp: mean TTFT against kvcache_balancing_threshold.
# Input: datafile (network,threshold,ttft_mean_s,...), outfile.
set terminal pngcairo size 700,450 font ",11" noenhanced
set output outfile
set datafile separator ","
set logscale x
set xrange [0.9:7]
set xlabel "kvcache_balancing_threshold (never fetching drawn at 6)"
set ylabel "mean TTFT (s)"
set key top left
set grid
set title "Conductor on the conversation trace, 8P+8D"
plot datafile using (strcol(1) eq "rdma" ? ($2 > 1000 ? 6 : $2) : NaN):3 with linespoints lw 2 pt 7 title "RDMA 800 Gbps", \
     datafile using (strcol(1) eq "tcp" ? ($2 > 1000 ? 6 : $2) : NaN):3 with linespoints lw 2 pt 5 title "TCP 100 Gbps, 1.5x load"
