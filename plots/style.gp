# plots/style.gp: the one style of every figure, loaded first by each
# plots/*.gp (from the folder of the script that loads it):
#     slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
#     load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
# Input: outfile (the PNG) and, optionally, pdffile (the vector PDF; by
# default outfile with .pdf for .png; '' writes no PDF).
#
# Each figure is drawn once per output: its .gp sets fig_w and fig_h (the
# size in inches; 3.4 = one paper column, 7 = the page), then draws in
#     do for [fig_out in fig_outputs] {
#         eval fig_open(fig_out)
#         ... set multiplot / plot ...
#     }
# fig_open("png") selects pngcairo at fig_dpi pixels per inch, "pdf" pdfcairo
# at the figure's size in inches; fonts, lines and points are scaled so that
# the PNG is the PDF rasterized at fig_dpi (the same layout in both).
#
# Style: DejaVu Sans 9 pt (titles and keys alike), enhanced text (10^{4},
# subscripts; a label with '_' needs noenhanced or \\_), the Okabe-Ito
# colour-blind-safe palette with a point type per colour (so the series also
# part in grey), lines 1 pt, a light grey major grid behind the data, the
# left and bottom borders with outward tics, keys left-aligned with the
# sample first. A figure places its key outside the data (above the panels,
# fig_key_top) or in a corner its data leave empty.
#
# The same system has the same style in every figure: sys_ls(id) and
# sys_label(id) map the simulator's system identifiers to a line style and
# to the papers' names (FAST'25 and arXiv 2407.00079).

# --- outputs ---------------------------------------------------------------
if (!exists("pdffile")) {
    n_ = strlen(outfile)
    pdffile = (n_ > 4 && outfile[n_ - 3:n_] eq ".png") ? outfile[1:n_ - 4].".pdf" : outfile.".pdf"
}
fig_outputs = (pdffile eq "") ? "png" : "png pdf"
if (!exists("fig_w")) fig_w = 7.0
if (!exists("fig_h")) fig_h = 2.6
fig_dpi = 150
fig_font = "DejaVu Sans"
fig_pt = 9
# pdfcairo draws text at 0.5 x 96/72 of the nominal size and lines of width
# 1 at 0.5 pt; pngcairo draws text at 96/72 px per point and lines of width
# 1 at 1 px. The scales below make both 9 pt text and lw 1 = 0.5 pt at
# fig_dpi, so lw 2 (the style's data lines) is a 1 pt line.
fig_open(out) = (out eq "pdf") ? \
    sprintf("set terminal pdfcairo enhanced color rounded size %gin,%gin font '%s,%g' fontscale 0.75 linewidth 1 dashlength 2.5; set output '%s'", \
        fig_w, fig_h, fig_font, fig_pt, pdffile) . "; " . fig_axes : \
    sprintf("set terminal pngcairo enhanced color rounded size %d,%d font '%s,%g' fontscale %g linewidth %g pointscale %g dashlength 2.5; set output '%s'", \
        int(fig_w * fig_dpi + 0.5), int(fig_h * fig_dpi + 0.5), fig_font, fig_pt, \
        0.75 * fig_dpi / 72.0, 0.5 * fig_dpi / 72.0, fig_png_pointscale, outfile) . "; " . fig_axes
# pngcairo's points, relative to pdfcairo's at the same pointsize
fig_png_pointscale = fig_dpi / 72.0

# fig_layout(rows, cols, top): a multiplot grid whose panels share margins in
# character units (fig_lm left for the y tic labels and label, fig_bm below
# for the x ones, fig_rm right), fig_xsp and fig_ysp between the panels
# (set them before the eval), and top character heights above the first
# row (about 2 for panel titles, plus fig_key_top(...) for a shared key).
fig_layout(rows, cols, top) = sprintf("set multiplot layout %d,%d margins char %g, char %g, char %g, char %g spacing char %g, char %g", \
    rows, cols, fig_lm, fig_rm, fig_bm, top, fig_xsp, fig_ysp)
fig_lm = 9
fig_rm = 3
fig_bm = 3.3
fig_xsp = 9.5
fig_ysp = 5
# fig_key_top(entries, longest): the character heights a shared key of
# entries items, the longest title of longest characters, needs above the
# panels (gnuplot gives every key column the width of the longest entry)
fig_key_cols(entries, longest) = (c_ = int(fig_w * 72 / (fig_pt * 0.62) / (longest + 6.5)), \
    c_ < 1 ? 1 : c_ > entries ? entries : c_)
fig_key_top(entries, longest) = 1.25 * ceil(entries * 1.0 / fig_key_cols(entries, longest)) + 0.6
# fig_nice(x): 1, 2 or 5 times a power of 10, near x (a tic step)
# fig_up(x): the least 1, 2 or 5 times a power of 10 at or above x (a log
# axis end); fig_down(x): the power of 10 at or below x; fig_down125(x):
# the greatest 1, 2 or 5 times a power of 10 at or below x
fig_up(x) = (m_ = 10.0 ** floor(log10(x) + 1e-9), f_ = x / m_, (f_ <= 1 + 1e-9 ? 1.0 : f_ <= 2 ? 2.0 : f_ <= 5 ? 5.0 : 10.0) * m_)
fig_down(x) = 10.0 ** floor(log10(x) + 1e-9)
fig_down125(x) = (m_ = fig_down(x), f_ = x / m_, (f_ >= 5 - 1e-9 ? 5.0 : f_ >= 2 - 1e-9 ? 2.0 : 1.0) * m_)
fig_nice(x) = (m_ = 10.0 ** floor(log10(x)), f_ = x / m_, (f_ < 1.5 ? 1.0 : f_ < 3.5 ? 2.0 : f_ < 7.5 ? 5.0 : 10.0) * m_)
# A key shared by all panels, in one row above them (outside the data): the
# last plot of a multiplot, after `eval fig_key_panel`, plots one NaN entry
# per key line with an inline range, e.g.
#     eval fig_key_panel
#     plot [0:1][0:1] NaN with linespoints ls 11 title "Mooncake", ...
# It unsets the border, tics, grid, titles, labels, log scales and objects,
# so each pass of a figure sets those again (fig_open restores the border,
# tics and grid; custom tic lists and log scales go inside the pass).
fig_key_panel = "unset border; unset xtics; unset ytics; unset x2tics; unset y2tics; unset grid; unset title; " . \
    "unset xlabel; unset ylabel; unset logscale; unset object; unset arrow; unset label; " . \
    "set lmargin at screen 0; set rmargin at screen 1; set tmargin at screen 1; set bmargin at screen 0.5; " . \
    "set key at screen 0.5, screen 0.998 center top horizontal Left reverse samplen 2 width 0 spacing 1 nobox noopaque"
# the border, tics, grid and title and label offsets of every panel
# (fig_open sets them)
fig_axes = "set border 3 back lw 1 lc rgb '#333333'; set xtics autofreq; set ytics autofreq; " . \
    "set tics nomirror out scale 0.6, 0.3 textcolor rgb '#000000'; set mxtics default; set mytics default; " . \
    "set grid xtics ytics back lt 1 lw 0.8 lc rgb '#dddddd' dt solid; " . \
    "set title offset 0, -0.3; set xlabel offset 0, 0.2; set ylabel offset 0.5, 0"

# --- palette: Okabe & Ito (2008), colour-blind safe ------------------------
c_blue = "#0072B2"
c_vermillion = "#D55E00"
c_green = "#009E73"
c_orange = "#E69F00"
c_purple = "#CC79A7"
c_sky = "#56B4E9"
c_black = "#000000"
c_grey = "#999999"
# linetypes 1-7 (and the styles of the same numbers): the palette in this
# order, filled circle, square, triangle, diamond, inverted triangle,
# pentagon, and an open circle; they cycle after 7
set linetype 1 lc rgb c_blue lw 2 dt solid pt 7 ps 0.44
set linetype 2 lc rgb c_vermillion lw 2 dt solid pt 5 ps 0.41
set linetype 3 lc rgb c_green lw 2 dt solid pt 9 ps 0.5
set linetype 4 lc rgb c_orange lw 2 dt solid pt 13 ps 0.5
set linetype 5 lc rgb c_purple lw 2 dt solid pt 11 ps 0.5
set linetype 6 lc rgb c_sky lw 2 dt solid pt 15 ps 0.5
set linetype 7 lc rgb c_black lw 2 dt solid pt 6 ps 0.44
set linetype cycle 7
do for [i_ = 1:7] { set style line i_ lt i_ }

# --- systems: one style and one name each, in every figure -----------------
# 11 Mooncake (any P/D split but 2P+2D, which the e2e figures set apart),
# 12 Mooncake-[2P+2D], 13 vLLM (any number of instances), 14 vLLM with
# prefix caching, 15 vLLM with chunked prefill
set style line 11 lc rgb c_blue lw 2 dt solid pt 7 ps 0.44
set style line 12 lc rgb c_sky lw 2 dt solid pt 9 ps 0.5
set style line 13 lc rgb c_vermillion lw 2 dt solid pt 5 ps 0.41
set style line 14 lc rgb c_orange lw 2 dt solid pt 13 ps 0.5
set style line 15 lc rgb c_purple lw 2 dt solid pt 11 ps 0.5
sys_ls(s) = s eq "mooncake_2p2d" ? 12 : s eq "vllm_pc" ? 14 : s eq "vllm_cp" ? 15 : \
    s[1:4] eq "vllm" ? 13 : 11
# the colour alone, for bars
sys_colour(s) = (l_ = sys_ls(s), l_ == 12 ? c_sky : l_ == 13 ? c_vermillion : l_ == 14 ? c_orange : \
    l_ == 15 ? c_purple : c_blue)
sys_label(s) = s eq "mooncake" ? "Mooncake" : \
    s eq "mooncake_3p1d" ? "Mooncake-[3P+1D]" : \
    s eq "mooncake_2p2d" ? "Mooncake-[2P+2D]" : \
    s eq "mooncake_10p10d" ? "Mooncake-[10P+10D]" : \
    s eq "vllm" ? "vLLM" : \
    s eq "vllm_4m" ? "vLLM-[4M]" : \
    s eq "vllm_20m" ? "vLLM-[20M]" : \
    s eq "vllm_pc" ? "vLLM (prefix caching)" : \
    s eq "vllm_cp" ? "vLLM (chunked prefill)" : s

# --- axes, grid, key -------------------------------------------------------
eval fig_axes
set key top left Left reverse samplen 2.5 spacing 1.1 width 0 nobox noopaque
set pointsize 1
set bars small
set style fill solid 1.0 border -1
# log axes: decades as 10^{n} (fig_log_fmt), or plain numbers where the
# range is a few decades around 1 (%g)
fig_log_fmt = "10^{%L}"
set format x "%g"
set format y "%g"
