# plots/fig15_pd_ratio.gp: FAST'25 Fig. 15: the P/D split of 16 nodes on
# the synthetic trace: (a) effective request share (TTFT <= 10 s, TBT <=
# 0.1 s), (b) mean TTFT, (c) mean TBT, per number of prefill nodes, at 1x
# and at the speed s2 (experiments/fast25/fig15_pd_ratio.sh). The shaded
# band is the paper's range of splits, 5P+11D to 11P+5D.
# Input: datafile (speed,prefill,decode,effective_share,ttft_mean_s,
# tbt_mean_s,tbt_req_mean_s,..., read by column name), outfile, s2 (the
# second speed); pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 7.0
fig_h = 2.7
set datafile separator ","
set datafile columnheaders
# at(s, y): column y of the rows at speed s, NaN elsewhere
at(s, y) = (abs(column("speed") - s) < 1e-9 ? column(y) : NaN)
l1 = "1× (recorded timestamps)"
l2 = sprintf("%g× (capacity of 8P+8D)", s2)
set xrange [0.5:15.5]
fig_xsp = 8.5
fig_lm = 7
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set xtics 1, 2, 15
    set mxtics 2
    set xlabel "prefill nodes (of 16)"
    eval fig_layout(1, 3, 2 + fig_key_top(5, 26))
    set object 1 rect from 5, graph 0 to 11, graph 1 behind fc rgb "#ececec" fs solid 1.0 noborder
    set title "(a) effective request share"
    set ylabel "share within the SLOs"
    set yrange [0:1]
    set ytics 0.2
    plot datafile using "prefill":(at(1, "effective_share")) with linespoints ls 1 notitle, \
         datafile using "prefill":(at(s2, "effective_share")) with linespoints ls 2 notitle
    set title "(b) mean TTFT"
    set ylabel "TTFT (s)"
    set yrange [0:*]
    set ytics autofreq
    plot datafile using "prefill":(at(1, "ttft_mean_s")) with linespoints ls 1 notitle, \
         datafile using "prefill":(at(s2, "ttft_mean_s")) with linespoints ls 2 notitle
    set title "(c) mean TBT"
    set ylabel "TBT (ms)"
    plot datafile using "prefill":(1000 * at(1, "tbt_req_mean_s")) with linespoints ls 1 notitle, \
         datafile using "prefill":(1000 * at(s2, "tbt_req_mean_s")) with linespoints ls 2 notitle, \
         datafile using "prefill":(1000 * at(1, "tbt_mean_s")) with linespoints lc rgb c_blue lw 1.5 dt (4, 3) pt 6 ps 0.5 notitle, \
         datafile using "prefill":(1000 * at(s2, "tbt_mean_s")) with linespoints lc rgb c_vermillion lw 1.5 dt (4, 3) pt 4 ps 0.5 notitle
    eval fig_key_panel
    plot [0:1][0:1] NaN with linespoints ls 1 title l1, NaN with linespoints ls 2 title l2, \
        NaN with lines lc rgb c_black lw 2 title "TBT per request (c)", \
        NaN with lines lc rgb c_black lw 1.5 dt (4, 3) title "TBT per interval (c)", \
        NaN with boxes fs solid 1.0 noborder lc rgb "#ececec" title "the paper's splits"
    unset multiplot
}
