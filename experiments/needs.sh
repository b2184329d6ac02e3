# experiments/needs.sh: sourced by figures.sh, reproduce.sh and report.sh.
# An experiment script names the traces it reads on a line of its header,
# "# Traces: conversation_trace synthetic_trace" ("# Traces: none" when it
# generates its workload), so that a script can be skipped by name, before
# it starts, when a trace is missing.

# traces_missing SCRIPT: nothing when every trace SCRIPT names is in
# MOONCAKE_TRACES (NAME.jsonl.zst or NAME.jsonl); otherwise the reason:
# "needs MOONCAKE_TRACES (conversation trace), which is not set", or, when
# it names a folder without them, "needs MOONCAKE_TRACES (conversation
# trace): DIR holds no conversation_trace.jsonl.zst (or .jsonl)". A
# script without a "# Traces:" line is reported as such, never run blind.
traces_missing() {
    _want=$(sed -n 's/^# Traces: *//p' "$1" | head -1)
    if [ -z "$_want" ]; then
        echo "has no '# Traces:' line in its header"
        return 0
    fi
    _miss="" _files=""
    for _t in $_want; do
        [ "$_t" = none ] && continue
        if [ -z "${MOONCAKE_TRACES:-}" ] ||
            { [ ! -r "$MOONCAKE_TRACES/$_t.jsonl.zst" ] && [ ! -r "$MOONCAKE_TRACES/$_t.jsonl" ]; }; then
            _miss="$_miss${_miss:+, }$(echo "$_t" | sed 's/_trace$//') trace"
            _files="$_files${_files:+, }$_t.jsonl.zst"
        fi
    done
    [ -z "$_miss" ] && return 0
    if [ -z "${MOONCAKE_TRACES:-}" ]; then
        echo "needs MOONCAKE_TRACES ($_miss), which is not set"
    else
        echo "needs MOONCAKE_TRACES ($_miss): $MOONCAKE_TRACES holds no $_files (or .jsonl)"
    fi
}
