#!/bin/sh
# calib/gpu/measure.sh OUTDIR [HARDWARE]: build calib/gpu and measure one GPU
# for the shipped models: llama2-70b and llama3-70b shapes under tensor
# parallelism 8 (one GPU's share of a layer) and llama3-8b on one GPU. Writes OUTDIR/HARDWARE-MODEL.gpu.json and
# the logs; fit them with `mooncake-sim calib fit`. A run that exceeds its
# time limit is repeated with --quick, so every model gets a file.
set -u
out=${1:?usage: measure.sh OUTDIR [HARDWARE]}
hw=${2:-h200x8}
mkdir -p "$out"
PATH=$PATH:/usr/local/cuda/bin
{ command -v nvcc && nvcc --version; make calib-gpu; } >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
[ -x bin/mooncake-calib-gpu ] || { echo "measure.sh: nvcc missing, nothing built"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit \
    --format=csv >"$out/nvidia-smi.csv" 2>&1
run() { # MODEL TP LIMIT_S [--quick]
    f="$out/$hw-$1.gpu.json"
    timeout "$3" bin/mooncake-calib-gpu --model "$1" --tp "$2" --hardware "$hw" -o "$f" $4 \
        >"$out/$1.log" 2>&1
    rc=$?
    echo "$1 tp $2 $4: exit $rc"
    tail -n 3 "$out/$1.log"
    return $rc
}
for m in "llama2-70b 8" "llama3-70b 8" "llama3-8b 1"; do
    set -- $m
    run "$1" "$2" 180 "" || run "$1" "$2" 60 --quick
done
