# plots/threshold_sweep.gp: mean TTFT against the Conductor's
# kvcache_balancing_threshold on the conversation trace, 8P+8D with the
# global pool, on RDMA at 800 Gbps and on TCP at 100 Gbps with 1.5x the
# load (experiments/fast25/threshold_sweep.sh). Never fetching (threshold
# 1000000) is drawn apart, at the right end, joined by a dotted line.
# Input: datafile (network,threshold,ttft_mean_s,..., read by column name),
# outfile; pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 4.6
fig_h = 2.9
set datafile separator ","
set datafile columnheaders
# the x of "never fetch" on the log axis, past the largest finite threshold
never = 1000000
x_never = 8
# x of network net's rows: finite thresholds (x_f), and the last finite
# one with never (x_n)
x_f(net) = strcol("network") eq net && column("threshold") < never ? column("threshold") : NaN
stats datafile using (column("threshold") < never ? column("threshold") : NaN) nooutput
th_last = STATS_max
x_n(net) = strcol("network") ne net ? NaN : column("threshold") >= never ? x_never : \
    abs(column("threshold") - th_last) < 1e-9 ? th_last : NaN
net_title(net) = net eq "rdma" ? "RDMA, 800 Gbps" : "TCP, 100 Gbps, 1.5× load"
# the sweep's rows by network (lines join only these): x, ttft
set table $rdma separator comma
plot datafile using (x_f("rdma")):"ttft_mean_s" with table if (strcol("network") eq "rdma" && column("threshold") < never)
set table $tcp separator comma
plot datafile using (x_f("tcp")):"ttft_mean_s" with table if (strcol("network") eq "tcp" && column("threshold") < never)
set table $rdma_never separator comma
plot datafile using (x_n("rdma")):"ttft_mean_s" with table if (x_n("rdma") == x_n("rdma"))
set table $tcp_never separator comma
plot datafile using (x_n("tcp")):"ttft_mean_s" with table if (x_n("tcp") == x_n("tcp"))
unset table
stats datafile using "ttft_mean_s" nooutput
ymax = fig_nice(STATS_max / 4) * ceil(STATS_max / fig_nice(STATS_max / 4) + 0.6)
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    set datafile nocolumnheaders
    set logscale x
    set xrange [0.9:x_never * 1.15]
    set xtics ("1" 1, "1.25" 1.25, "1.5" 1.5, "2" 2, "3" 3, "5" 5, "never" x_never)
    set mxtics 1
    set yrange [0:ymax]
    set xlabel "kvcache_balancing_threshold (never: no remote fetch)" noenhanced
    set ylabel "mean TTFT (s)"
    set title "Conductor, conversation trace, 8P+8D"
    set key top left Left reverse samplen 2.5 spacing 1.1 noopaque
    plot $rdma using 1:2 smooth unique with linespoints ls 1 title net_title("rdma"), \
         $rdma_never using 1:2 with linespoints lc rgb c_blue lw 1.5 dt (1.5, 2.5) pt 7 ps 0.44 notitle, \
         $tcp using 1:2 smooth unique with linespoints ls 2 title net_title("tcp"), \
         $tcp_never using 1:2 with linespoints lc rgb c_vermillion lw 1.5 dt (1.5, 2.5) pt 5 ps 0.41 notitle
    set datafile columnheaders
}
