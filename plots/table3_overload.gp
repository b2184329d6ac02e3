# plots/table3_overload.gp: arXiv Table 3 as a figure: rejected requests
# and goodput per admission policy at load threshold 1, on 11P+3D and on
# 8P+8D (top), and the load threshold of Early Rejection and of its
# prediction-based counterpart on 11P+3D (bottom); conversation trace at
# 2.6x (experiments/arxiv/table3_overload.sh). Rejections count both those
# at arrival and those after prefill (only Baseline rejects after prefill).
# Input: datafile (table3_overload.csv, read by column name), outfile;
# pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 7.0
fig_h = 4.9
set datafile separator ","
set datafile columnheaders
# the policies at threshold 1, left to right, with the paper's names
policies = "none baseline early predictive predictive_oracle"
pol_x(p) = p eq "none" ? 0 : p eq "baseline" ? 1 : p eq "early" ? 2 : p eq "predictive" ? 3 : p eq "predictive_oracle" ? 4 : NaN
# the two splits' bars side by side around each policy's x
splits = "11P3D 8P8D"
split_label(sp) = sp eq "11P3D" ? "11P+3D" : sp eq "8P8D" ? "8P+8D" : sp
split_dx(sp) = sp eq "11P3D" ? -0.19 : 0.19
bw = 0.36
# the splits in greys: the colours are the policies' (c, d)
split_colour(sp) = sp eq "11P3D" ? "#555555" : "#BBBBBB"
at1(sp) = strcol("split") eq sp && abs(column("threshold") - 1) < 1e-9 && pol_x(strcol("policy")) == pol_x(strcol("policy"))
rej(d_) = column("rejected_at_arrival") + column("rejected_after_prefill")
# the threshold sweep: early and predictive (its system predictor) on 11P+3D
sweep(p) = strcol("split") eq "11P3D" && strcol("policy") eq p
pol_ls(p) = p eq "early" ? 2 : 1
pol_title(p) = p eq "early" ? "Early Rejection" : "Early Rejection based on Prediction"
stats datafile using (abs(column("threshold") - 1) < 1e-9 ? rej(0) : NaN) nooutput
rej_max = STATS_max
stats datafile using (abs(column("threshold") - 1) < 1e-9 ? column("goodput_rps") : NaN) nooutput
gp_max = STATS_max
# the sweep's rows of each policy (threshold, rejected, goodput; no header
# line), so that lines join only these
set table $sweep_early separator comma
plot datafile using "threshold":(rej(0)):"goodput_rps" with table if (sweep("early"))
set table $sweep_predictive separator comma
plot datafile using "threshold":(rej(0)):"goodput_rps" with table if (sweep("predictive"))
unset table
sweep_data(p) = p eq "early" ? "$sweep_early" : "$sweep_predictive"
fig_xsp = 9
fig_ysp = 7.5
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set datafile columnheaders
    eval fig_layout(2, 2, 2 + fig_key_top(4, 35))
    # (a), (b): threshold 1, bars per split
    set xrange [-0.6:4.6]
    set xtics ("none" 0, "Baseline" 1, "Early Rejection" 2, "Prediction-based" 3, "Prediction (oracle)" 4) \
        scale 0 rotate by 25 right offset 1, 0.2
    set grid noxtics ytics
    unset xlabel
    set boxwidth bw absolute
    set style fill solid 1.0 border -1
    set title "(a) rejected requests, threshold 1"
    set ylabel "rejected requests"
    set yrange [0:rej_max * 1.3]
    set ytics autofreq
    plot for [sp in splits] datafile using \
            (at1(sp) ? pol_x(strcol("policy")) + split_dx(sp) : NaN):(rej(0)) \
            with boxes lc rgb split_colour(sp) notitle, \
         for [sp in splits] datafile using \
            (at1(sp) ? pol_x(strcol("policy")) + split_dx(sp) : NaN):(rej(0)):(sprintf("%d", rej(0))) \
            with labels offset 0, 0.6 font ",7" notitle
    set title "(b) goodput, threshold 1"
    set ylabel "goodput (req/s)"
    set yrange [0:gp_max * 1.3]
    plot for [sp in splits] datafile using \
            (at1(sp) ? pol_x(strcol("policy")) + split_dx(sp) : NaN):"goodput_rps" \
            with boxes lc rgb split_colour(sp) notitle, \
         for [sp in splits] datafile using \
            (at1(sp) ? pol_x(strcol("policy")) + split_dx(sp) : NaN):"goodput_rps":(sprintf("%.1f", column("goodput_rps"))) \
            with labels offset 0, 0.6 font ",7" notitle
    # (c), (d): the load threshold on 11P+3D, from the datablocks
    set datafile nocolumnheaders
    set xrange [0.45:1.05]
    set xtics autofreq 0.1 scale 0.6, 0.3 norotate offset 0, 0
    set grid xtics ytics
    set xlabel "load threshold"
    set title "(c) rejected requests by threshold, 11P+3D"
    set ylabel "rejected requests"
    set yrange [0:*]
    plot for [p in "early predictive"] sweep_data(p) using 1:2 smooth unique with linespoints ls pol_ls(p) notitle
    set title "(d) goodput by threshold, 11P+3D"
    set ylabel "goodput (req/s)"
    # from 0, as (b), with room above the highest point
    set yrange [0:gp_max * 1.15]
    plot for [p in "early predictive"] sweep_data(p) using 1:3 smooth unique with linespoints ls pol_ls(p) notitle
    eval fig_key_panel
    plot [0:1][0:1] for [sp in splits] NaN with boxes lc rgb split_colour(sp) title split_label(sp), \
        for [p in "early predictive"] NaN with linespoints ls pol_ls(p) title pol_title(p)
    unset multiplot
}
