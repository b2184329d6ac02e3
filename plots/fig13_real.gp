# plots/fig13_real.gp: TTFT and TBT CDFs, Mooncake against vLLM.
# Input: datafile (system,metric,value_s,cdf), outfile.
set terminal pngcairo size 1000,420 font ",11" noenhanced
set output outfile
set datafile separator ","
set multiplot layout 1,2
set logscale x
set yrange [0:1]
set ylabel "share of requests"
set key bottom right
set grid
do for [m in "ttft tbt"] {
    set title (m eq "ttft" ? "TTFT" : "TBT (mean of the longest 10% of intervals)")
    set xlabel "seconds"
    plot for [s in "mooncake vllm"] datafile every ::1 using \
        ((strcol(1) eq s && strcol(2) eq m) ? $3 : NaN):4 with lines lw 2 title s
}
unset multiplot
