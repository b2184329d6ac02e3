# plots/capacity.gp: FAST'25 effective request capacity: the share of all
# requests within TTFT <= 30 s and the TBT SLO, per system and TBT SLO, 16
# nodes each, conversation and synthetic traces (Figs. 1, 6 and 7), and the
# prefill time per request on one 8-GPU node (Fig. 8: the simulator's
# prefill GPU-seconds / 8), per trace (experiments/fast25/capacity.sh).
# The papers' published values are black marks on the bars they match.
# Input: datafile (trace,system,tbt_slo_s,effective_capacity,
# prefill_gpu_s_per_request, read by column name), pubfile (set,series,x,
# value: experiments/published.json's fast25_fig7 and fast25_fig8), outfile;
# pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 7.0
fig_h = 2.9
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
stats datafile using (column("prefill_gpu_s_per_request") / 8) nooutput
gpu_max = STATS_max
stats pubfile using (strcol("set") eq "fast25_fig8" ? column("value") : NaN) nooutput
gpu_max = STATS_max > gpu_max ? STATS_max : gpu_max
gpu_top = fig_nice(gpu_max / 4) * ceil(gpu_max * 1.1 / fig_nice(gpu_max / 4))
trace_x(t) = t eq "conversation" ? 0 : 1
fig_xsp = 6.5
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set ytics 20
    set grid noxtics ytics
    eval fig_layout(1, 3, 2 + fig_key_top(5, 26))
    set xrange [-0.5:2.5]
    set yrange [0:100]
    set xtics ("100 ms" 0, "200 ms" 1, "300 ms" 2) scale 0
    do for [t in traces] {
        set title t." trace, 16 nodes"
        set xlabel "TBT SLO"
        if (t eq "conversation") { set ylabel "effective request capacity (%)"; set format y "%g" } else { unset ylabel; set format y "" }
        # the published values (FAST'25 Fig. 7, synthetic trace) on their bars
        plot for [s in systems] datafile using \
            ((strcol("trace") eq t && strcol("system") eq s) ? bar_x(s) : NaN):(100 * column("effective_capacity")) \
            with boxes fs solid 1.0 border rgb "#333333" lc rgb sys_colour(s) notitle, \
            for [s in systems] pubfile using \
            ((strcol("set") eq "fast25_fig7" && t eq "synthetic" && strcol("series") eq s) ? \
                slo_x(column("x")) + (sys_i(s) - 1.5) * (bw + 0.01) : NaN):(100 * column("value")) \
            with points pt 7 ps 0.6 lc rgb c_black notitle
    }
    # (c) FAST'25 Fig. 8: prefill time per request on one node, per trace
    set title "prefill time per request"
    set xrange [-0.5:1.5]
    set xtics ("conversation" 0, "synthetic" 1) scale 0
    set xlabel "trace"
    set yrange [0:gpu_top]
    set ytics autofreq
    set format y "%g"
    set ylabel "s on one 8-GPU node" offset 1, 0
    plot for [s in systems] datafile using \
            ((strcol("system") eq s && abs(column("tbt_slo_s") - 0.1) < 1e-9) ? \
                trace_x(strcol("trace")) + (sys_i(s) - 1.5) * 0.2 : NaN):(column("prefill_gpu_s_per_request") / 8) \
            with boxes fs solid 1.0 border rgb "#333333" lc rgb sys_colour(s) notitle, \
        for [s in systems] pubfile using \
            ((strcol("set") eq "fast25_fig8" && strcol("series") eq s) ? \
                trace_x(strcol("x")) + (sys_i(s) - 1.5) * 0.2 : NaN):"value" \
            with points pt 7 ps 0.6 lc rgb c_black notitle
    set ylabel offset 0.5, 0
    eval fig_key_panel
    plot [0:1][0:1] for [s in systems] NaN with boxes fs solid 1.0 border rgb "#333333" lc rgb sys_colour(s) title sys_label(s), \
        NaN with points pt 7 ps 0.6 lc rgb c_black title "published (FAST'25 Figs. 7, 8)"
    unset multiplot
}
