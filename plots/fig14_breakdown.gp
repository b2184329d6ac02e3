# plots/fig14_breakdown.gp: one request's latency by prompt length, 0% and
# 95% cached, simulated (lines) against the paper's Fig. 14 (points).
# Input: datafile (fig14_breakdown.csv, read by column name), outfile.
set terminal pngcairo size 1400,480 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set multiplot layout 1,2
set logscale xy
set xlabel "prompt tokens"
set ylabel "seconds"
set key outside right top
set xrange [6000:180000]
set grid
# x of the rows with pct% of the prefix cached: the prompt's tokens
x(pct) = strcol("prefix_pct") eq pct ? column("prompt_tokens") : NaN
do for [pct in "0 95"] {
    set title pct."% of the prefix cached"
    plot datafile using (x(pct)):"sim_prefill_s" with lines lw 2 lc 1 title "prefill (sim)", \
         datafile using (x(pct)):"paper_prefill_s" with points pt 7 lc 1 title "prefill (paper)", \
         datafile using (x(pct)):"sim_stream_s" with lines lw 2 lc 2 title "KV stream (sim)", \
         datafile using (x(pct)):"paper_transfer_s" with points pt 7 lc 2 title "transfer (paper)", \
         datafile using (x(pct)):"sim_load_s" with lines lw 2 lc 3 title "decode-side load (sim)", \
         datafile using (x(pct)):"paper_load_s" with points pt 7 lc 3 title "load (paper)", \
         datafile using (x(pct)):"sim_decode128_s" with lines lw 2 lc 4 title "decode 128 (sim)", \
         datafile using (x(pct)):"paper_decode128_s" with points pt 7 lc 4 title "decode 128 (paper)"
}
unset multiplot
