#!/bin/sh
# tests/style.sh: tree-wide code rules that the compiler does not check.
# No function outside tests/ longer than 80 lines (signature to closing
# brace), in the C sources and the CUDA calibration benchmark. Functions
# are recognized by the layout every source file uses: the body opens with
# '{' at column 0 (C) or at the end of a signature line starting at column
# 0 (C++), and closes with '}' at column 0. Exit 1 naming each offender.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
MAX=80
files=$(ls sim/*/*.c sim/*/*/*.c traces/*.c models/*.c calib/*.c calib/*/*.c calib/*/*.cu \
    fuzz/*.c 2>/dev/null)
[ -n "$files" ] || { echo "style: no sources found" >&2; exit 2; }
out=$(awk -v max="$MAX" '
    FNR == 1 { start = 0 }
    /^[A-Za-z_].*\) *(const *)?\{ *$/ { start = FNR; sig = $0; next }
    /^\{/ { start = prev_sig_line; sig = prev_sig }
    /^\}/ { if (start && FNR - start + 1 > max)
                printf "%s:%d: %d lines: %s\n", FILENAME, start, FNR - start + 1, sig
            start = 0 }
    /^[A-Za-z_]/ && !/;/ { prev_sig = $0; prev_sig_line = FNR }
' $files)
if [ -n "$out" ]; then
    echo "style: functions over $MAX lines:"
    echo "$out"
    exit 1
fi
echo "style: $(echo "$files" | wc -w) files, no function over $MAX lines"
