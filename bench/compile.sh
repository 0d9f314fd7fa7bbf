#!/usr/bin/env bash
# Compile time of a 48-layer model-parallel transformer (Megatron-style MLP
# blocks: column-parallel matmul, bias, tanh, row-parallel matmul,
# all_reduce, residual): coco-opt with CoCoNet's fusion pipeline, then
# coco-translate to a bundle (native code and PTX) for 8 ranks.
# Usage: bench/compile.sh [layers]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./target/debug
layers=${1:-48}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT; [ -n "${KEEP:-}" ] && trap - EXIT && echo "$work"
{
  echo "func.func @transformer(%x0: tensor<64x1024xf32, #coco.replicated>"
  for l in $(seq 1 "$layers"); do
    echo "  , %w1_$l: tensor<1024x4096xf32, #coco.sliced<1>>, %b1_$l: tensor<4096xf32, #coco.sliced<0>>"
    echo "  , %w2_$l: tensor<4096x1024xf32, #coco.sliced<0>>"
  done
  echo "  ) -> tensor<64x1024xf32, #coco.replicated> {"
  for l in $(seq 1 "$layers"); do
    p=$((l - 1))
    cat <<L
  %h$l = coco.matmul %x$p, %w1_$l : tensor<64x1024xf32, #coco.replicated>, tensor<1024x4096xf32, #coco.sliced<1>> -> tensor<64x4096xf32, #coco.sliced<1>>
  %bb$l = coco.expand %b1_$l : tensor<4096xf32, #coco.sliced<0>> -> tensor<64x4096xf32, #coco.sliced<1>>
  %hb$l = arith.addf %h$l, %bb$l : tensor<64x4096xf32, #coco.sliced<1>>
  %a$l = math.tanh %hb$l : tensor<64x4096xf32, #coco.sliced<1>>
  %o$l = coco.matmul %a$l, %w2_$l : tensor<64x4096xf32, #coco.sliced<1>>, tensor<4096x1024xf32, #coco.sliced<0>> -> tensor<64x1024xf32, #coco.local>
  %r$l = coco.all_reduce sum %o$l : tensor<64x1024xf32, #coco.local> -> tensor<64x1024xf32, #coco.replicated>
  %x$l = arith.addf %r$l, %x$p : tensor<64x1024xf32, #coco.replicated>
L
  done
  echo "  return %x$layers : tensor<64x1024xf32, #coco.replicated>"
  echo "}"
} > "$work/transformer.mlir"
start=$(date +%s.%N)
$bin/coco-opt "$work/transformer.mlir" \
  --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-fuse)' -o "$work/opt.mlir" 2>/dev/null
mid=$(date +%s.%N)
$bin/coco-translate "$work/opt.mlir" --emit=bundle --ranks 8 -o "$work/bundle"
end=$(date +%s.%N)
kernels=$(grep -c '^\[\[kernels\]\]' "$work/bundle/plan.toml")
awk -v l="$layers" -v s="$start" -v m="$mid" -v e="$end" -v k="$kernels" 'BEGIN {
  printf "%d layers (%d kernels): coco-opt %.2f s, coco-translate (native + PTX) %.2f s, total %.2f s\n", l, k, m - s, e - m, e - s
}'
