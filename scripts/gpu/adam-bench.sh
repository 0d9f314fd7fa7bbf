#!/usr/bin/env bash
# The fused Adam step that gpu-check times, as a 1-GPU bundle: examples/coco/adam.mlir
# widened to N f32 parameters (default 16777216), split, reordered, sliced and
# fused into one kernel, compiled with collective steps (as the cuda backend
# runs them). Host code is removed: the timing needs the plan and the PTX.
# Used by scripts/gpu-prepare.sh (the prepared folder) and by gpu-check.sh in
# a checkout; inputs are drawn on the GPU, so the bundle has none.
# Usage: scripts/gpu/adam-bench.sh BIN_DIR OUT_BUNDLE [N]
set -euo pipefail
bin=$1 out=$2 n=${3:-16777216}
examples="$(cd "$(dirname "$0")/../../examples/coco" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed "s/tensor<262144xf32/tensor<${n}xf32/g" "$examples/adam.mlir" > "$work/adam-big.mlir"
"$bin/coco-opt" "$work/adam-big.mlir" \
  --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-fuse)' \
  -o "$work/adam-big-fused.mlir" 2>/dev/null
"$bin/coco-translate" "$work/adam-big-fused.mlir" --emit=bundle --ranks 1 --fused-collectives=steps -o "$out"
rm -f "$out/kernels.so" "$out/kernels.o" "$out/kernels.ll"
