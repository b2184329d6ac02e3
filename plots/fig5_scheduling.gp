# plots/fig5_scheduling.gp: TTFT box plot per placement policy.
# Input: datafile (policy,ttft_s, read by column name), outfile.
set terminal pngcairo size 700,450 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set style data boxplot
set style boxplot outliers pointtype 7
set pointsize 0.2
set logscale y
set ylabel "TTFT (s)"
set xtics ("kvcentric" 1, "cache_aware" 2, "load_balance" 3, "random" 4)
set xrange [0.3:4.7]
set key off
set grid y
set title "conversation trace, 8P+8D: TTFT by placement policy"
plot for [p in "kvcentric cache_aware load_balance random"] datafile \
    using ((p eq "kvcentric") ? 1 : (p eq "cache_aware") ? 2 : (p eq "load_balance") ? 3 : 4):(strcol("policy") eq p ? column("ttft_s") : NaN) \
    with boxplot lw 1.5
