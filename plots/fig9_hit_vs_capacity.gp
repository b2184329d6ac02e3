# plots/fig9_hit_vs_capacity.gp: FAST'25 Fig. 9 style: the token hit rate
# of one global KVCache pool against its capacity (10^4 to 10^9 tokens),
# per eviction policy, conversation and synthetic traces
# (experiments/fast25/fig9_hit_vs_capacity.sh).
# Input: datafile (trace,policy,capacity_tokens,hit_rate_tokens, read by
# column name), pubfile (set,series,x,value: FAST'25 Fig. 9's published LRU
# values, experiments/published.json; black open marks), outfile; pdffile
# (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 6.0
fig_h = 2.7
set datafile separator ","
set datafile columnheaders
policies = "lru lfu length_aware"
# the arXiv paper's eviction policies (Table 1: LRUCache, LFUCache,
# LengthAwareCache)
pol_title(p) = p eq "lru" ? "LRU" : p eq "lfu" ? "LFU" : p eq "length_aware" ? "length-aware" : p
stats datafile using "hit_rate_tokens" nooutput
ymax = 0.1 * ceil(STATS_max * 10 + 0.5)
stats datafile using "capacity_tokens" nooutput
xmin = fig_down(STATS_min)
xmax = fig_up(STATS_max)
fig_xsp = 4
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set logscale x
    set format x fig_log_fmt
    set xtics xmin, 10
    set mxtics 10
    set xrange [xmin / 1.6:xmax * 1.6]
    set yrange [0:ymax]
    set ytics 0.1
    set xlabel "pool capacity (tokens)"
    eval fig_layout(1, 2, 2 + fig_key_top(4, 31))
    do for [t in "conversation synthetic"] {
        set title t." trace"
        if (t eq "conversation") { set ylabel "token hit rate"; set format y "%g" } else { unset ylabel; set format y "" }
        plot for [i = 1:3] datafile using \
            ((strcol("trace") eq t && strcol("policy") eq word(policies, i)) ? column("capacity_tokens") : NaN):"hit_rate_tokens" \
            with linespoints ls i notitle, \
            pubfile using (strcol("series") eq t ? column("x") : NaN):"value" with points pt 6 ps 0.8 lc rgb c_black notitle
    }
    eval fig_key_panel
    plot [0:1][0:1] for [i = 1:3] NaN with linespoints ls i title pol_title(word(policies, i)), \
        NaN with points pt 6 ps 0.8 lc rgb c_black title "LRU, published (FAST'25 Fig. 9)"
    unset multiplot
}
