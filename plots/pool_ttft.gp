# plots/pool_ttft.gp: what reuse does to TTFT: the CDF of TTFT over the
# completed requests with and without the KVCache pool, conversation trace,
# 8P+8D (experiments/fast25/pool_ttft.sh).
# Input: datafile (pool,ttft_s,cdf, read by column name), outfile; pdffile
# (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 4.2
fig_h = 2.9
set datafile separator ","
set datafile columnheaders
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    set logscale x
    set mxtics 10
    set xlabel "TTFT (s)"
    set ylabel "CDF of completed requests"
    set yrange [0:1]
    set ytics 0.2
    set title "conversation trace, 8P+8D"
    set key bottom right Left reverse samplen 2.5 spacing 1.1 noopaque
    # the pool is Mooncake's (its colour); without it, vermillion
    plot datafile using (strcol("pool") eq "on" ? column("ttft_s") : NaN):"cdf" with lines ls 1 title "with the KVCache pool", \
         datafile using (strcol("pool") eq "off" ? column("ttft_s") : NaN):"cdf" with lines ls 2 title "without (recompute)"
}
