#!/bin/sh
# tests/cli.sh: the command line as users meet it: help, exit statuses,
# located error messages, nothing half-written on bad input, outputs of a
# small run, byte-identical reruns. Usage: sh tests/cli.sh bin/mooncake-sim
BIN=${1:?usage: cli.sh path/to/mooncake-sim}
NAME=cli
. "$(dirname "$0")/cli_lib.sh"

expect 0 "usage: mooncake-sim COMMAND" "$BIN" --help
expect 0 "usage: mooncake-sim run" "$BIN" run --help
expect 0 "trace.generator.rate_rps" "$BIN" run --help-config
expect 0 "system.params.chunk_tokens" "$BIN" run --help-config
expect 0 "usage: mooncake-sim trace" "$BIN" trace --help
expect 0 "usage: mooncake-sim calib" "$BIN" calib --help
expect 0 "usage: mooncake-sim compare BASE NEW" "$BIN" compare --help
expect 0 "usage: mooncake-sim bench" "$BIN" bench --help
expect 0 "mooncake-sim " "$BIN" --version
expect 2 "unknown command 'fly'" "$BIN" fly
expect 2 "missing command" "$BIN"
expect 2 "expected exactly one experiment file" "$BIN" run
expect 2 "bad option" "$BIN" run --frobnicate x.json

# Bad configs: located messages, exit 2, no output directory.
printf '{\n  "seed": 1,\n  "cluster": {"prefill": 2,}\n}\n' >"$T/syntax.json"
expect 2 "syntax.json:3:" "$BIN" run "$T/syntax.json" --out "$T/o1"
[ ! -e "$T/o1" ] && ok || bad "syntax error left $T/o1"
printf '{"trace": {"generator": {"kind": "kimi"}}, "clustr": {}}\n' >"$T/unknown.json"
expect 2 'unknown.json: $.clustr: unknown key' "$BIN" run "$T/unknown.json" --out "$T/o2"
[ ! -e "$T/o2" ] && ok || bad "unknown key left $T/o2"
printf '{"trace": {"generator": {"kind": "kimi", "requests": 50}}}\n' >"$T/small.json"
expect 2 "--set cluster.prefill=5000: 5000 is out of range" "$BIN" run "$T/small.json" --set cluster.prefill=5000 --out "$T/o3"
expect 2 "unknown config path 'nope'" "$BIN" run "$T/small.json" --set nope=1 --out "$T/o3"
expect 2 "--seed abc" "$BIN" run "$T/small.json" --seed abc --out "$T/o3"
expect 2 "--set cluster.colocated=4: now system.params.instances" "$BIN" run "$T/small.json" --set cluster.colocated=4 --out "$T/o3"
expect 2 "small.json: \$.cluster: system vllm runs its own instances" "$BIN" run "$T/small.json" --set system.kind=vllm --out "$T/o3"
[ ! -e "$T/o3" ] && ok || bad "bad --set left $T/o3"
printf '{"trace": {"path": "${MOONCAKE_CLI_UNSET_VAR}/x.jsonl"}}\n' >"$T/env.json"
expect 2 'env.json: $.trace.path: environment variable MOONCAKE_CLI_UNSET_VAR is not set' "$BIN" run "$T/env.json" --out "$T/o4"
printf '{"trace": {"path": "%s/missing.jsonl"}}\n' "$T" >"$T/missing.json"
expect 2 "missing.jsonl: cannot open" "$BIN" run "$T/missing.json" --out "$T/o4"
# A trace that breaks on its third line: no partial results.
printf '%s\n' '{"timestamp": 0, "input_length": 600, "output_length": 4, "hash_ids": [0, 1]}' \
    '{"timestamp": 10, "input_length": 600, "output_length": 4, "hash_ids": [0, 2]}' \
    '{"timestamp": 20, "input_length": 600, "output_length": 4, "hash_ids": [0]}' >"$T/short.jsonl"
printf '{"trace": {"path": "%s/short.jsonl"}}\n' "$T" >"$T/short.json"
expect 2 "short.jsonl:3:" "$BIN" run "$T/short.json" --out "$T/o4"
[ ! -e "$T/o4" ] && ok || bad "trace error left $T/o4"
mkdir "$T/o5"
expect 2 "short.jsonl:3:" "$BIN" run "$T/short.json" --out "$T/o5"
[ -z "$(ls -A "$T/o5")" ] && ok || bad "trace error left files in an existing directory: $(ls -A "$T/o5")"

# A good run: the table, the three files, nothing temporary, reruns identical.
expect 0 "requests     50 total" "$BIN" run "$T/small.json" --out "$T/r1"
for f in summary.json requests.csv config.json timeseries.csv; do
    [ -s "$T/r1/$f" ] && ok || bad "run did not write $f"
done
[ "$(ls -A "$T/r1" | wc -l)" = 5 ] && ok || bad "unexpected files in output: $(ls -A "$T/r1")"
head -1 "$T/r1/timeseries.csv" | grep -q '^time_s,pd_gbps,fetch_gbps,stage_gbps,repl_gbps,nic_util_mean,nic_util_max' && ok || bad "timeseries.csv header"
[ "$(wc -l <"$T/r1/requests.csv")" = 51 ] && ok || bad "requests.csv should have 50 rows"
head -1 "$T/r1/requests.csv" | grep -q '^id,arrival_s,input_tokens,output_tokens,status,prefill_instance,decode_instance,cached_tokens,ttft_s,tbt_mean_s,tbt_p90_s,tbt_max_s,tbt_top10_s,finish_s' && ok || bad "requests.csv header"
expect 0 "" "$BIN" run "$T/small.json" --out "$T/r2" --quiet
[ ! -s "$T/out" ] && ok || bad "--quiet printed to stdout"
cmp -s "$T/r1/requests.csv" "$T/r2/requests.csv" && ok || bad "requests.csv differs between identical runs"
cmp -s "$T/r1/config.json" "$T/r2/config.json" && ok || bad "config.json differs between identical runs"
cmp -s "$T/r1/timeseries.csv" "$T/r2/timeseries.csv" && ok || bad "timeseries.csv differs between identical runs"
cmp -s "$T/r1/summary.json" "$T/r2/summary.json" && ok || bad "summary.json differs between identical runs"
grep -q '"wall_s"' "$T/r1/timing.json" && ok || bad "timing.json lacks wall_s"
expect 0 "" "$BIN" run "$T/small.json" --out "$T/r3" --quiet --seed 7
cmp -s "$T/r1/requests.csv" "$T/r3/requests.csv" && bad "--seed changed nothing" || ok
grep -q '"seed": 7' "$T/r3/config.json" && ok || bad "config.json lacks the --seed value"
# The effective config reproduces the run.
expect 0 "" "$BIN" run "$T/r1/config.json" --out "$T/r4" --quiet
cmp -s "$T/r1/requests.csv" "$T/r4/requests.csv" && ok || bad "effective config.json does not reproduce the run"

# An output directory holding another experiment: refused with exit 2 and
# left untouched; the same experiment reruns over it byte for byte; --force
# overwrites.
expect 0 "-f, --force" "$BIN" run --help
expect 0 "" "$BIN" run "$T/small.json" --out "$T/g" --quiet
cp -r "$T/g" "$T/g0"
expect 0 "" "$BIN" run "$T/small.json" --out "$T/g" --quiet
for f in requests.csv config.json timeseries.csv; do
    cmp -s "$T/g0/$f" "$T/g/$f" && ok || bad "a rerun of the same experiment changed $f"
done
cmp -s "$T/g/summary.json" "$T/g0/summary.json" && ok || bad "a rerun of the same experiment changed summary.json"
cp "$T/g/summary.json" "$T/g0/summary.json"
expect 2 "mooncake-sim: $T/g: holds a different experiment (config.json differs at \$.cluster.prefill: 8 there, 4 in this run); use --force to overwrite or choose another --out" \
    "$BIN" run "$T/small.json" --out "$T/g" --set cluster.prefill=4 --quiet
expect 2 "differs at \$.seed: 42 there, 7 in this run" "$BIN" run "$T/small.json" --out "$T/g" --seed 7
for f in summary.json requests.csv config.json timeseries.csv; do
    cmp -s "$T/g0/$f" "$T/g/$f" && ok || bad "a refused run touched $f"
done
[ "$(ls -A "$T/g" | wc -l)" = 5 ] && ok || bad "a refused run left files: $(ls -A "$T/g")"
mkdir "$T/gb"
printf '{"seed": 4' >"$T/gb/config.json"
expect 2 "$T/gb: holds a config.json that cannot be read ($T/gb/config.json:1:" "$BIN" run "$T/small.json" --out "$T/gb"
[ "$(ls -A "$T/gb")" = config.json ] && ok || bad "a refused run left files: $(ls -A "$T/gb")"
expect 0 "requests     50 total" "$BIN" run "$T/small.json" --out "$T/g" --set cluster.prefill=4 --force
grep -q '"prefill": 4,' "$T/g/config.json" && ok || bad "--force did not overwrite config.json"
cmp -s "$T/g0/requests.csv" "$T/g/requests.csv" && bad "--force left the old requests.csv" || ok
expect 0 "" "$BIN" run "$T/small.json" --out "$T/gb" -f --quiet
[ "$(ls -A "$T/gb" | wc -l)" = 5 ] && ok || bad "-f did not write over an unreadable config.json"

# search: the sustained capacity of one colocated instance (prompts of
# 8,192 tokens, one-token answers, near-periodic arrivals)
expect 0 "usage: mooncake-sim search" "$BIN" search --help
expect 0 "search EXP.json" "$BIN" --help
printf '%s\n' '{"name": "known", "cluster": {"prefill": 0, "decode": 0},' \
    ' "system": {"kind": "vllm", "params": {"instances": 1, "prefill_tokens": 8192}}, "metrics": {"interval_s": 0},' \
    ' "trace": {"generator": {"kind": "kimi", "rate_rps": 0.2, "arrival": "gamma", "arrival_cv": 0.01,' \
    '  "input": {"dist": "constant", "mean": 8192, "min": 8192, "max": 8192},' \
    '  "output": {"dist": "constant", "mean": 1, "min": 1, "max": 1}, "system_prompt_tok": 0, "p_continue": 0}}}' \
    >"$T/known.json"
# a colocated system's effective config: its kind and every parameter
expect 0 "" "$BIN" run "$T/known.json" --set trace.generator.requests=20 --quiet --out "$T/known_run"
grep -q '"kind": "vllm",' "$T/known_run/config.json" && grep -q '"instances": 1,' "$T/known_run/config.json" &&
    grep -q '"prefill_tokens": 8192' "$T/known_run/config.json" && ok || bad "config.json lacks system.kind or system.params"
expect 2 "bad option" "$BIN" search "$T/known.json" --lo 0.2 --frobnicate
expect 2 "expected exactly one experiment file" "$BIN" search --lo 0.2
expect 2 "--lo is required" "$BIN" search "$T/known.json"
expect 2 "--lo abc: expected a number > 0" "$BIN" search "$T/known.json" --lo abc
expect 2 "--hi 0.1: must be above --lo 0.2" "$BIN" search "$T/known.json" --lo 0.2 --hi 0.1
expect 2 "--tol 0: expected a number in" "$BIN" search "$T/known.json" --lo 0.2 --tol 0
expect 2 "--min-requests 2.5: expected an integer" "$BIN" search "$T/known.json" --lo 0.2 --min-requests 2.5
expect 2 "--param nope: unknown config key" "$BIN" search "$T/known.json" --lo 0.2 --param nope
expect 2 "--param model: not a numeric config key" "$BIN" search "$T/known.json" --lo 0.2 --param model
expect 2 "--param trace.generator.requests: the search sets it" "$BIN" search "$T/known.json" --lo 0.2 \
    --param trace.generator.requests
expect 2 "--lo 1.5: expected an integer" "$BIN" search "$T/known.json" --lo 1.5 --param cluster.decode_max_batch
expect 2 "--set nope=1: unknown config path" "$BIN" search "$T/known.json" --lo 0.2 --set nope=1 --out "$T/search0"
expect 2 'unknown.json: $.clustr: unknown key' "$BIN" search "$T/known.json" --lo 0.2 --ref "$T/unknown.json" --out "$T/search0"
# never bracketed within the probe cap: an error, and nothing written
expect 2 "known.json: trace.generator.rate_rps: never bracketed" "$BIN" search "$T/known.json" --lo 0.2 \
    --ttft-p90 1e6 --tbt-p90 1 --max-probes 3 --min-requests 100 --out "$T/search0"
[ ! -e "$T/search0" ] && ok || bad "a failed search left $T/s0"
expect 0 "capacity" "$BIN" search "$T/known.json" --lo 0.2 --min-requests 200 --out "$T/search1" --quiet
grep -q "^search: trace.generator.rate_rps capacity 1.0" "$T/out" && ok || bad "search result line: $(cat "$T/out")"
[ ! -s "$T/err" ] && ok || bad "search --quiet wrote to stderr"
[ "$(ls -A "$T/search1" | tr '\n' ' ')" = "probes.csv search.json " ] && ok || bad "search files: $(ls -A "$T/search1")"
head -1 "$T/search1/probes.csv" | grep -q '^value,requests,ttft_p90_s,tbt_p90_s,ttft_norm,tbt_norm,pass,tbt_interval_p90_s$' && ok || bad "probes.csv header"
sed -n 2p "$T/search1/probes.csv" | grep -q '^0.2,200,.*,0.1,0,1,[0-9.e-]*$' && ok || bad "probes.csv: the lower bound is the reference run"
grep -q '"found": true' "$T/search1/search.json" && grep -q '"ttft_factor": 10' "$T/search1/search.json" && ok || bad "search.json"
expect 0 "search: probe trace.generator.rate_rps=0.2" "$BIN" search "$T/known.json" --lo 0.2 --min-requests 200 --out "$T/search2"
cmp -s "$T/search1/probes.csv" "$T/search2/probes.csv" && cmp -s "$T/search1/search.json" "$T/search2/search.json" && ok || bad "search reruns differ"
# a lower bound that fails: capacity none, still a result
expect 0 "capacity none: the lower bound 0.2 fails" "$BIN" search "$T/known.json" --lo 0.2 --ttft-p90 0.5 \
    --min-requests 100 --out "$T/search3" --quiet
grep -q '"found": false' "$T/search3/search.json" && grep -q '"capacity": 0' "$T/search3/search.json" && ok || bad "search.json of no capacity"

# compare: two small runs of the default experiment under two placements
expect 0 "" "$BIN" run experiments/default.json --set trace.generator.requests=200 --out "$T/cmp-a" --quiet
expect 0 "" "$BIN" run experiments/default.json --set trace.generator.requests=200 \
    --set scheduler.policy=load_balance --out "$T/cmp-b" --quiet
expect 0 "ok ttft_s.p90" "$BIN" compare "$T/cmp-a" "$T/cmp-a" --max-regress ttft_s.p90=0% \
    --max-regress slo.attainment=-0
grep -q "^ttft_s.p90 " "$T/out" && ok || bad "compare table lacks ttft_s.p90"
! grep -q "wall_s" "$T/out" && ok || bad "compare printed sim.wall_s"
expect 0 "" "$BIN" compare "$T/cmp-a" "$T/cmp-a/summary.json" -m ttft_s.p90=0% --quiet
[ ! -s "$T/out" ] && ok || bad "compare --quiet printed without a violation"
expect 0 "cache.hit_rate_tokens" "$BIN" compare "$T/cmp-a" "$T/cmp-b" -m requests.total=0
# an injected regression: P90 TTFT (the first "p90" in summary.json) +10%
awk '/"p90":/ && !done { sub(/[0-9.eE+-]+,$/, sprintf("%.10g,", $2 * 1.1)); done = 1 } { print }' \
    "$T/cmp-a/summary.json" >"$T/slower.json"
expect 1 "VIOLATED ttft_s.p90" "$BIN" compare "$T/cmp-a" "$T/slower.json" --max-regress ttft_s.p90=5% --quiet
[ "$(wc -l <"$T/out")" = 1 ] && ok || bad "compare --quiet should print the one violation: $(cat "$T/out")"
expect 0 "" "$BIN" compare "$T/cmp-a" "$T/slower.json" --max-regress ttft_s.p90=15% --quiet
expect 0 "" "$BIN" compare "$T/slower.json" "$T/cmp-a" --max-regress ttft_s.p90=5% --quiet
# bad input
expect 2 "expected BASE and NEW" "$BIN" compare "$T/cmp-a"
expect 2 "no-run: unable to open" "$BIN" compare "$T/no-run" "$T/cmp-a"
expect 2 "nothing.json: unable to open" "$BIN" compare "$T/cmp-a" "$T/nothing.json"
expect 2 "syntax.json:3:" "$BIN" compare "$T/syntax.json" "$T/cmp-a"
mkdir "$T/no-run"
expect 2 "no-run/summary.json: unable to open" "$BIN" compare "$T/no-run" "$T/cmp-a"
expect 2 "--max-regress ttft_s.p90=5 %: bad bound" "$BIN" compare "$T/cmp-a" "$T/cmp-a" -m "ttft_s.p90=5 %"
expect 2 "expected METRIC=BOUND" "$BIN" compare "$T/cmp-a" "$T/cmp-a" -m ttft_s.p90
expect 2 'summary.json: $.ttft_s.p95: no such numeric metric' "$BIN" compare "$T/cmp-a" "$T/cmp-a" -m ttft_s.p95=5%
expect 2 "sim.wall_s: not compared" "$BIN" compare "$T/cmp-a" "$T/cmp-a" -m sim.wall_s=5%

# trace stats
expect 2 "short.jsonl:3:" "$BIN" trace stats "$T/short.jsonl"
printf '%s\n' '{"timestamp": 0, "input_length": 600, "output_length": 4, "hash_ids": [0, 1]}' \
    '{"timestamp": 1500, "input_length": 100, "output_length": 8, "hash_ids": [5]}' >"$T/two.jsonl"
expect 0 '"span_s": 1.5' "$BIN" trace stats "$T/two.jsonl"
expect 0 '"mean_output": 6' "$BIN" trace stats "$T/two.jsonl"
expect 2 "expected 'stats FILE'" "$BIN" trace
expect 2 "cannot open" "$BIN" trace stats "$T/none.jsonl"

# trace cache: the hit rate of one global pool per capacity
printf '%s\n' '{"timestamp": 0, "input_length": 1024, "output_length": 4, "hash_ids": [0, 1]}' \
    '{"timestamp": 1, "input_length": 1000, "output_length": 4, "hash_ids": [0, 1]}' \
    '{"timestamp": 2, "input_length": 1024, "output_length": 4, "hash_ids": [5, 6]}' >"$T/reuse.jsonl"
expect 0 '"inf": 0.32' "$BIN" trace cache "$T/reuse.jsonl" --capacity-tokens 512,inf
expect 0 '"512": 0' "$BIN" trace cache "$T/reuse.jsonl" --capacity-tokens 512,inf --policy lfu
# The valid names are the registry's, as --help-config lists them.
evict_names=$("$BIN" run --help-config | sed -n 's/^  cache\.policy .*{\(.*\)}$/\1/p' | sed 's/|/, /g')
expect 2 "unknown eviction policy 'no_such_policy' (valid: $evict_names)" "$BIN" trace cache "$T/reuse.jsonl" --capacity-tokens 512 --policy no_such_policy
expect 0 '"512": 0' "$BIN" trace cache "$T/reuse.jsonl" --capacity-tokens 512,inf --policy s3fifo
expect 2 "'lots' is not a count or inf" "$BIN" trace cache "$T/reuse.jsonl" --capacity-tokens 512,lots
expect 2 "--capacity-tokens is required" "$BIN" trace cache "$T/reuse.jsonl"
expect 0 '"ideal_hit_rate_tokens": 0.32' "$BIN" trace stats "$T/reuse.jsonl"

# a generator whose arrivals would overflow simulated time: located error
printf '{"trace": {"generator": {"kind": "arxiv", "requests": 20000, "rate_rps": 1e-6}}}\n' >"$T/slow.json"
expect 2 "slow.json: \$.trace.generator.rate_rps: request 8928 arrives beyond" "$BIN" trace gen "$T/slow.json" -o "$T/slow.jsonl"
[ ! -e "$T/slow.jsonl" ] && ok || bad "trace gen left slow.jsonl"

# calib
expect 2 "expected 'fit" "$BIN" calib fit x.json
expect 2 "nope.json" "$BIN" calib fit "$T/nope.json" -o "$T/c.json"
# network: loopback TCP measured, fitted, reported
expect 0 "1048576 bytes" "$BIN" calib tcp --sizes 4096,65536,1048576 --iters 3 -o "$T/tcp.json"
expect 0 "network  3 points" "$BIN" calib fit "$T/tcp.json" -o "$T/tcpfit.json"
expect 0 "latency" "$BIN" calib report "$T/tcpfit.json"
[ -s "$T/tcpfit.json.residuals.csv" ] && ok || bad "calib fit wrote no residuals"
# ... and drives a run as its transport; a typo is a located error
expect 0 "requests     50 total" "$BIN" run "$T/small.json" --set network.transport="$T/tcpfit.json" --out "$T/net1"
grep -qF "\"transport\": \"$T/tcpfit.json\"" "$T/net1/summary.json" && ok || bad "summary lacks the calibrated transport"
expect 2 "\$.network.transport: 'rdmaa' is neither a transport (valid: rdma, tcp)" "$BIN" run "$T/small.json" \
    --set network.transport=rdmaa --out "$T/net2"
expect 2 "\$.kind: 'points' is not a network calibration" "$BIN" run "$T/small.json" \
    --set network.transport=models/calib/h800x8.json --out "$T/net2"
[ ! -e "$T/net2" ] && ok || bad "a refused transport left $T/net2"
expect 2 "'huge' is not" "$BIN" calib tcp --sizes 4096,huge -o "$T/never.json"
expect 2 "--hardware tpu: unknown hardware (valid: a800x8" "$BIN" calib roofline -H tpu -m llama3-8b -o "$T/never.json"
[ ! -e "$T/never.json" ] && ok || bad "calib wrote never.json on bad input"
# spec-derived calibration: loads, is marked as such, and a run can use it
expect 0 "" "$BIN" calib roofline -H h200x8 -m llama3-8b -o "$T/roof.json"
expect 0 "NOT MEASURED" "$BIN" calib report "$T/roof.json"
expect 0 "NOT MEASURED" "$BIN" calib report models/calib/h800x8.json
expect 0 "FAST'25" "$BIN" calib report models/calib/a800x8.json
# every shipped calibration drives a run (by name, and found from hardware/model)
for c in a800x8:llama2-70b:a800x8 h800x8:llama3-70b:h800x8 h200x8:llama2-70b: \
         a800x8:llama3-8b: h800x8:llama3-8b:h800x8-llama3-8b h200x8:llama3-8b: \
         h200x8:llama2-70b:h200x8-measured-llama2-70b h200x8:llama3-8b:h200x8-measured-llama3-8b; do
    hw=${c%%:*} rest=${c#*:}
    expect 0 "requests     50 total" "$BIN" run "$T/small.json" --set hardware=$hw \
        --set model=${rest%%:*} --set cost.calibration=${rest#*:} --out "$T/cal-$hw"
    rm -rf "$T/cal-$hw"
done
expect 0 "requests     50 total" "$BIN" run "$T/small.json" --set cost.calibration="$T/roof.json" \
    --set hardware=h200x8 --set model=llama3-8b --out "$T/cal-file"
expect 2 "calibration is for 'h200x8'" "$BIN" run "$T/small.json" --set cost.calibration="$T/roof.json" \
    --out "$T/cal-bad"
[ ! -e "$T/cal-bad" ] && ok || bad "a refused calibration left $T/cal-bad"

# bench needs a trace
(unset MOONCAKE_TRACES; expect 2 "set MOONCAKE_TRACES" "$BIN" bench)

# option tables (sim/core/opts.c): every option a command's --help lists, long
# form and short, is one its parser takes; bad options keep their message
for c in run trace search compare calib bench sweep capacity; do
    "$BIN" $c --help >"$T/help" 2>&1
    n=0
    for o in $(sed -n -e 's/^  \(-[A-Za-z]\), \(--[a-z-]*\).*/\1 \2/p' \
                      -e 's/^      \(--[a-z-]*\).*/\1/p' "$T/help"); do
        n=$((n + 1))
        "$BIN" $c $o </dev/null >"$T/out" 2>&1
        if grep -q "unrecognized option\|invalid option" "$T/out"; then
            bad "$c $o: listed in --help but refused"
        else
            ok
        fi
    done
    [ "$n" -ge 2 ] && ok || bad "$c --help lists $n option forms"
    expect 2 "mooncake-sim $c: bad option (try 'mooncake-sim $c --help')" "$BIN" $c --no-such-option
    expect 2 "mooncake-sim $c: bad option" "$BIN" $c -Z
done
expect 0 "trace.generator.rate_rps" "$BIN" run --help-c      # a prefix of a hidden option
expect 2 "option '--tt' is ambiguous" "$BIN" search x.json --lo 1 --tt 2
expect 2 "requires an argument" "$BIN" search x.json --lo
expect 2 "doesn't allow an argument" "$BIN" run x.json --quiet=1
expect 0 "                        (default EXP itself)" "$BIN" search --help
expect 0 "Exit status: 0 every point ran" "$BIN" sweep --help
expect 2 "--max-probes 1: expected an integer in [2, 1000]" "$BIN" search x.json --lo 1 --max-probes 1

# The output directory is published whole: a folder holding anything else
# is refused; a run killed by a signal leaves no directory, and nothing
# hidden beside it, and exits 128 + the signal.
mkdir -p "$T/mine" && echo notes >"$T/mine/notes.md"
expect 2 "holds 'notes.md', which is not a run's output" "$BIN" run "$T/small.json" --out "$T/mine" --force
[ "$(ls -A "$T/mine")" = notes.md ] && ok || bad "a refused run touched a folder of other files"
# --out DIR/ names DIR, new or a run's (no private directory inside it);
# an empty --out is a usage error.
expect 0 "" "$BIN" run "$T/small.json" --quiet --out "$T/slash/run/"
[ -s "$T/slash/run/summary.json" ] && [ "$(ls -A "$T/slash")" = run ] && ok || bad "--out DIR/: $(ls -A "$T/slash")"
expect 0 "" "$BIN" run "$T/small.json" --quiet --out "$T/slash/run/"
[ "$(ls -A "$T/slash")" = run ] && ok || bad "--out DIR/ over a run left: $(ls -A "$T/slash")"
expect 2 "--out: an empty directory" "$BIN" run "$T/small.json" --quiet --out ""
expect 2 "--out: an empty directory" "$BIN" sweep "$T/small.json" --quiet --out ""
# (10^8 requests: hours of work on any machine, so the signal comes
# mid-run however fast the build and the machine are.)
printf '{"trace": {"generator": {"kind": "kimi", "requests": 100000000, "rate_rps": 50}}}\n' >"$T/long.json"
mkdir -p "$T/sig"
"$BIN" run "$T/long.json" --quiet --out "$T/sig/run" &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
st=$?
[ "$st" = 143 ] && ok || bad "a run killed by SIGTERM exited $st, not 143"
[ -z "$(ls -A "$T/sig")" ] && ok || bad "a killed run left: $(ls -A "$T/sig")"
# A signal the caller ignored (nohup, trap '' TERM) stays ignored: the
# run goes on (then SIGKILL ends it; its leftovers are removed here).
mkdir -p "$T/sigign"
sh -c "trap '' TERM; exec \"\$0\" run \"\$1\" --quiet --out \"\$2\"" "$BIN" "$T/long.json" \
    "$T/sigign/run" &
pid=$!
sleep 1
kill -TERM "$pid"
sleep 1
kill -0 "$pid" 2>/dev/null && ok || bad "a run started with SIGTERM ignored died of it"
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
rm -rf "$T/sigign"

# config.json reproduces its run exactly: every shipped experiment (first
# 300 requests, at a speed that needs 12 significant digits) rerun from
# the config.json it wrote gives the same files, byte for byte.
EXPS=$(cd "$(dirname "$0")/.." && ls experiments/*.json experiments/*/*.json | grep -v -e 'sweep\.json$' -e '^experiments/published.json$')
for f in $EXPS; do
    src="$(dirname "$0")/../$f"
    if grep -q 'set-by-script' "$src"; then continue; fi # their scripts write the trace
    why=$(exp_traces_why "$src")
    if [ -n "$why" ]; then
        echo "SKIP: rerun from config.json: $f ($why)"
        continue
    fi
    d="$T/rr/$(echo "$f" | tr / _)"
    if ! "$BIN" run "$src" --quiet --set trace.limit=300 --set trace.speed=1.00000000049 --out "$d/a" 2>"$T/err"; then
        bad "$f did not run: $(head -c 200 "$T/err")"
        continue
    fi
    "$BIN" run "$d/a/config.json" --quiet --out "$d/b" 2>"$T/err" || bad "$f: rerun from config.json failed: $(head -c 200 "$T/err")"
    for x in summary.json requests.csv timeseries.csv config.json; do
        cmp -s "$d/a/$x" "$d/b/$x" && ok || bad "$f: rerun from its config.json changed $x"
    done
done
grep -q '"speed": 1.00000000049,' "$T/rr/experiments_default.json/a/config.json" && ok ||
    bad "config.json did not keep trace.speed's 12 digits"
# config.json records its inputs: a relative trace path made absolute, so
# a rerun from another directory works and is identical; a changed trace
# is a warning naming it; a bad inputs section is a located error.
mkdir -p "$T/inp/tr" "$T/inp/other"
ABIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
awk 'BEGIN { for (i = 0; i < 40; i++) printf "{\"timestamp\": %d, \"input_length\": 1000, \"output_length\": 20, \"hash_ids\": [%d, %d]}\n", i * 500, i % 3, 100 + i }' >"$T/inp/tr/t.jsonl"
printf '{"trace": {"path": "tr/t.jsonl"}}\n' >"$T/inp/rel.json"
(cd "$T/inp" && "$ABIN" run rel.json --quiet --out a) && ok || bad "run with a relative trace path failed"
grep -q "\"path\": \"$T/inp/tr/t.jsonl\"" "$T/inp/a/config.json" && grep -q '"given": "tr/t.jsonl"' "$T/inp/a/config.json" &&
    grep -q '"fnv1a64": "[0-9a-f]\{16\}"' "$T/inp/a/config.json" && ok || bad "config.json lacks the absolute path or its inputs record"
(cd "$T/inp/other" && "$ABIN" run ../a/config.json --quiet --out ../b) 2>"$T/err" && [ ! -s "$T/err" ] && ok ||
    bad "rerun from another directory: $(head -c 300 "$T/err")"
for x in requests.csv config.json; do cmp -s "$T/inp/a/$x" "$T/inp/b/$x" && ok || bad "rerun from another directory changed $x"; done
echo '{"timestamp": 99000, "input_length": 10, "output_length": 1, "hash_ids": [7]}' >>"$T/inp/tr/t.jsonl"
expect 0 "$T/inp/a/config.json: \$.inputs.trace: $T/inp/tr/t.jsonl is not the file this config recorded" \
    "$BIN" run "$T/inp/a/config.json" --quiet --out "$T/inp/c"
sed 's/"fnv1a64": "[0-9a-f]*"/"fnv1a64": "xyz"/' "$T/inp/a/config.json" >"$T/inp/badrec.json"
expect 2 "badrec.json: \$.inputs.trace.fnv1a64: expected 16 lowercase hex digits" "$BIN" run "$T/inp/badrec.json" --out "$T/inp/d"
expect 2 "not a UTF-8 string" "$BIN" run "$T/small.json" --set "description=$(printf 'bad \377 byte')" --out "$T/utf"
expect 2 "--seed 9007199254740993: expected an integer in [0, 2^53]" "$BIN" run "$T/small.json" --seed 9007199254740993 --out "$T/s53"
expect 2 "9007199254740993 is out of range [0, 9007199254740992]" "$BIN" run "$T/small.json" --set seed=9007199254740993 --out "$T/s53"
expect 2 "--seed 1234567890123456789012345678901234567890...: expected an integer" "$BIN" run "$T/small.json" --seed 123456789012345678901234567890123456789012345678901234567890 --out "$T/s53"

# Hardening: physical ranges, located errors, no requests, duplicate trace
# fields, dotted keys in files; a failed write exits 1, bad input 2.
expect 2 "--set network.nic_gbps=1e-9: 1e-09 is out of range [0.01, 100000] (or exactly -1)" "$BIN" run "$T/small.json" --set network.nic_gbps=1e-9 --out "$T/h1"
expect 2 "--set metrics.interval_s=1e-10: 1e-10 is out of range [0.001, 1e+06] (or exactly 0)" "$BIN" run "$T/small.json" --set metrics.interval_s=1e-10 --out "$T/h1"
expect 2 "small.json: \$.model, \$.cluster.vram_reserve_frac: model llama2-70b" "$BIN" run "$T/small.json" --set cluster.vram_reserve_frac=0.9 --out "$T/h1"
printf '{"cluster.prefill": 2, "trace": {"generator": {"kind": "kimi"}}}\n' >"$T/flat.json"
expect 2 'flat.json: $.cluster.prefill: the key "cluster.prefill" holds a '"'.'"': a config file nests it, {"cluster": {"prefill": ...}}' "$BIN" run "$T/flat.json" --out "$T/h1"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n' >"$T/hdr.csv"
: >"$T/empty.jsonl"
printf '{"timestamp": 0, "input_length": 10, "input_length": 20, "output_length": 5, "hash_ids": [1]}\n' >"$T/dup.jsonl"
for x in hdr.csv empty.jsonl dup.jsonl; do printf '{"trace": {"path": "%s/%s"}}\n' "$T" "$x" >"$T/t_$x.json"; done
expect 2 "hdr.csv: no requests" "$BIN" run "$T/t_hdr.csv.json" --out "$T/h1"
expect 2 "empty.jsonl: no requests" "$BIN" run "$T/t_empty.jsonl.json" --out "$T/h1"
expect 2 "dup.jsonl:1: duplicate field 'input_length'" "$BIN" run "$T/t_dup.jsonl.json" --out "$T/h1"
[ ! -e "$T/h1" ] && ok || bad "bad input left $T/h1"
# Timestamps are exact to the ns past 2^53 ns (a double's ms x 1e6 is not):
# trace gen gives back the very text; past int64 ns is a located error.
printf '%s\n' '{"timestamp": 576460752305, "input_length": 600, "output_length": 3, "hash_ids": [0, 1]}' \
    '{"timestamp": 576460752305.000001, "input_length": 10, "output_length": 1, "hash_ids": [0]}' \
    '{"timestamp": 9200000000000, "input_length": 1, "output_length": 1, "hash_ids": [2]}' >"$T/ts53.jsonl"
printf '{"trace": {"path": "%s/ts53.jsonl"}}\n' "$T" >"$T/ts53.json"
expect 0 "" "$BIN" trace gen "$T/ts53.json" --out "$T/ts53.out.jsonl"
cmp -s "$T/ts53.jsonl" "$T/ts53.out.jsonl" && ok || bad "timestamps past 2^53 ns did not come back exactly: $(head -c 200 "$T/ts53.out.jsonl")"
printf '{"timestamp": 9200000000001, "input_length": 1, "output_length": 1, "hash_ids": [2]}\n' >"$T/ts64.jsonl"
printf '{"trace": {"path": "%s/ts64.jsonl"}}\n' "$T" >"$T/ts64.json"
expect 2 "ts64.jsonl:1: field 'timestamp' is absurd" "$BIN" trace gen "$T/ts64.json"
expect 1 "$T/h2/requests.csv: write failed: File too large" sh -c 'trap "" XFSZ; ulimit -f 1; exec "$0" run "$1" --quiet --out "$2"' "$BIN" "$T/small.json" "$T/h2"
[ ! -e "$T/h2" ] && ok || bad "a failed write left $T/h2"
# Every command: a write that fails exits 1 naming the file and the real
# reason (the target taken by a directory, a file-size limit, a full
# device, written in place and never replaced by a file; stdout full).
W="$T/w" && mkdir -p "$W/gen.jsonl" "$W/s1/search.json" && ln -s /dev/full "$W/full"
expect 1 "$W/gen.jsonl: cannot rename into place: Is a directory" "$BIN" trace gen "$T/small.json" --out "$W/gen.jsonl"
expect 1 "$W/gu.jsonl: write failed: File too large" sh -c 'trap "" XFSZ; ulimit -f 1; exec "$0" trace gen "$1" --out "$2"' "$BIN" "$T/small.json" "$W/gu.jsonl"
expect 1 "$W/full: write failed: No space left on device" "$BIN" trace gen "$T/small.json" --out "$W/full"
[ -L "$W/full" ] && ok || bad "trace gen --out replaced a link to a device"
[ "$(ls -A "$W" | wc -l)" = 3 ] && ok || bad "a failed trace gen left a file in $W"
expect 1 "stdout: write failed: No space left on device" sh -c 'exec "$0" trace gen "$1" >/dev/full' "$BIN" "$T/small.json"
"$BIN" trace gen "$T/small.json" --out "$W/g.jsonl" && ok || bad "trace gen failed"
expect 1 "stdout: write failed: No space left on device" sh -c 'exec "$0" trace stats "$1" >/dev/full' "$BIN" "$W/g.jsonl"
expect 1 "stdout: write failed: No space left on device" sh -c 'exec "$0" trace cache "$1" --capacity-tokens 1000 >/dev/full' "$BIN" "$W/g.jsonl"
expect 1 "stdout: write failed: No space left on device" sh -c 'exec "$0" run "$1" --out "$2" >/dev/full' "$BIN" "$T/small.json" "$W/r"
expect 1 "$W/s1/search.json: cannot rename into place: Is a directory" "$BIN" search "$T/known.json" --lo 0.2 \
    --ttft-p90 1e-6 --tbt-p90 1 --min-requests 20 --quiet --out "$W/s1"
expect 1 "$W/s2/search.json: write failed: File too large" sh -c 'trap "" XFSZ; ulimit -f 1; exec "$0" search "$1" --lo 0.2 --ttft-p90 1e-6 --tbt-p90 1 --min-requests 20 --quiet --out "$2"' "$BIN" "$T/known.json" "$W/s2"
[ ! -e "$W/s2" ] && ok || bad "a failed search left $W/s2"

# A prefix fetched from another node's pool is held in the prefill node's
# DRAM until its prefill reads it: no request reuses fewer tokens than it
# fetched, even when stores of prefills queued ahead overflow a small tier.
printf '{"name": "pin", "cluster": {"prefill": 4, "decode": 4}, "cache": {"scope": "global", "dram_tokens": 20480, "ssd_tokens": 0},\n "trace": {"generator": {"kind": "kimi", "requests": 200}}}\n' >"$T/pin.json"
expect 0 "" "$BIN" run "$T/pin.json" --quiet --out "$T/pin"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["fetched_tokens"] > 0 { f++ } $c["cached_tokens"] < $c["fetched_tokens"] { print "request " $1 ": cached " $c["cached_tokens"] " < fetched " $c["fetched_tokens"]; w++ }
    END { exit !(f >= 10 && w == 0) }' "$T/pin/requests.csv" >"$T/pin.txt" && ok ||
    bad "fetched prefixes evicted before their prefill: $(head -c 300 "$T/pin.txt")"

# check: every shipped experiment (first 300 requests) and colocated,
# admission, CPP, inlining, preemption and pool variants hold the
# invariants README "Outputs" documents (known failures are printed, not
# counted); a tampered copy fails with its file and line, bad input is 2.
expect 0 "usage: mooncake-sim check DIR" "$BIN" check --help
expect 0 "ts_loads" "$BIN" check --list
expect 2 "expected at least one run directory" "$BIN" check
expect 2 "$T/nope/config.json" "$BIN" check "$T/nope"
checked() { # NAME EXP [--set ...]: run EXP into $T/ck/NAME, then check it
    name=$1 exp=$2
    shift 2
    if ! "$BIN" run "$exp" --quiet --set trace.limit=300 "$@" --out "$T/ck/$name" 2>"$T/err"; then
        bad "check: $name did not run: $(head -c 200 "$T/err")"
    elif "$BIN" check --quiet "$T/ck/$name" >"$T/out" 2>&1; then
        ok
    else
        bad "check $name: $(head -c 800 "$T/out")"
    fi
}
for f in $EXPS; do
    src="$(dirname "$0")/../$f"
    if grep -q 'set-by-script' "$src"; then continue; fi
    why=$(exp_traces_why "$src")
    if [ -n "$why" ]; then
        echo "SKIP: check: $f ($why)"
        continue
    fi
    checked "$(echo "$f" | tr / _)" "$src"
done
D="$(dirname "$0")/../experiments/default.json"
CO="--set cluster.prefill=0 --set cluster.decode=0 --set system.params.instances=4"
checked vllm "$D" --set system.kind=vllm $CO
checked vllm_pc "$D" --set system.kind=vllm_pc $CO --set trace.speed=3
checked vllm_cp "$D" --set system.kind=vllm_cp $CO --set system.params.chunk_tokens=256
for p in baseline early predictive; do
    checked "adm_$p" "$D" --set admission.policy=$p --set scheduler.params.slo_reject=0 \
        --set cluster.prefill=4 --set cluster.decode=1 --set trace.speed=2
done
checked cpp "$D" --set cluster.prefill_group=2 --set cluster.prefill_chunk=2048 --set network.transport=tcp
checked inline "$D" --set hardware=h200x8 --set model=llama3-8b --set metrics.interval_s=1
checked pool "$D" --set cache.policy=lfu --set cache.dram_tokens=20480 --set cache.ssd_tokens=40960 \
    --set cache.scope=local --set cache.hot_fetches=1 --set cache.hot_replicas=2
i=0 && : >"$T/pre.jsonl"
while [ $i -lt 14 ]; do # 14 long prompts on one vLLM instance: preemptions
    printf '{"timestamp": %d, "input_length": 95000, "output_length": 3000, "hash_ids": [%s]}\n' \
        $i "$(seq -s, $((i * 1000)) $((i * 1000 + 185)))" >>"$T/pre.jsonl"
    i=$((i + 1))
done
printf '{"trace": {"path": "%s/pre.jsonl"}, "system": {"kind": "vllm", "params": {"instances": 1}}, "cluster": {"prefill": 0, "decode": 0}}\n' "$T" >"$T/pre.json"
checked preempt "$T/pre.json"
grep -q '"preemptions": [1-9]' "$T/ck/preempt/summary.json" && ok || bad "check: the preemption run had none"
cp -r "$T/ck/vllm" "$T/ck/tampered"
sed -i '3s/,completed,\([^,]*\),\([^,]*\),\([^,]*\),[^,]*,/,completed,\1,\2,\3,99.000000,/' "$T/ck/tampered/requests.csv"
expect 1 "$T/ck/tampered/requests.csv:3: id " "$BIN" check "$T/ck/tampered"
grep -q '\[first_token\]' "$T/out" && grep -q '\[ttft\]' "$T/out" && ok || bad "check of a tampered ttft_s: $(head -c 600 "$T/out")"
expect 2 "$T/nope/config.json" "$BIN" check "$T/ck/vllm" "$T/nope"
grep -q "$T/ck/vllm: ok" "$T/out" && ok || bad "check did not go on after an unreadable directory"

# The documentation and the figure scripts: docs/config.md is what
# tools/config_md.sh makes of this binary's --help-config (make docs), the
# front page stays short and links every page of docs/, and make figures
# skips, by name and with the reason, exactly the scripts whose traces are
# missing from MOONCAKE_TRACES (experiments/figures.sh --plan: the same
# decision, without running anything).
R=$(cd "$(dirname "$0")/.." && pwd)
if sh "$R/tools/config_md.sh" "$BIN" >"$T/config.md" && cmp -s "$T/config.md" "$R/docs/config.md"; then ok
else bad "docs/config.md is stale or its generator failed: run make docs"; fi
n=$(wc -l <"$R/README.md")
[ "$n" -lt 150 ] && ok || bad "README.md has $n lines, more than 149"
grep -qF 'make run' "$R/README.md" && grep -qF 'make test' "$R/README.md" && ok ||
    bad "README.md lacks 'make run' or 'make test'"
for f in "$R"/docs/*.md; do
    grep -qF "(docs/${f##*/})" "$R/README.md" && ok || bad "README.md does not link docs/${f##*/}"
done
for f in $(grep -o '(docs/[^)#]*' "$R/README.md" | sed 's/^(//' | sort -u); do
    [ -f "$R/$f" ] && ok || bad "README.md links $f, which does not exist"
done
for s in "$R"/experiments/*/*.sh; do
    case "$s" in */e2e.sh) continue ;; esac
    line=$(sed -n 's/^# Traces: *//p' "$s" | head -1)
    if [ -z "$line" ]; then bad "${s#"$R"/} has no '# Traces:' header line"
    elif [ "$line" = none ] && grep -q 'trace_file' "$s"; then bad "${s#"$R"/} reads a trace but says '# Traces: none'"
    elif [ "$line" != none ] && ! grep -q 'trace_file' "$s"; then bad "${s#"$R"/} names traces it never looks up"
    else ok; fi
done
# docs/extending.md's worked example quotes sim/serve/policy/place_power_of_d.c
# (the lines it shows, less its own comments and elisions, are the file's)
awk '/^```c$/ { c = 1; next } /^```$/ { c = 0 } c' "$R/docs/extending.md" | grep -v '\.\.\.' |
    sed 's|/\*.*\*/||; s/^ *//; s/ *$//' | grep -v '^{*$' >"$T/example"
[ -s "$T/example" ] && ok || bad "docs/extending.md shows no C example"
while IFS= read -r line; do
    grep -qF -- "$line" "$R/sim/serve/policy/place_power_of_d.c" "$R/sim/serve/policy/place_list.h" && ok ||
        bad "docs/extending.md quotes a line sim/serve/policy/place_power_of_d.c lacks: $line"
done <"$T/example"
E="$R/experiments"
plan() { MOONCAKE_TRACES=$1 sh "$E/figures.sh" --plan "$E/fast25/fig14_breakdown.sh" "$E/fast25/capacity.sh" \
    "$E/arxiv/fig13_real.sh" "$E/arxiv/fig11_datasets.sh" >"$T/plan" 2>&1; }
plan "$T/no-traces" && ok || bad "figures.sh --plan failed: $(cat "$T/plan")"
grep -qx "run: $E/fast25/fig14_breakdown.sh" "$T/plan" && grep -qx "run: $E/arxiv/fig11_datasets.sh" "$T/plan" &&
    grep -qx "skip: $E/fast25/capacity.sh: needs MOONCAKE_TRACES (conversation trace, synthetic trace): $T/no-traces holds no conversation_trace.jsonl.zst, synthetic_trace.jsonl.zst (or .jsonl)" "$T/plan" &&
    grep -qx "skip: $E/arxiv/fig13_real.sh: needs MOONCAKE_TRACES (conversation trace): $T/no-traces holds no conversation_trace.jsonl.zst (or .jsonl)" "$T/plan" && ok ||
    bad "figures.sh --plan without traces: $(cat "$T/plan")"
mkdir -p "$T/some-traces" && : >"$T/some-traces/conversation_trace.jsonl"
plan "$T/some-traces"
grep -qx "run: $E/arxiv/fig13_real.sh" "$T/plan" &&
    grep -qx "skip: $E/fast25/capacity.sh: needs MOONCAKE_TRACES (synthetic trace): $T/some-traces holds no synthetic_trace.jsonl.zst (or .jsonl)" "$T/plan" && ok ||
    bad "figures.sh --plan with the conversation trace only: $(cat "$T/plan")"
plan "" && grep -qx "skip: $E/arxiv/fig13_real.sh: needs MOONCAKE_TRACES (conversation trace), which is not set" "$T/plan" && ok ||
    bad "figures.sh --plan with MOONCAKE_TRACES empty: $(cat "$T/plan")"

# Decode iterations batched into spans give the results of one event per
# iteration, byte for byte.
sh "$(dirname "$0")/decode_span.sh" "$BIN" >"$T/span" 2>&1 && ok || bad "decode spans: $(grep FAIL "$T/span" | head -5)"
# Placement that estimates only the candidates of the prefill view chooses
# as one that estimates every instance, byte for byte.
sh "$(dirname "$0")/place_view.sh" "$BIN" >"$T/view" 2>&1 && ok || bad "placement candidates: $(grep FAIL "$T/view" | head -5)"

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
