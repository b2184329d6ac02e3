# plots/fig13_bandwidth.gp: FAST'25 Fig. 13 style: mean TTFT against the
# NIC bandwidth per node, the global KVCache pool against recomputing every
# prompt, with the pool's P->D transfer time of the mean request,
# theoretical (its KV over one NIC) and real (prefill start to hand-off);
# synthetic trace, 12P+12D (experiments/fast25/fig13_bandwidth.sh).
# Input: datafile (nic_gbps,ttft_pool_s,ttft_recompute_s,hit_rate,
# fetched_gbytes,theoretical_transfer_s,real_transfer_s,..., read by column
# name), pubfile (set,series,x,value: FAST'25 Fig. 13's published values,
# experiments/published.json), outfile; pdffile (optional, see style.gp).
# The x tics are the bandwidths measured; the published values are open
# marks in the colour of the simulated line they match, the paper's
# recompute TTFT a dotted line.
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 5.2
fig_h = 3.7
set datafile separator ","
set datafile columnheaders
stats datafile using "nic_gbps" nooutput
xmin = STATS_min
xmax = STATS_max
# the x tics: every bandwidth measured
stats datafile using "nic_gbps" nooutput
n_bw = STATS_records
bw_tics = ""
do for [i = 1:n_bw] {
    stats datafile every ::i-1::i-1 using "nic_gbps" nooutput
    bw_tics = bw_tics.sprintf('%s"%g" %g', (i > 1 ? ", " : ""), STATS_min, STATS_min)
}
stats pubfile using (strcol("set") eq "fast25_fig13_recompute" ? column("value") : NaN) nooutput
recompute_pub = STATS_max
stats datafile using "theoretical_transfer_s" nooutput
ymin = fig_down125(STATS_min / 1.2)
stats datafile using (column("ttft_pool_s") > column("ttft_recompute_s") ? column("ttft_pool_s") : column("ttft_recompute_s")) nooutput
ymax = fig_up(STATS_max * 4)
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    set logscale xy
    set mxtics 10
    set mytics 10
    eval "set xtics (".bw_tics.")"
    set xrange [xmin / 1.15 : xmax * 1.15]
    set yrange [ymin:ymax]
    set xlabel "NIC bandwidth per node (Gbps)"
    set ylabel "time (s)"
    set title "synthetic trace, 12P+12D"
    set key outside top center horizontal Left reverse samplen 2.5 spacing 1.1 maxcols 2 width -2 noopaque
    plot datafile using "nic_gbps":"ttft_pool_s" with linespoints ls 11 title "TTFT, global KVCache pool", \
         datafile using "nic_gbps":"ttft_recompute_s" with linespoints ls 2 title "TTFT, recompute (no pool)", \
         datafile using "nic_gbps":"real_transfer_s" with linespoints lc rgb c_blue lw 1.5 dt (5, 3) pt 6 ps 0.5 title "P→D transfer, real", \
         datafile using "nic_gbps":"theoretical_transfer_s" with linespoints lc rgb c_blue lw 1.5 dt (1.5, 2.5) pt 4 ps 0.5 title "P→D transfer, theoretical", \
         pubfile using (strcol("set") eq "fast25_fig13_ttft" ? column("x") : NaN):"value" with points pt 6 ps 0.9 lc rgb c_black title "published (FAST'25 Fig. 13)", \
         pubfile using (strcol("set") eq "fast25_fig13_theory" || strcol("set") eq "fast25_fig13_real" ? column("x") : NaN):"value" with points pt 6 ps 0.9 lc rgb c_blue notitle, \
         recompute_pub with lines lc rgb c_vermillion lw 1.5 dt (1.5, 2.5) title "published recompute TTFT"
}
