# plots/capacity.gp: FAST'25 effective request capacity: the share of all
# requests within TTFT <= 30 s and the TBT SLO, per system and TBT SLO, 16
# nodes each, conversation and synthetic traces (experiments/fast25/capacity.sh).
# Input: datafile (trace,system,tbt_slo_s,effective_capacity,..., read by
# column name), outfile; pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 7.0
fig_h = 2.8
set datafile separator ","
set datafile columnheaders
systems = "mooncake vllm vllm_pc vllm_cp"
traces = "conversation synthetic"
# bars: one group per TBT SLO, one bar per system
slo_x(t) = t < 0.15 ? 0 : t < 0.25 ? 1 : 2
sys_i(s) = s eq "mooncake" ? 0 : s eq "vllm" ? 1 : s eq "vllm_pc" ? 2 : 3
bw = 0.19
bar_x(s) = slo_x(column("tbt_slo_s")) + (sys_i(s) - 1.5) * (bw + 0.01)
set xrange [-0.5:2.5]
set yrange [0:100]
set ytics 20
set boxwidth bw absolute
fig_xsp = 3
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set ytics 20
    set xtics ("100 ms" 0, "200 ms" 1, "300 ms" 2) scale 0
    set grid noxtics ytics
    eval fig_layout(1, 2, 2 + fig_key_top(4, 22))
    do for [t in traces] {
        set title t." trace, 16 nodes"
        set xlabel "TBT SLO"
        if (t eq "conversation") { set ylabel "effective request capacity (%)"; set format y "%g" } else { unset ylabel; set format y "" }
        plot for [s in systems] datafile using \
            ((strcol("trace") eq t && strcol("system") eq s) ? bar_x(s) : NaN):(100 * column("effective_capacity")) \
            with boxes fs solid 1.0 border rgb "#333333" lc rgb sys_colour(s) notitle
    }
    eval fig_key_panel
    plot [0:1][0:1] for [s in systems] NaN with boxes fs solid 1.0 border rgb "#333333" lc rgb sys_colour(s) title sys_label(s)
    unset multiplot
}
