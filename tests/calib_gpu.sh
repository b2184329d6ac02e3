#!/bin/sh
# tests/calib_gpu.sh: the GPU benchmark and its driver script on a machine
# with no usable GPU: one line saying so, exit 3, no rerun with --quick.
# Skipped (by name) where the benchmark was not built or a GPU is there.
NAME=calib_gpu
BIN=bin/mooncake-calib-gpu
. "$(dirname "$0")/cli_lib.sh"
if [ ! -x "$BIN" ]; then
    echo "SKIP: calib_gpu (bin/mooncake-calib-gpu not built: nvcc missing)"
    exit 0
fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: calib_gpu (a GPU is present: the no-GPU path cannot be tested here)"
    exit 0
fi
expect 3 "mooncake-calib-gpu: no usable CUDA GPU on this machine" "$BIN" --model llama3-8b --tp 1 \
    --hardware h200x8 -o "$T/x.gpu.json"
[ ! -e "$T/x.gpu.json" ] && ok || bad "a run without a GPU wrote $T/x.gpu.json"
MODELS="llama3-8b llama3-70b" LIMIT_S=60 sh calib/gpu/measure.sh "$T/m" >"$T/out" 2>&1
rc=$?
[ "$rc" = 3 ] && ok || bad "measure.sh without a GPU: exit $rc, expected 3: $(tail -3 "$T/out")"
grep -q "no usable CUDA GPU here; nothing measured" "$T/out" && ok || bad "measure.sh did not say why: $(tail -3 "$T/out")"
[ ! -e "$T/m/llama3-8b.quick.log" ] && [ ! -e "$T/m/llama3-70b.log" ] && ok ||
    bad "measure.sh went on after finding no GPU: $(ls "$T/m")"
echo "calib_gpu: $pass passed, $fail failed"
[ "$fail" = 0 ]
