# plots/cpp_long_prompts.gp: TTFT of one long prompt against the prefill
# group size (CPP, 8k chunks). Input: datafile (prompt_tokens,group,chunk,ttft_s,
# read by column name), outfile.
set terminal pngcairo size 700,450 font ",11" noenhanced
set output outfile
set datafile separator ","
set datafile columnheaders
set logscale xy
set xtics (1, 2, 4, 8)
set xlabel "nodes in the prefill group"
set ylabel "TTFT (s)"
set key top right
set grid
set title "chunked pipeline prefill, 8k-token chunks"
plot for [p in "32768 65536 131072"] datafile using \
    ((strcol("prompt_tokens") eq p && strcol("chunk") eq "8192") ? column("group") : NaN):"ttft_s" with linespoints lw 2 pt 7 \
    title sprintf("%dk prompt", int(p) / 1024)
