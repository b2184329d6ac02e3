# plots/arxiv_e2e.gp: P90 TTFT and P90 TBT, normalized to their SLOs,
# against the arrival rate, per workload and system: the runs of each
# system's capacity search (experiments/arxiv/e2e.sh), in rate order; the
# capacity is the highest rate with both of its points under the dashed line.
# Input: datafile (workload,system,rate_rps,ttft_p90_norm,tbt_p90_norm,within_slo,
# read by column name), outfile, workloads.
n = words(workloads)
set terminal pngcairo size 420 * n, 700 font ",10" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set multiplot layout 2, n
set logscale y
set grid
set key top left
do for [row = 1:2] {
    do for [i = 1:n] {
        w = word(workloads, i)
        set title w.(row == 1 ? ": P90 TTFT / SLO" : ": P90 TBT / SLO")
        set xlabel "requests per second"
        y = row == 1 ? "ttft_p90_norm" : "tbt_p90_norm"
        plot for [s in "mooncake_3p1d mooncake_2p2d vllm_4m"] datafile using \
            ((strcol("workload") eq w && strcol("system") eq s) ? column("rate_rps") : NaN):(column(y)) \
            with linespoints lw 2 pt 7 title s, \
            1 with lines dt 2 lc rgb "black" notitle
    }
}
unset multiplot
