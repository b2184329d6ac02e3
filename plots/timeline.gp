# plots/timeline.gp: a Gantt-style rendering of a time window of a run's
# timeline (docs/timeline.md), the tracks Perfetto shows: one row per
# prefill and decode instance, the first flow lane of each NIC, then the
# phases of the first requests that arrived in the window; a box per span,
# coloured by what it is. Made by tools/timeline_gantt.py (make
# timeline-img); it is a picture of the file, not of Perfetto.
# Input: datafile (y x0_s x1_s class), ticsfile (its y tic labels and
# n_tracks), outfile, xlo, xhi; pdffile (optional, see style.gp; none by default).
if (!exists("pdffile")) pdffile = ""
slash(s, i) = i < 1 ? 0 : s[i:i] eq "/" ? i : slash(s, i - 1)
load ARG0[1:slash(ARG0, strlen(ARG0))]."style.gp"
load ticsfile
fig_w = 7.0
fig_h = 1.0 + 0.16 * n_tracks
# prefill, decode, KV transfer, fetch/load, queue/wait, schedule, stall, other
array colour[8] = ["#E69F00", "#0072B2", "#009E73", "#56B4E9", "#BBBBBB", "#CC79A7", "#D55E00", "#000000"]
array label[8] = ["prefill", "decode", "KV transfer (pd)", "fetch / load / stage", "queue / wait", "schedule", "stall", "other"]
do for [fig_out in fig_outputs] {
    eval fig_open(fig_out)
    load ticsfile
    set xrange [xlo:xhi]
    set yrange [0.4:n_tracks + 0.6]
    set xlabel "simulated time (s)"
    set ytics font ",7" nomirror scale 0
    set grid noytics
    set key outside top center horizontal samplen 1 font ",8"
    set style fill solid 1.0 noborder
    plot for [c = 0:7] datafile using (($2 + $3) / 2):($4 == c ? $1 : NaN):(($3 - $2) / 2):(0.38) \
        with boxxyerror fc rgb colour[c + 1] title label[c + 1]
    unset output
}
