# plots/calib_residuals.gp: relative residual of every point of every fit
# in a calibration. Input: datafile (model,point,a,b,measured_s,fitted_s,rel_err), outfile.
set terminal pngcairo size 800,420 font ",11" noenhanced
set output outfile
set datafile separator ","
set xlabel "measured time (s)"
set ylabel "(fitted - measured) / measured"
set logscale x
set grid
set format x "%g"
set key outside right top
# only the models the file has
models = system(sprintf("cut -d, -f1 '%s' | sed 1d | uniq | tr '\\n' ' '", datafile))
plot for [m in models] datafile every ::1 using \
    (strcol(1) eq m ? $5 : NaN):7 with points pt 7 ps 0.8 title m, 0 with lines lc rgb "black" notitle
