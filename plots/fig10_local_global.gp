# plots/fig10_local_global.gp: FAST'25 Fig. 10 style: local (each prefill
# node reuses its own DRAM) against global (the cluster-wide pool) KVCache,
# 10 prefill nodes: (a) token hit rate, (b) prefill node time per request,
# per trace (experiments/fast25/fig10_local_global.sh).
# Input: datafile (fig10_local_global.csv: trace,scope,hit_rate,
# prefill_node_s_per_request,..., read by column name), outfile; pdffile
# (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 5.0
fig_h = 2.6
set datafile separator ","
set datafile columnheaders
scopes = "local global"
# the global pool is Mooncake's design (its colour); local in vermillion
scope_colour(sc) = sc eq "global" ? c_blue : c_vermillion
scope_title(sc) = sc eq "global" ? "global KVCache pool" : "local cache per node"
trace_x(t) = t eq "conversation" ? 0 : t eq "synthetic" ? 1 : NaN
bw = 0.36
bar_x(sc) = trace_x(strcol("trace")) + (sc eq "local" ? -0.19 : 0.19)
stats datafile using "hit_rate" nooutput
hit_max = STATS_max
stats datafile using "prefill_node_s_per_request" nooutput
prefill_max = STATS_max
set xrange [-0.6:1.6]
set boxwidth bw absolute
fig_xsp = 9
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set xtics ("conversation" 0, "synthetic" 1) scale 0
    set grid noxtics ytics
    eval fig_layout(1, 2, 2 + fig_key_top(2, 20))
    set title "(a) KVCache hit rate"
    set ylabel "token hit rate"
    set yrange [0:hit_max * 1.15]
    plot for [sc in scopes] datafile using \
        (strcol("scope") eq sc ? bar_x(sc) : NaN):"hit_rate" \
        with boxes fs solid 1.0 border rgb "#333333" lc rgb scope_colour(sc) notitle, \
        for [sc in scopes] datafile using \
        (strcol("scope") eq sc ? bar_x(sc) : NaN):"hit_rate":(sprintf("%.2f", column("hit_rate"))) \
        with labels offset 0, 0.6 font ",7" notitle
    set title "(b) prefill time per request"
    set ylabel "prefill node time (s)"
    set yrange [0:prefill_max * 1.15]
    plot for [sc in scopes] datafile using \
        (strcol("scope") eq sc ? bar_x(sc) : NaN):"prefill_node_s_per_request" \
        with boxes fs solid 1.0 border rgb "#333333" lc rgb scope_colour(sc) notitle, \
        for [sc in scopes] datafile using \
        (strcol("scope") eq sc ? bar_x(sc) : NaN):"prefill_node_s_per_request":(sprintf("%.2f", column("prefill_node_s_per_request"))) \
        with labels offset 0, 0.6 font ",7" notitle
    eval fig_key_panel
    plot [0:1][0:1] for [sc in scopes] NaN with boxes fs solid 1.0 border rgb "#333333" lc rgb scope_colour(sc) title scope_title(sc)
    unset multiplot
}
