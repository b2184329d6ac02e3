# plots/fig10_local_global.gp: hit rate and prefill time per request,
# local against global KVCache. Input: datafile (fig10_local_global.csv:
# rows local, global per trace, read by column name), outfile.
set terminal pngcairo size 900,400 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set multiplot layout 1,2
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top left
set grid y
set yrange [0:*]
set title "token hit rate"
plot datafile every 2::0 using "hit_rate":xtic(strcol("trace")) title "local", datafile every 2::1 using "hit_rate" title "global"
set title "prefill time per request (s)"
plot datafile every 2::0 using "prefill_node_s_per_request":xtic(strcol("trace")) title "local", \
     datafile every 2::1 using "prefill_node_s_per_request" title "global"
unset multiplot
