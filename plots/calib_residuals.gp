# plots/calib_residuals.gp: relative residual of every point of every fit
# in a calibration. Input: datafile (model,point,a,b,measured_s,fitted_s,rel_err), outfile.
set terminal pngcairo size 800,420 font ",11" noenhanced
set output outfile
set datafile separator ","
set xlabel "measured time (s)"
set ylabel "(fitted - measured) / measured"
set logscale x
set grid
set key top right
plot for [m in "prefill decode h2d network"] datafile every ::1 using \
    (strcol(1) eq m ? $5 : NaN):7 with points pt 7 ps 0.8 title m, 0 with lines lc rgb "black" notitle
