# plots/fig9_hit_vs_capacity.gp: token hit rate against pool capacity.
# Input: datafile (trace,policy,capacity_tokens,hit_rate_tokens), outfile.
set terminal pngcairo size 1000,420 font ",11" noenhanced
set output outfile
set datafile separator ","
set multiplot layout 1,2
set logscale x
set format x "10^{%L}"
set xlabel "pool capacity (tokens)"
set ylabel "prefix hit rate (tokens)"
set yrange [0:1]
set key top left
set grid
do for [t in "conversation synthetic"] {
    set title t." trace"
    plot for [p in "lru lfu length_aware"] \
        datafile using (strcol(1) eq t && strcol(2) eq p ? $3 : NaN):4 \
        with linespoints title p
}
unset multiplot
