# plots/threshold_sweep.gp: mean TTFT against kvcache_balancing_threshold.
# Input: datafile (network,threshold,ttft_mean_s,..., read by column name),
# outfile.
set terminal pngcairo size 700,450 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set logscale x
set xrange [0.9:7]
set xlabel "kvcache_balancing_threshold (never fetching drawn at 6)"
set ylabel "mean TTFT (s)"
set key top left
set grid
set title "Conductor on the conversation trace, 8P+8D"
# x of network net's rows: the threshold, never fetching (1000000) at 6
x(net) = strcol("network") eq net ? (column("threshold") > 1000 ? 6 : column("threshold")) : NaN
plot datafile using (x("rdma")):"ttft_mean_s" with linespoints lw 2 pt 7 title "RDMA 800 Gbps", \
     datafile using (x("tcp")):"ttft_mean_s" with linespoints lw 2 pt 5 title "TCP 100 Gbps, 1.5x load"
