# plots/fig9_fluctuation.gp: prefill and decode load over time, early vs
# predictive rejection. Input: datafile (policy,time_s,prefill_load,decode_load), outfile.
set terminal pngcairo size 1100,600 font ",11" noenhanced
set output outfile
set datafile separator ","
set multiplot layout 2,1
set xlabel "time (s)"
set ylabel "load (1 = at the SLO)"
set yrange [0:*]
set key top right
set grid
do for [p in "early predictive"] {
    set title p." rejection, 17P+3D, conversation trace at 3x"
    plot datafile every ::1 using (strcol(1) eq p ? $2 : NaN):3 with lines lw 1.5 title "prefill load", \
         datafile every ::1 using (strcol(1) eq p ? $2 : NaN):4 with lines lw 1.5 title "decode load"
}
unset multiplot
