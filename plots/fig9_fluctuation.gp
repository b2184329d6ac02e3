# plots/fig9_fluctuation.gp: arXiv Fig. 9 (early rejection) and its
# prediction-based counterpart: mean prefill and mean decode load over
# time, one panel per admission policy (experiments/arxiv/fig9_fluctuation.sh;
# 17P+3D, conversation trace at 3x). The dotted line marks the last
# arrival: after it the cluster only drains. The dashed line is load 1,
# where a pool reaches its SLO.
# Input: datafile (policy,time_s,prefill_load,decode_load,in_window, read by
# column name), outfile; pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 7.0
fig_h = 3.6
set datafile separator ","
set datafile columnheaders
policies = "early predictive"
# the arXiv paper's names (Table 3, Fig. 9)
title_of(p) = p eq "early" ? "Early Rejection" : "Early Rejection based on Prediction"
# the last sample inside the arrival window, per policy; the loads' maximum
array last[2]
do for [i = 1:2] {
    p = word(policies, i)
    stats datafile using ((strcol("policy") eq p && column("in_window") == 1) ? column("time_s") : NaN) nooutput
    last[i] = STATS_max
}
stats datafile using (column("prefill_load") > column("decode_load") ? column("prefill_load") : column("decode_load")) nooutput
ymax = 0.2 * ceil(STATS_max / 0.2 + 0.25)
stats datafile using "time_s" nooutput
xmax = 100 * ceil(STATS_max / 100)
set xrange [0:xmax]
set yrange [0:ymax]
set ytics 0.5
fig_ysp = 3.2
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set ytics 0.5
    eval fig_layout(2, 1, 2 + fig_key_top(3, 12))
    do for [i = 1:2] {
        p = word(policies, i)
        set title title_of(p)
        set ylabel "mean load (1 = SLO)"
        if (i == 2) { set xlabel "time (s)"; set format x "%g" } else { unset xlabel; set format x "" }
        set arrow 1 from last[i], graph 0 to last[i], graph 1 nohead lw 1.5 dt 3 lc rgb "#555555" back
        set label 1 "last arrival" at last[i], graph 0.93 right offset -0.5, 0 font ",8"
        plot datafile using (strcol("policy") eq p ? column("time_s") : NaN):"prefill_load" with lines ls 1 notitle, \
             datafile using (strcol("policy") eq p ? column("time_s") : NaN):"decode_load" with lines ls 2 notitle, \
             1 with lines lw 1.5 dt (6, 4) lc rgb c_black notitle
    }
    unset arrow 1
    unset label 1
    eval fig_key_panel
    plot [0:1][0:1] NaN with lines ls 1 title "prefill load", NaN with lines ls 2 title "decode load", \
        NaN with lines lw 1.5 dt (6, 4) lc rgb c_black title "SLO (load 1)"
    unset multiplot
}
