# plots/cpp_long_prompts.gp: chunked pipeline parallelism (CPP) for long
# prompts (experiments/fast25/cpp_long_prompts.sh): (a) TTFT of one 32k,
# 64k or 128k-token prompt against the prefill group size, 8k-token chunks;
# (b) the 128k prompt's TTFT on 4 nodes against the chunk size.
# Input: datafile (prompt_tokens,group,chunk,ttft_s, read by column name),
# outfile; pdffile (optional, see style.gp).
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
fig_w = 6.0
fig_h = 2.7
set datafile separator ","
set datafile columnheaders
prompts = "32768 65536 131072"
kt(n) = sprintf("%dk", int(n) / 1024)
# the chunk sweep: the 128k prompt on 4 nodes, every chunk size
chunk_row(d_) = column("prompt_tokens") == 131072 && column("group") == 4
set table $chunks separator comma
plot datafile using "chunk":"ttft_s" with table if (chunk_row(0))
unset table
stats datafile using "ttft_s" nooutput
ymin = fig_down(STATS_min)
ymax = fig_up(1.3 * STATS_max)
fig_xsp = 9.5
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    set datafile columnheaders
    set logscale xy 2
    set logscale y 10
    set ytics (1, 2, 5, 10, 20, 50, 100)
    set mytics 10
    set yrange [ymin:ymax]
    set ylabel "TTFT (s)"
    eval fig_layout(1, 2, 2.2)
    set title "(a) 8k-token chunks"
    set xlabel "prefill nodes in the CPP group"
    set xtics (1, 2, 4, 8)
    set xrange [0.8:10]
    set key top right Left reverse samplen 2 spacing 1.1 title "prompt" noopaque
    plot for [i = 1:3] datafile using \
        ((strcol("prompt_tokens") eq word(prompts, i) && strcol("chunk") eq "8192") ? column("group") : NaN):"ttft_s" \
        with linespoints ls i title kt(word(prompts, i))
    set title "(b) 128k-token prompt, 4 nodes"
    set xlabel "chunk size (tokens)"
    set xtics ("2k" 2048, "4k" 4096, "8k" 8192, "16k" 16384, "32k" 32768)
    set xrange [1600:42000]
    unset key
    set datafile nocolumnheaders
    plot $chunks using 1:2 smooth unique with linespoints ls 3 notitle
    unset multiplot
}
