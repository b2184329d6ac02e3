# plots/fig13_bandwidth.gp: FAST'25 Fig. 13 style: mean TTFT against the
# NIC bandwidth per node, the global KVCache pool against recomputing every
# prompt, with the pool's P->D transfer time of the mean request,
# theoretical (its KV over one NIC) and real (prefill start to hand-off);
# synthetic trace, 12P+12D (experiments/fast25/fig13_bandwidth.sh).
# Input: datafile (nic_gbps,ttft_pool_s,ttft_recompute_s,hit_rate,
# fetched_gbytes,theoretical_transfer_s,real_transfer_s,..., read by column
# name), outfile; pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 4.2
fig_h = 3.0
set datafile separator ","
set datafile columnheaders
stats datafile using "nic_gbps" nooutput
xmin = STATS_min
xmax = STATS_max
stats datafile using "theoretical_transfer_s" nooutput
ymin = fig_down125(STATS_min / 1.2)
stats datafile using (column("ttft_pool_s") > column("ttft_recompute_s") ? column("ttft_pool_s") : column("ttft_recompute_s")) nooutput
ymax = fig_up(STATS_max * 4)
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    set logscale xy
    set mxtics 10
    set mytics 10
    set xtics (25, 50, 100, 200, 400)
    set xrange [xmin / 1.15 : xmax * 1.15]
    set yrange [ymin:ymax]
    set xlabel "NIC bandwidth per node (Gbps)"
    set ylabel "time (s)"
    set title "synthetic trace, 12P+12D"
    set key top right Left reverse samplen 2.5 spacing 1.1 noopaque
    plot datafile using "nic_gbps":"ttft_pool_s" with linespoints ls 11 title "TTFT, global KVCache pool", \
         datafile using "nic_gbps":"ttft_recompute_s" with linespoints ls 2 title "TTFT, recompute (no pool)", \
         datafile using "nic_gbps":"real_transfer_s" with linespoints lc rgb c_blue lw 1.5 dt (5, 3) pt 6 ps 0.5 title "P→D transfer, real", \
         datafile using "nic_gbps":"theoretical_transfer_s" with linespoints lc rgb c_blue lw 1.5 dt (1.5, 2.5) pt 4 ps 0.5 title "P→D transfer, theoretical"
}
