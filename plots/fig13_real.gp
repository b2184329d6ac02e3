# plots/fig13_real.gp: arXiv real workload (Fig. 13): the CDFs of TTFT
# and TBT over the completed requests, Mooncake-[10P+10D] against
# vLLM-[20M] on the conversation trace (experiments/arxiv/fig13_real.sh).
# TBT is a request's tbt_top10_s, the mean of its longest 10% of intervals
# (the TBT the SLO judges).
# Input: datafile (system,metric,value_s,cdf, read by column name), outfile;
# pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 6.0
fig_h = 2.6
set datafile separator ","
set datafile columnheaders
systems = "mooncake vllm"
# the run's systems by the paper's names: 10P+10D and 20 vLLM instances
label(s) = s eq "mooncake" ? sys_label("mooncake_10p10d") : sys_label("vllm_20m")
set yrange [0:1]
set ytics 0.2
fig_xsp = 4.5
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set logscale x
    set mxtics 10
    eval fig_layout(1, 2, 0.6 + fig_key_top(2, 18))
    do for [m in "ttft tbt"] {
        set xlabel (m eq "ttft" ? "TTFT (s)" : "TBT per request, slowest 10% of intervals (s)")
        if (m eq "ttft") { set ylabel "CDF of completed requests"; set format y "%g" } else { unset ylabel; set format y "" }
        plot for [s in systems] datafile using \
            ((strcol("system") eq s && strcol("metric") eq m) ? column("value_s") : NaN):"cdf" \
            with lines ls sys_ls(s) notitle
    }
    eval fig_key_panel
    plot [0:1][0:1] for [s in systems] NaN with lines ls sys_ls(s) title label(s)
    unset multiplot
}
