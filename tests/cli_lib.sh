# tests/cli_lib.sh: what the CLI test scripts share (sourced with NAME set
# to the script's name and BIN to the binary): a temporary folder T removed
# on exit, pass/fail counts, and expect.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/mooncake-$NAME-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect STATUS NEEDLE CMD...: run CMD, check exit status and that stderr
# or stdout contains NEEDLE.
expect() {
    want=$1 needle=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    if [ "$got" != "$want" ]; then
        bad "$* -> exit $got, expected $want: $(head -c 300 "$T/err")"
    elif [ -n "$needle" ] && ! grep -qF -- "$needle" "$T/out" "$T/err"; then
        bad "$* -> output lacks '$needle': $(head -c 300 "$T/err")"
    else
        ok
    fi
}

# traces_why FILE...: nothing when MOONCAKE_TRACES holds every FILE (a
# name there; X.zst also as X, as `make traces` stores it); else why not,
# telling an unset variable from one naming the wrong folder. No FILE:
# nothing is needed.
traces_why() {
    [ $# -gt 0 ] || return 0
    if [ -z "${MOONCAKE_TRACES:-}" ]; then
        echo "MOONCAKE_TRACES not set"
        return 0
    fi
    for _f in "$@"; do
        if [ ! -r "$MOONCAKE_TRACES/$_f" ] && [ ! -r "$MOONCAKE_TRACES/${_f%.zst}" ]; then
            echo "MOONCAKE_TRACES=$MOONCAKE_TRACES holds no $_f"
            return 0
        fi
    done
}

# exp_traces_why EXP: traces_why for the traces experiment file EXP names.
exp_traces_why() {
    traces_why $(grep -o '[$]{MOONCAKE_TRACES}/[^"]*' "$1" | sed 's|.*}/||' | sort -u)
}

# run_pair DIR KEY REF NEW EXP [ARGS...]: run EXP (quiet, with ARGS) once
# with --set KEY=REF into DIR/ref and once with --set KEY=NEW into DIR/new
# (KEY: a reference mode, debug.NAME, docs/development.md); 0 when both
# ran, else the failure is counted and 1.
run_pair() {
    dir=$1 key=$2 ref=$3 new=$4 exp=$5
    shift 5
    if ! "$BIN" run "$exp" --quiet --set "$key=$ref" "$@" --out "$dir/ref" 2>"$T/err" ||
        ! "$BIN" run "$exp" --quiet --set "$key=$new" "$@" --out "$dir/new" 2>"$T/err"; then
        bad "$dir did not run: $(head -c 300 "$T/err")"
        return 1
    fi
}
