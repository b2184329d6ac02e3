# plots/table3_overload.gp: goodput and rejections by admission policy at
# load threshold 1. Input: datafile (table3_overload.csv, read by column
# name), outfile.
set terminal pngcairo size 1000,420 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set multiplot layout 1,2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -20
set grid y
set key top right
set yrange [0:*]
at1(sp) = strcol("split") eq sp && column("threshold") == 1
do for [sp in "10P3D 8P8D"] {
    set title sp.", conversation trace at 2.5x"
    plot datafile using (at1(sp) ? column("goodput_rps") : NaN):xtic(strcol("policy")) title "goodput (req/s)", \
         '' using (at1(sp) ? (column("rejected_at_arrival") + column("rejected_after_prefill")) / 100 : NaN) title "rejected (hundreds)"
}
unset multiplot
