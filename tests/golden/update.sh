#!/bin/sh
# Refresh the golden expectations from the current build. Run only when a
# change of results is intended, and say why in the commit.
set -eu
: "${MOONCAKE_TRACES:?set MOONCAKE_TRACES to the folder holding the Mooncake traces}"
[ -r "$MOONCAKE_TRACES/conversation_trace.jsonl.zst" ] || [ -r "$MOONCAKE_TRACES/conversation_trace.jsonl" ] || {
    echo "$0: MOONCAKE_TRACES is $MOONCAKE_TRACES, which holds no conversation_trace.jsonl.zst or .jsonl" >&2
    exit 2
}
MOONCAKE_GOLDEN_UPDATE=1 CK_RUN_CASE=core CK_RUN_SUITE=sim "$1"
