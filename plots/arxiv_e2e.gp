# plots/arxiv_e2e.gp: arXiv Fig. 11 (ArXiv Summarization, L-Eval) and
# Fig. 12 (16k-128k prompts): P90 TTFT (top row) and P90 TBT (bottom row),
# normalized to their SLOs, against the arrival rate, one column per
# workload, one line per system: the runs of each system's capacity search
# (experiments/arxiv/e2e.sh), in rate order; a system's capacity is the
# highest rate with both of its points under the dashed SLO line. Each row
# shares its log y axis, each column its x axis.
# The papers' published capacities (pubfile: set,series,x,value from
# experiments/published.json; arXiv Fig. 11's, ArXiv Summarization only)
# are open circles on the SLO line of the ArXiv column, in each system's
# colour: where the paper puts the system's highest rate within the SLOs.
# Input: datafile (workload,system,rate_rps,ttft_p90_norm,tbt_p90_norm,within_slo,
# read by column name), pubfile, outfile, workloads; pdffile (optional, see
# style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
n = words(workloads)
fig_w = n > 2 ? 7.0 : 5.0
fig_h = 3.9
set datafile separator ","
set datafile columnheaders
systems = "mooncake_3p1d mooncake_2p2d vllm_4m"
# the papers' workload names
wl_title(w) = w eq "arxiv" ? "ArXiv Summarization" : w eq "leval" ? "L-Eval" : \
    (w[strlen(w):strlen(w)] eq "k" ? w."-token prompts" : w)
# each row's y range: whole decades around all its points, at least to 2
# (the SLO line at 1 stays inside the frame)
ycol(row) = row == 1 ? "ttft_p90_norm" : "tbt_p90_norm"
array ylo[2]
array yhi[2]
do for [row = 1:2] {
    stats datafile using (column(ycol(row))) nooutput
    ylo[row] = 10.0 ** floor(log10(STATS_min) + 1e-9)
    yhi[row] = STATS_max < 1 ? 2 : 10.0 ** ceil(log10(STATS_max) - 1e-9)
    if (yhi[row] <= STATS_max * 1.05) { yhi[row] = yhi[row] * 2 }
}
# each column's x range: 0 to a whole number of tic steps (about 3) past
# its highest rate
array xstep[n]
array xmax[n]
do for [i = 1:n] {
    w = word(workloads, i)
    stats datafile using (strcol("workload") eq w ? column("rate_rps") : NaN) nooutput
    xstep[i] = fig_nice(STATS_max / 3)
    xmax[i] = xstep[i] * ceil(STATS_max / xstep[i] - 1e-9)
    if (xmax[i] < STATS_max * 1.03) { xmax[i] = xmax[i] + xstep[i] / 2 }
}
fig_xsp = 3
fig_ysp = 1.2
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set logscale y
    set mytics 10
    eval fig_layout(2, n, 1.8 + fig_key_top(5, 36))
    do for [row = 1:2] {
        do for [i = 1:n] {
            w = word(workloads, i)
            if (row == 1) { set title wl_title(w) } else { unset title }
            set yrange [ylo[row]:yhi[row]]
            set xrange [0:xmax[i]]
            set xtics xstep[i]
            # decade labels; 0.2, 0.5, 2 labelled too where the range spans
            # under two decades
            set ytics autofreq
            if (yhi[row] / ylo[row] < 100) { set ytics add (0.2, 0.5, 2) }
            if (i == 1) {
                set format y "%g"
                set ylabel (row == 1 ? "P90 TTFT / SLO" : "P90 TBT / SLO")
            } else {
                set format y ""
                unset ylabel
            }
            if (row == 2) {
                set format x "%g"
                set xlabel "request rate (req/s)"
            } else {
                set format x ""
                unset xlabel
            }
            plot for [s in systems] datafile using \
                ((strcol("workload") eq w && strcol("system") eq s) ? column("rate_rps") : NaN):(column(ycol(row))) \
                with linespoints ls sys_ls(s) notitle, \
                1 with lines lw 1.5 dt (6, 4) lc rgb c_black notitle, \
                for [s in systems] pubfile using \
                ((w eq "arxiv" && strcol("series") eq s) ? column("value") : NaN):(1) \
                with points ls sys_ls(s) pt 6 ps 1.8 lw 2 notitle
        }
    }
    eval fig_key_panel
    plot [0:1][0:1] for [s in systems] NaN with linespoints ls sys_ls(s) title sys_label(s), \
        NaN with lines lw 1.5 dt (6, 4) lc rgb c_black title "SLO", \
        NaN with points pt 6 ps 1.2 lw 2 lc rgb c_black title "published capacity (arXiv Fig. 11)"
    unset multiplot
}
