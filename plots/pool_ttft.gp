# plots/pool_ttft.gp: TTFT CDF with and without the KVCache pool.
# Input: datafile (pool,ttft_s,cdf, read by column name), outfile.
set terminal pngcairo size 700,450 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set logscale x
set xlabel "TTFT (s)"
set ylabel "share of requests"
set yrange [0:1]
set key bottom right
set grid
set title "conversation trace, 8P+8D: TTFT with and without the KVCache pool"
plot datafile using (strcol("pool") eq "on" ? column("ttft_s") : NaN):"cdf" with lines lw 2 title "pool on", \
     datafile using (strcol("pool") eq "off" ? column("ttft_s") : NaN):"cdf" with lines lw 2 title "pool off"
