# plots/fig5_scheduling.gp: FAST'25 Fig. 5 style: the TTFT distribution of
# each prefill placement policy on the conversation trace, 8P+8D
# (experiments/fast25/fig5_scheduling.sh): box from the first to the third
# quartile, the median inside, whiskers to 1.5 interquartile ranges, and
# the requests beyond them as points.
# Input: datafile (policy,ttft_s, read by column name), outfile; pdffile
# (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 4.4
fig_h = 2.8
set datafile separator ","
set datafile columnheaders
policies = "random load_balance cache_aware kvcentric"
# the FAST'25 paper's names; the KVCache-centric Conductor is Mooncake's
# (its colour)
pol_title(p) = p eq "kvcentric" ? "KVCache-\ncentric" : p eq "cache_aware" ? "cache-\naware" : \
    p eq "load_balance" ? "load-\nbalancing" : p eq "random" ? "random" : p
pol_colour(p) = p eq "kvcentric" ? c_blue : p eq "cache_aware" ? c_green : p eq "load_balance" ? c_orange : c_vermillion
stats datafile using "ttft_s" nooutput
ymin = fig_down(STATS_min)
ymax = fig_up(STATS_max * 1.2)
set style boxplot outliers pointtype 7
set pointsize 0.3
set boxwidth 0.5 absolute
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    unset key
    set logscale y
    set mytics 10
    set yrange [ymin:ymax]
    set xrange [0.4:4.6]
    set xtics scale 0
    set xtics (pol_title(word(policies, 1)) 1, pol_title(word(policies, 2)) 2, \
        pol_title(word(policies, 3)) 3, pol_title(word(policies, 4)) 4)
    set grid noxtics ytics
    set ylabel "TTFT (s)"
    set bmargin 3.2
    set title "conversation trace, 8P+8D"
    plot for [i = 1:4] datafile using (i):(strcol("policy") eq word(policies, i) ? column("ttft_s") : NaN) \
        with boxplot lc rgb pol_colour(word(policies, i)) lw 1.5 fs transparent solid 0.25 border notitle
}
