# plots/fig9_fluctuation.gp: prefill and decode load over time, early vs
# predictive rejection. Input: datafile (policy,time_s,prefill_load,decode_load,
# read by column name), outfile.
set terminal pngcairo size 1100,600 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set multiplot layout 2,1
set xlabel "time (s)"
set ylabel "load (1 = at the SLO)"
set yrange [0:*]
set key top right
set grid
do for [p in "early predictive"] {
    set title p." rejection, 17P+3D, conversation trace at 3x"
    plot datafile using (strcol("policy") eq p ? column("time_s") : NaN):"prefill_load" with lines lw 1.5 title "prefill load", \
         datafile using (strcol("policy") eq p ? column("time_s") : NaN):"decode_load" with lines lw 1.5 title "decode load"
}
unset multiplot
