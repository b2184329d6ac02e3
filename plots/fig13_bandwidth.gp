# plots/fig13_bandwidth.gp: mean TTFT against NIC bandwidth, global pool vs
# recompute, with the pool's theoretical and real P->D transfer times.
# Input: datafile (nic_gbps,ttft_pool_s,ttft_recompute_s,hit_rate,
# fetched_gbytes,theoretical_transfer_s,real_transfer_s,..., read by column
# name), outfile.
set terminal pngcairo size 700,450 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set logscale x
set logscale y
set xlabel "NIC bandwidth per node (Gbps)"
set ylabel "seconds"
set key outside right top
set grid
set title "synthetic trace, 12P+12D"
plot datafile using "nic_gbps":"ttft_pool_s" with linespoints lw 2 pt 7 title "TTFT, global pool", \
     datafile using "nic_gbps":"ttft_recompute_s" with linespoints lw 2 pt 5 title "TTFT, recompute", \
     datafile using "nic_gbps":"theoretical_transfer_s" with linespoints lw 1 dt 2 pt 4 title "transfer, theoretical", \
     datafile using "nic_gbps":"real_transfer_s" with linespoints lw 1 dt 3 pt 6 title "transfer, real"
