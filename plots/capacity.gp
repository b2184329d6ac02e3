# plots/capacity.gp: effective request capacity by system and TBT SLO.
# Input: datafile (trace,system,tbt_slo_s,effective_capacity,..., read by
# column name), outfile.
set terminal pngcairo size 1000,420 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set multiplot layout 1,2
set yrange [0:1.05]
set xrange [0.05:0.35]
set xtics (0.1, 0.2, 0.3)
set xlabel "TBT SLO (s)"
set ylabel "effective request capacity"
set key bottom right
set grid
do for [t in "conversation synthetic"] {
    set title t." trace, 16 nodes"
    plot for [s in "mooncake vllm vllm_pc vllm_cp"] datafile using \
        ((strcol("trace") eq t && strcol("system") eq s) ? column("tbt_slo_s") : NaN):"effective_capacity" \
        with linespoints lw 2 pt 7 title s
}
unset multiplot
