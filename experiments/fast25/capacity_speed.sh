#!/bin/sh
# Traces: conversation_trace
# Sustained capacity on the conversation trace, 16 nodes each: the highest
# replay speed (trace.speed) at which Mooncake, vllm, vllm_pc and vllm_cp
# keep an effective request capacity of at least 0.9 (90% of all requests
# with TTFT <= 30 s and TBT <= 0.1 s), found by `mooncake-sim capacity`
# (bracketing from 0.1x, then bisection to 2%). The searches run side by
# side. Writes results/fast25/capacity_speed.{csv,md}.
. "$(dirname "$0")/../lib.sh"
OUT="$ROOT/results/fast25"
W="$OUT/capacity_speed_work"
fresh_dir "$W"
trace_file conversation_trace >/dev/null
EXP="$ROOT/experiments/fast25"
TARGET='slo.effective_request_capacity>=0.9'
# one search per line: system, experiment, extra options
printf '%s\n' "mooncake capacity_conversation_mooncake.json" \
    "vllm capacity_conversation_vllm.json" \
    "vllm_pc capacity_conversation_vllm.json --set system.kind=vllm_pc" \
    "vllm_cp capacity_conversation_vllm.json --set system.kind=vllm_cp" >"$W/searches.txt"
export BIN EXP W TARGET
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
xargs -P "$jobs" -L 1 sh -c 'sys=$0 exp=$1; shift; "$BIN" capacity "$EXP/$exp" --vary trace.speed \
    --target "$TARGET" --lo 0.1 --tol 0.02 --quiet --out "$W/$sys" "$@" >"$W/$sys.txt"' <"$W/searches.txt"
{
    echo "system,max_speed,probes"
    while read -r sys _; do
        echo "$sys,$(jq -r '.capacity' "$W/$sys/capacity.json"),$(jq -r '.probes' "$W/$sys/capacity.json")"
    done <"$W/searches.txt"
} >"$W/rows.csv"
mv "$W/rows.csv" "$OUT/capacity_speed.csv"
col "$OUT/capacity_speed.csv" system max_speed probes |
    awk -F, '{ s[NR] = $1; v[NR] = $2; p[NR] = $3; if ($1 == "vllm") base = $2 }
        END { print "| system | highest speed with >= 90% of requests within SLO | vs vllm | runs |"
              print "|---|---:|---:|---:|"
              for (i = 1; i <= NR; i++) printf "| %s | %.3gx | %.2fx | %d |\n", s[i], v[i], v[i] / base, p[i] }' \
    >"$OUT/capacity_speed.md"
cat "$OUT/capacity_speed.md"
