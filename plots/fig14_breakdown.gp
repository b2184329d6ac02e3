# plots/fig14_breakdown.gp: FAST'25 Fig. 14: one request's latency by
# prompt length with 0% and 95% of the prefix cached, simulated (lines)
# against the paper's published values (points;
# experiments/fast25/fig14_breakdown.sh). Prefill and decoding are the same
# quantity in both and share a colour. The simulated KV transfer and cache
# load are the parts left after prefill and after the stream (both overlap
# the step before them layer by layer); the paper's are the whole transfer
# and the whole load, another quantity, so they have colours and key
# entries of their own.
# Input: datafile (fig14_breakdown.csv, read by column name), outfile;
# pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 7.0
fig_h = 3.2
set datafile separator ","
set datafile columnheaders
# the stages: simulated column, paper column, name
sims = "sim_prefill_s sim_transfer_s sim_load_s sim_decode128_s"
papers = "paper_prefill_s paper_transfer_s paper_load_s paper_decode128_s"
names = "prefill|KV transfer after prefill (simulated)|cache load after stream (simulated)|decode 128 tokens"
# the line style of each simulated stage and of each paper stage
sim_ls(i) = i == 1 ? 1 : i == 2 ? 2 : i == 3 ? 3 : 4
pap_ls(i) = i == 1 ? 1 : i == 2 ? 5 : i == 3 ? 6 : 4
pap_name(i) = i == 2 ? "whole KV transfer (paper)" : "whole cache load (paper)"
name(i) = (s_ = names, i == 1 ? s_[1:strstrt(s_, "|") - 1] : \
    (r_ = s_[strstrt(s_, "|") + 1:], i == 2 ? r_[1:strstrt(r_, "|") - 1] : \
    (q_ = r_[strstrt(r_, "|") + 1:], i == 3 ? q_[1:strstrt(q_, "|") - 1] : q_[strstrt(q_, "|") + 1:])))
# x of the rows with pct% of the prefix cached: the prompt's tokens
x(pct) = strcol("prefix_pct") eq pct ? column("prompt_tokens") : NaN
# one y range for both panels: every simulated and paper value
ymin = 1e30
ymax = 0
do for [c in sims." ".papers] {
    stats datafile using c nooutput
    ymin = STATS_min < ymin ? STATS_min : ymin
    ymax = STATS_max > ymax ? STATS_max : ymax
}
ymin = fig_down(ymin / 1.2)
ymax = fig_up(ymax * 1.5)
fig_xsp = 3
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set logscale xy
    set mytics 10
    set xtics ("8k" 8192, "16k" 16384, "32k" 32768, "64k" 65536, "128k" 131072)
    set xrange [6500:160000]
    set yrange [ymin:ymax]
    set xlabel "prompt length (tokens)"
    eval fig_layout(1, 2, 2 + fig_key_top(6, 37))
    do for [pct in "0 95"] {
        set title pct."% of the prefix cached"
        if (pct eq "0") { set ylabel "time (s)"; set format y "%g" } else { unset ylabel; set format y "" }
        plot for [i = 1:4] datafile using (x(pct)):word(sims, i) with lines ls sim_ls(i) notitle, \
             for [i = 1:4] datafile using (x(pct)):word(papers, i) with points ls pap_ls(i) ps 0.7 notitle
    }
    eval fig_key_panel
    plot [0:1][0:1] NaN with linespoints ls 1 title name(1)." (simulated, paper)", \
        NaN with linespoints ls 4 title name(4)." (simulated, paper)", \
        NaN with lines ls 2 title name(2), NaN with lines ls 3 title name(3), \
        NaN with points ls 5 ps 0.7 title pap_name(2), NaN with points ls 6 ps 0.7 title pap_name(3)
    unset multiplot
}
