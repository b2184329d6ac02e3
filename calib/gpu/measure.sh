#!/bin/sh
# calib/gpu/measure.sh OUTDIR [HARDWARE]: build calib/gpu and measure one GPU
# for the shipped models: llama2-70b and llama3-70b shapes under tensor
# parallelism 8 (one GPU's share of a layer) and llama3-8b on one GPU.
# MODELS="m1 m2 ..." picks models instead (each NAME or NAME:TP; TP defaults
# to 1 for *-8b, else 8). Writes OUTDIR/HARDWARE-MODEL.gpu.json, MODEL.log,
# build.log and nvidia-smi.csv; fit them with `mooncake-sim calib fit`. A run
# that exceeds LIMIT_S seconds (default 60; a full run takes about 10-15 s
# on an H200) is repeated with --quick under QUICK_LIMIT_S (default 30; its
# log is MODEL.quick.log), so every model gets a file; a run that fails
# otherwise is not repeated. Exit 1 if a model got no file; on a machine
# with no usable GPU, exit 3 after the first attempt, saying so.
set -u
out=${1:?usage: [MODELS=...] measure.sh OUTDIR [HARDWARE]}
hw=${2:-h200x8}
models=${MODELS:-llama2-70b llama3-70b llama3-8b}
limit=${LIMIT_S:-60}
qlimit=${QUICK_LIMIT_S:-30}
for m in $models; do  # check the names before spending time on the build
    case ${m%%:*} in
    llama2-70b | llama3-70b | llama3-8b) ;;
    *) echo "measure.sh: unknown model '$m' (llama2-70b, llama3-70b, llama3-8b)"; exit 2 ;;
    esac
done
mkdir -p "$out"
PATH=$PATH:/usr/local/cuda/bin
t0=$(date +%s)
{ command -v nvcc && nvcc --version; make calib-gpu; } >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
[ -x bin/mooncake-calib-gpu ] || { echo "measure.sh: nvcc missing, nothing built"; exit 1; }
echo "build: $(($(date +%s) - t0)) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit \
    --format=csv >"$out/nvidia-smi.csv" 2>&1
run() { # MODEL TP LIMIT_S LOG [--quick]
    r_m=$1 r_tp=$2 r_lim=$3 r_log=$out/$4
    shift 4
    r_t=$(date +%s)
    timeout "$r_lim" bin/mooncake-calib-gpu --model "$r_m" --tp "$r_tp" --hardware "$hw" \
        -o "$out/$hw-$r_m.gpu.json" "$@" >"$r_log" 2>&1
    r_rc=$?
    echo "$r_m tp $r_tp $*: exit $r_rc, $(($(date +%s) - r_t)) s"
    tail -n 3 "$r_log"
    return $r_rc
}
fail=0
for m in $models; do
    name=${m%%:*}
    case $m in
    *:*) tp=${m#*:} ;;
    *-8b) tp=1 ;;
    *) tp=8 ;;
    esac
    run "$name" "$tp" "$limit" "$name.log"
    rc=$?
    if [ "$rc" = 3 ]; then # the benchmark found no GPU: nothing else can run
        echo "measure.sh: no usable CUDA GPU here; nothing measured (see $out/$name.log)"
        exit 3
    elif [ "$rc" = 124 ]; then # over the time limit: the shorter form
        run "$name" "$tp" "$qlimit" "$name.quick.log" --quick || fail=1
    elif [ "$rc" != 0 ]; then
        fail=1
    fi
done
echo "total: $(($(date +%s) - t0)) s"
exit $fail
