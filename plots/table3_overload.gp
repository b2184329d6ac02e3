# plots/table3_overload.gp: goodput and rejections by admission policy at
# load threshold 1. Input: datafile (table3_overload.csv), outfile.
set terminal pngcairo size 1000,420 font ",11" noenhanced
set output outfile
set datafile separator ","
set multiplot layout 1,2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -20
set grid y
set key top right
set yrange [0:*]
do for [sp in "10P3D 8P8D"] {
    set title sp.", conversation trace at 2.5x"
    plot datafile every ::1 using ((strcol(1) eq sp && $3 == 1) ? $7 : NaN):xtic(2) title "goodput (req/s)", \
         '' every ::1 using ((strcol(1) eq sp && $3 == 1) ? ($4 + $5) / 100 : NaN) title "rejected (hundreds)"
}
unset multiplot
