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
