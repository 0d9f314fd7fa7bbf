#!/usr/bin/env bash
# The GEMMs gpu-check times against torch.matmul: one 1-GPU bundle per shape,
# element type and tile (docs/gpu.md, "GPU GEMMs"), named
# gemm-<m>x<n>x<k>[x<batch>]-<type>-<tile> in OUT_DIR. The shapes are the
# Megatron layers' at GPT-2-medium sizes (hidden 1024, 16 heads of 64) for
# 512 tokens on one GPU: the MLP's two GEMMs, the attention's QKV
# projection, and its per-head scores and context (batched). Tiles: the
# default (64x64x8) and coco-tile{target=gpu}'s 128x128. Host code is
# removed and inputs are drawn on the GPU: the timing needs the plan and
# the PTX.
# Usage: scripts/gpu/gemm-bench.sh BIN_DIR OUT_DIR
set -euo pipefail
bin=$1 out=$2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
# m n k batch
shapes=("512 4096 1024 1" "512 1024 4096 1" "512 3072 1024 1" "512 512 64 16" "512 64 512 16")
for shape in "${shapes[@]}"; do
  read -r m n k batch <<<"$shape"
  for type in f32 bf16; do
    for tile in default 128x128; do
      if [ "$batch" = 1 ]; then
        lead="" name="gemm-${m}x${n}x${k}-${type}-${tile}"
      else
        lead="${batch}x" name="gemm-${m}x${n}x${k}x${batch}-${type}-${tile}"
      fi
      attr=""
      [ "$tile" = default ] || attr=" {coco.tile = array<i64: ${tile%x*}, ${tile#*x}>}"
      ta="tensor<${lead}${m}x${k}x${type}, #coco.replicated>"
      tb="tensor<${lead}${k}x${n}x${type}, #coco.replicated>"
      tc="tensor<${lead}${m}x${n}x${type}, #coco.replicated>"
      cat >"$work/$name.mlir" <<MLIR
func.func @gemm(%a: $ta, %b: $tb) -> $tc {
  %c = coco.matmul %a, %b$attr : $ta, $tb -> $tc
  return %c : $tc
}
MLIR
      "$bin/coco-translate" "$work/$name.mlir" --emit=bundle --ranks 1 -o "$out/$name"
      rm -f "$out/$name/kernels.so" "$out/$name/kernels.o" "$out/$name/kernels.ll"
    done
  done
done
