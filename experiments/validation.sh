#!/bin/sh
# experiments/validation.sh COMMAND: the simulator against the papers'
# published values (experiments/published.json, the one source of them).
#   compare        results/validation.csv: one row per published value,
#                  the simulator's counterpart from the CSVs under results/
#                  and the verdict (docs/experiments.md#validation-against-
#                  the-papers); a set whose script's traces are not in
#                  MOONCAKE_TRACES, or whose CSV is missing, is "not run"
#   table SCRIPT   the Markdown comparison of SCRIPT's sets (results/
#                  REPORT.md), with the documented reason under each
#                  difference
#   summary        the verdict counts and every difference, for REPORT.md
#   readme [CSV]   the README's validation table, from published.json and
#                  CSV (default docs/validation.csv, the committed record)
#   update         after a complete run: results/validation.csv becomes
#                  docs/validation.csv and the README's table is rewritten
#   check [README] exit 1 when README's table (default README.md) is not
#                  what readme writes, or docs/validation.csv does not hold
#                  exactly published.json's values
# Needs jq and awk. Exit status 2 for bad input (a CSV without a column
# published.json names), naming the file.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/experiments/needs.sh"
PUB="$ROOT/experiments/published.json"
RES="${RESULTS:-$ROOT/results}"
DOC_CSV="$ROOT/docs/validation.csv"
BEGIN_MARK='<!-- validation table: written by `sh experiments/validation.sh update` from experiments/published.json and docs/validation.csv; do not edit by hand -->'
END_MARK='<!-- end of validation table -->'
command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }

# flat: published.json as tab-separated lines, S (a set), P (a point),
# R (a series' own reason), L (a label), M (a README row: set, row number,
# label, series joined by |, x joined by |)
flat() {
    jq -r '(.labels | to_entries[] | ["L", .key, .value]),
        (.sets[] | . as $s |
          ["S", .id, .paper, .figure, .quantity, .unit, .x_name, .order, (.tol_abs // 0 | tostring),
           (.fmt // "%.3g"), .script, .sim.file, (.sim.series // ""), (.sim.x // ""), .sim.value,
           ((.sim.where // {}) | to_entries | map("\(.key)=\(.value)") | join(";")),
           (.sim.scale // 1 | tostring), .reason, .cite],
          (.points[] | ["P", $s.id, (.[0] | tostring), (.[1] | tostring), (.[2] | tostring)]),
          ((.reasons // {}) | to_entries[] | ["R", $s.id, .key, .value]),
          ((.readme // []) | to_entries[] | ["M", $s.id, (.key | tostring), .value.label,
              ((.value.series // []) | map(tostring) | join("|")), ((.value.x // []) | map(tostring) | join("|"))])) | @tsv' "$PUB"
}

# the scripts whose traces are missing, one per line
skipped_scripts() {
    flat | awk -F'\t' '$1 == "S" { print $11 }' | sort -u | while read -r s; do
        [ -z "$(traces_missing "$ROOT/$s")" ] || echo "$s"
    done
}

compare() {
    mkdir -p "$RES"
    tmp="$RES/.validation.csv.tmp.$$"
    trap 'rm -f "$tmp"' EXIT
    skips=$(skipped_scripts | tr '\n' ' ')
    flat | awk -F'\t' -v res="$RES" -v skips=" $skips" -v pub="$PUB" '
        function norm(v) { return v ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ ? sprintf("%.6g", v + 0) : v }
        function num(v) { return v ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ }
        function same(a, b) { return (num(a) && num(b)) ? (a + 0 == b + 0) : (a == b) }
        function abs(v) { return v < 0 ? -v : v }
        function sgn(v) { return v > 0 ? 1 : v < 0 ? -1 : 0 }
        # load the simulator values of set s from its CSV
        function load(s,   f, line, n, i, h, c, nw, w, kv, ok, k, ser, x) {
            f = res "/" file[s]
            if (index(skips, " " script[s] " ") || (getline line < f) <= 0) { missing[s] = 1; return }
            n = split(line, h, ",")
            for (i = 1; i <= n; i++) c[h[i]] = i
            nw = where[s] == "" ? 0 : split(where[s], w, ";")
            for (i = 1; i <= nw; i++) { split(w[i], kv, "="); wc[i] = kv[1]; wv[i] = kv[2] }
            for (i = 1; i <= nw; i++) need(f, c, wc[i])
            if (scol[s] != "") need(f, c, scol[s])
            if (xcol[s] != "") need(f, c, xcol[s])
            need(f, c, vcol[s])
            while ((getline line < f) > 0) {
                split(line, r, ",")
                ok = 1
                for (i = 1; i <= nw; i++) if (!same(r[c[wc[i]]], wv[i])) ok = 0
                if (!ok) continue
                ser = scol[s] == "" ? "" : norm(r[c[scol[s]]])
                x = xcol[s] == "" ? "" : norm(r[c[xcol[s]]])
                simv[s, ser, x] = r[c[vcol[s]]] * scale[s]
            }
            close(f)
        }
        function need(f, c, name) {
            if (!(name in c)) { printf "validation: %s has no column %s (%s)\n", f, name, pub > "/dev/stderr"; bad = 2; exit 2 }
        }
        $1 == "S" { s = $2; sets[++ns] = s; order[s] = $8; tol[s] = $9 + 0; script[s] = $11; file[s] = $12
            scol[s] = $13; xcol[s] = $14; vcol[s] = $15; where[s] = $16; scale[s] = $17 + 0 }
        $1 == "P" { np++; ps[np] = $2; pser[np] = $3; px[np] = $4; pv[np] = $5 + 0; praw[np] = $5 }
        END {
            if (bad) exit bad
            for (i = 1; i <= ns; i++) load(sets[i])
            if (bad) exit bad
            for (p = 1; p <= np; p++) {
                s = ps[p]; k = s SUBSEP norm(pser[p]) SUBSEP norm(px[p])
                has[p] = !missing[s] && (k in simv)
                if (has[p]) sv[p] = simv[k]
            }
            print "set,series,x,published,simulated,ratio,verdict"
            for (p = 1; p <= np; p++) {
                s = ps[p]
                if (!has[p]) { verdict = "not run"; simtxt = ""; ratio = "" }
                else {
                    simtxt = sprintf("%.6g", sv[p]); ratio = pv[p] != 0 ? sprintf("%.3f", sv[p] / pv[p]) : ""
                    d = abs(sv[p] - pv[p]); lim = 0.15 * abs(pv[p]); if (tol[s] > lim) lim = tol[s]
                    if (d <= lim + 1e-12) verdict = "within 15%"
                    else {
                        # same ordering: against every other value of its group
                        # (same x when the set orders its series, same series
                        # when it orders along x), the simulator puts it on the
                        # same side as the paper; paper values within 3% of each
                        # other (read off a plot) are a tie, either order agrees
                        pairs = 0; agree = 1
                        for (q = 1; q <= np; q++) {
                            if (q == p || ps[q] != s || !has[q]) continue
                            if (order[s] == "series" && norm(px[q]) != norm(px[p])) continue
                            if (order[s] == "x" && norm(pser[q]) != norm(pser[p])) continue
                            m = abs(pv[p]) > abs(pv[q]) ? abs(pv[p]) : abs(pv[q])
                            if (abs(pv[p] - pv[q]) <= 0.03 * m) continue
                            pairs++
                            if (sgn(pv[p] - pv[q]) != sgn(sv[p] - sv[q])) agree = 0
                        }
                        verdict = (pairs > 0 && agree) ? "same ordering" : "differs"
                    }
                }
                printf "%s,%s,%s,%s,%s,%s,%s\n", s, pser[p], px[p], praw[p], simtxt, ratio, verdict
            }
        }' >"$tmp"
    mv "$tmp" "$RES/validation.csv"
    trap - EXIT
}

# render MODE ARG CSV: MODE table (ARG: a script), summary, readme
render() {
    { flat; printf 'CSV\n'; cat "$3"; } | awk -F'\t' -v mode="$1" -v arg="$2" -v link="${LINK_PREFIX:-}" '
        function lab(v) { return v in label ? label[v] : v }
        function fmtv(s, v) { return v == "" ? "-" : sprintf(fmt[s], v) }
        function reason(s, ser,   t) { t = (s SUBSEP ser) in sreason ? sreason[s, ser] : why[s]; gsub(/\]\(docs\//, "](" link "docs/", t); return t }
        function unitsfx(u) { return u == "s" ? " s" : u == "req/s" ? " req/s" : "" }
        function head2(v) { return v == "" ? "" : v }
        csv == 0 && $1 == "CSV" { csv = 1; FS = ","; next }
        csv == 0 && $1 == "L" { label[$2] = $3; next }
        csv == 0 && $1 == "S" { s = $2; sets[++ns] = s; paper[s] = $3; fig[s] = $4; qty[s] = $5; unit[s] = $6
            xname[s] = $7; fmt[s] = $10; script[s] = $11; why[s] = $18; cite[s] = $19; next }
        csv == 0 && $1 == "R" { sreason[$2, $3] = $4; next }
        csv == 0 && $1 == "M" { nm++; ms[nm] = $2; mlabel[nm] = $4; mser[nm] = $5; mx[nm] = $6; next }
        csv == 0 { next }
        csv == 1 && $1 == "set" { next }
        csv == 1 { n++; rs[n] = $1; rser[n] = $2; rx[n] = $3; rp[n] = $4; rsim[n] = $5; rratio[n] = $6; rv[n] = $7
            idx[$1, $2, $3] = n; count[$7]++ }
        END {
            if (mode == "table") {
                shown = 0
                for (i = 1; i <= ns; i++) {
                    s = sets[i]; if (script[s] != arg) continue
                    if (!shown) { print "| published value | " "paper | simulator | simulator / paper | verdict |"; print "|---|---:|---:|---:|---|" }
                    shown = 1
                    for (r = 1; r <= n; r++) {
                        if (rs[r] != s) continue
                        what = paper[s] " " fig[s] ", " qty[s]
                        if (rser[r] != "") what = what ", " lab(rser[r])
                        if (rx[r] != "") what = what ", " (xname[s] == "trace" ? lab(rx[r]) : xname[s] " " rx[r])
                        printf "| %s (%s) | %s | %s | %s | %s |\n", what, unit[s], rp[r], fmtv(s, rsim[r]), (rratio[r] == "" ? "-" : rratio[r]), rv[r]
                    }
                }
                if (!shown) exit
                print ""
                for (i = 1; i <= ns; i++) {
                    s = sets[i]; if (script[s] != arg) continue
                    printf "- %s %s (%s): cited from %s.\n", paper[s], fig[s], qty[s], cite[s]
                }
                print ""
                for (i = 1; i <= ns; i++) {
                    s = sets[i]; if (script[s] != arg) continue
                    delete said
                    for (r = 1; r <= n; r++) {
                        if (rs[r] != s || rv[r] == "within 15%" || rv[r] == "not run") continue
                        t = reason(s, rser[r]); if (t in said) continue
                        said[t] = 1
                        printf "**Differs (%s %s, %s):** %s\n\n", paper[s], fig[s], qty[s], t
                    }
                }
            } else if (mode == "summary") {
                printf "| verdict | published values |\n|---|---:|\n"
                printf "| within 15%% | %d |\n| same ordering | %d |\n| differs | %d |\n", count["within 15%"], count["same ordering"], count["differs"]
                if (count["not run"]) printf "| not run (script skipped or not yet run) | %d |\n", count["not run"]
                print ""
                # per set: the values that differ one by one, the count and
                # the simulator / paper range of those in the same order
                for (i = 1; i <= ns; i++) {
                    s = sets[i]; line = ""; nso = 0; lo = 1e300; hi = -1e300; rtxt = ""; delete said
                    for (r = 1; r <= n; r++) {
                        if (rs[r] != s) continue
                        if (rv[r] == "same ordering" || rv[r] == "differs") { t = reason(s, rser[r]); if (!(t in said)) { said[t] = 1; rtxt = rtxt " " t } }
                        if (rv[r] == "same ordering") { nso++; if (rratio[r] != "") { if (rratio[r] + 0 < lo) lo = rratio[r] + 0; if (rratio[r] + 0 > hi) hi = rratio[r] + 0 } }
                        if (rv[r] != "differs") continue
                        item = (rser[r] != "" ? lab(rser[r]) : "") (rser[r] != "" && rx[r] != "" ? " at " : "") (rx[r] != "" ? (xname[s] == "trace" ? lab(rx[r]) : xname[s] " " rx[r]) : "")
                        line = line (line == "" ? "" : "; ") (item == "" ? "" : item ": ") "paper " rp[r] ", simulator " fmtv(s, rsim[r])
                    }
                    if (line != "") line = "differs: " line
                    if (nso) line = line (line == "" ? "" : "; ") nso " in the same order but further than 15%" \
                        (hi >= lo ? (lo == hi ? sprintf(" (simulator / paper %.2f)", lo) : sprintf(" (simulator / paper %.2f to %.2f)", lo, hi)) : "")
                    if (line != "") printf "- **%s %s, %s (%s):** %s.%s\n", paper[s], fig[s], qty[s], unit[s], line, rtxt
                }
            } else {
                print "| result (paper) | paper | simulator | verdict | command |"
                print "|---|---|---|---|---|"
                prev = ""
                for (m = 1; m <= nm; m++) {
                    s = ms[m]; ns_ = split(mser[m], ser, "|"); if (mser[m] == "") { ns_ = 1; ser[1] = "" }
                    pubt = ""; simt = ""; delete cnt; k = 0
                    for (a = 1; a <= ns_; a++) {
                        # the x values: those named, else every x of the series in file order
                        nx = 0
                        if (mx[m] != "") nx = split(mx[m], xs, "|")
                        else for (r = 1; r <= n; r++) if (rs[r] == s && rser[r] == ser[a]) xs[++nx] = rx[r]
                        for (b = 1; b <= nx; b++) {
                            r = idx[s, ser[a], xs[b]]
                            if (r == "") { printf "validation: README row \"%s\": no value %s at %s\n", mlabel[m], ser[a], xs[b] > "/dev/stderr"; exit 2 }
                            sep = k++ ? " / " : ""
                            pubt = pubt sep rp[r]; simt = simt sep fmtv(s, rsim[r]); cnt[rv[r]]++
                        }
                    }
                    v = ""
                    split("within 15%|same ordering|differs|not run", vs, "|")
                    for (a = 1; a <= 4; a++) if (cnt[vs[a]]) v = v (v == "" ? "" : ", ") (cnt[vs[a]] == k ? (k > 1 ? "all " : "") : cnt[vs[a]] " ") vs[a]
                    cmd = "`sh " script[s] "`"
                    printf "| %s | %s%s | %s%s | %s | %s |\n", mlabel[m], pubt, unitsfx(unit[s]), simt, unitsfx(unit[s]), v, (cmd == prev ? "same" : cmd)
                    prev = cmd
                }
            }
        }'
}

readme_block() {
    echo "$BEGIN_MARK"
    render readme - "${1:-$DOC_CSV}"
    echo "$END_MARK"
}

# the README's block between the markers (markers included)
readme_current() {
    awk -v b="$BEGIN_MARK" -v e="$END_MARK" '$0 == b { on = 1 } on { print } $0 == e { on = 0 }' "$1"
}

# published.json's values as docs/validation.csv's first four columns
published_keys() { flat | awk -F'\t' '$1 == "P" { printf "%s,%s,%s,%s\n", $2, $3, $4, $5 }'; }

cmd=${1:-}
case "$cmd" in
compare) compare ;;
table) [ $# = 2 ] || { echo "usage: $0 table SCRIPT" >&2; exit 2; }
    [ -f "$RES/validation.csv" ] || compare
    LINK_PREFIX=../ render table "$2" "$RES/validation.csv" ;;
summary) [ -f "$RES/validation.csv" ] || compare
    LINK_PREFIX=../ render summary - "$RES/validation.csv" ;;
readme) readme_block "${2:-}" ;;
update)
    compare
    n=$(grep -c ',not run$' "$RES/validation.csv" || true)
    if [ "$n" != 0 ]; then
        echo "$0: $n published values have no simulated counterpart (scripts skipped or not yet run):" >&2
        grep ',not run$' "$RES/validation.csv" | cut -d, -f1 | sort -u | sed 's/^/  /' >&2
        echo "run make figures with MOONCAKE_TRACES set, then this again" >&2
        exit 1
    fi
    cp "$RES/validation.csv" "$DOC_CSV.tmp" && mv "$DOC_CSV.tmp" "$DOC_CSV"
    block=$(readme_block)
    grep -qxF "$BEGIN_MARK" "$ROOT/README.md" || { echo "$0: README.md has no validation table markers" >&2; exit 2; }
    awk -v b="$BEGIN_MARK" -v e="$END_MARK" -v blk="$block" '$0 == b { print blk; skip = 1; next }
        skip && $0 == e { skip = 0; next } !skip { print }' "$ROOT/README.md" >"$ROOT/README.md.tmp"
    mv "$ROOT/README.md.tmp" "$ROOT/README.md"
    echo "validation: docs/validation.csv and README.md's table rewritten" ;;
check)
    readme=${2:-$ROOT/README.md}
    st=0
    want=$(published_keys)
    have=$(sed 1d "$DOC_CSV" | cut -d, -f1-4)
    if [ "$want" != "$have" ]; then
        echo "validation: docs/validation.csv does not hold experiments/published.json's values; after a traced make figures run sh experiments/validation.sh update" >&2
        st=1
    fi
    if [ "$(readme_current "$readme")" != "$(readme_block)" ]; then
        echo "validation: $readme: the validation table is not what sh experiments/validation.sh readme writes from docs/validation.csv" >&2
        st=1
    fi
    exit $st ;;
*) echo "usage: $0 compare | table SCRIPT | summary | readme [CSV] | update | check [README]" >&2; exit 2 ;;
esac
