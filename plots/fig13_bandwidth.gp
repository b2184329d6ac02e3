# plots/fig13_bandwidth.gp: mean TTFT against NIC bandwidth, global pool vs
# recompute. Input: datafile (nic_gbps,ttft_pool_s,ttft_recompute_s,...), outfile.
set terminal pngcairo size 700,450 font ",11" noenhanced
set output outfile
set datafile separator ","
set logscale x
set xlabel "NIC bandwidth per node (Gbps)"
set ylabel "mean TTFT (s)"
set key top right
set grid
set title "synthetic trace, 8P+8D"
plot datafile using 1:2 every ::1 with linespoints lw 2 pt 7 title "global KVCache pool", \
     datafile using 1:3 every ::1 with linespoints lw 2 pt 5 title "recompute"
