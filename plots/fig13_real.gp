# plots/fig13_real.gp: TTFT and TBT CDFs, Mooncake against vLLM.
# Input: datafile (system,metric,value_s,cdf, read by column name), outfile.
set terminal pngcairo size 1000,420 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set multiplot layout 1,2
set logscale x
set yrange [0:1]
set ylabel "share of requests"
set key bottom right
set grid
do for [m in "ttft tbt"] {
    set title (m eq "ttft" ? "TTFT" : "TBT (mean of the longest 10% of intervals)")
    set xlabel "seconds"
    plot for [s in "mooncake vllm"] datafile using \
        ((strcol("system") eq s && strcol("metric") eq m) ? column("value_s") : NaN):"cdf" with lines lw 2 title s
}
unset multiplot
