# plots/calib_residuals.gp: the relative residual of every point of every
# fit in a calibration (mooncake-sim calib fit --plot), one colour per
# model (prefill, decode, h2d, ...), in percent.
# Input: datafile (model,point,a,b,measured_s,fitted_s,rel_err), outfile;
# pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 5.0
fig_h = 3.0
set datafile separator ","
# only the models the file has
models = system(sprintf("cut -d, -f1 '%s' | sed 1d | uniq | tr '\\n' ' '", datafile))
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    set logscale x
    set mxtics 10
    set format x fig_log_fmt
    set xlabel "measured time (s)"
    set ylabel "(fitted − measured) / measured (%)"
    # margins, so that no point sits on the frame
    set offsets graph 0.05, graph 0.05, graph 0.1, graph 0.1
    set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead lw 1 lc rgb c_black back
    set key outside top center horizontal Left reverse samplen 1 spacing 1.1 noopaque
    plot for [i = 1:words(models)] datafile every ::1 using \
        (strcol(1) eq word(models, i) ? $5 : NaN):(100 * $7) with points ls i title word(models, i) noenhanced
}
