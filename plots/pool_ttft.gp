# plots/pool_ttft.gp: TTFT CDF with and without the KVCache pool.
# Input: datafile (pool,ttft_s,cdf), outfile.
set terminal pngcairo size 700,450 font ",11" noenhanced
set output outfile
set datafile separator ","
set logscale x
set xlabel "TTFT (s)"
set ylabel "share of requests"
set yrange [0:1]
set key bottom right
set grid
set title "conversation trace, 8P+8D: TTFT with and without the KVCache pool"
plot datafile using (strcol(1) eq "on" ? $2 : NaN):3 with lines lw 2 title "pool on", \
     datafile using (strcol(1) eq "off" ? $2 : NaN):3 with lines lw 2 title "pool off"
