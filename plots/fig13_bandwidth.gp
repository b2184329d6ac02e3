# plots/fig13_bandwidth.gp: mean TTFT against NIC bandwidth, global pool vs
# recompute, with the pool's theoretical and real P->D transfer times.
# Input: datafile (nic_gbps,ttft_pool_s,ttft_recompute_s,hit_rate,
# fetched_gbytes,theoretical_transfer_s,real_transfer_s,...), outfile.
set terminal pngcairo size 700,450 font ",11" noenhanced
set output outfile
set datafile separator ","
set logscale x
set logscale y
set xlabel "NIC bandwidth per node (Gbps)"
set ylabel "seconds"
set key outside right top
set grid
set title "synthetic trace, 12P+12D"
plot datafile using 1:2 every ::1 with linespoints lw 2 pt 7 title "TTFT, global pool", \
     datafile using 1:3 every ::1 with linespoints lw 2 pt 5 title "TTFT, recompute", \
     datafile using 1:6 every ::1 with linespoints lw 1 dt 2 pt 4 title "transfer, theoretical", \
     datafile using 1:7 every ::1 with linespoints lw 1 dt 3 pt 6 title "transfer, real"
