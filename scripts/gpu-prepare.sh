#!/usr/bin/env bash
# Prepares everything scripts/gpu-check.sh needs on a GPU machine that has a
# CUDA driver, PyTorch and the nvidia-nccl wheel but no Rust, no MLIR and no
# network: one folder (default gpu-check/, under 48 MiB) with
#   bundles/<example>/   every example and the autotuned Adam compiled for
#                        one GPU (plan.toml, kernels.ptx, ...), with the
#                        seeded inputs (inputs/) and the reference
#                        interpreter's outputs (reference/) as .npy
#   bench/adam-<N>/      the fused Adam step for N parameters (timing only)
#   bench/gemm-*/        GEMMs at the Megatron layers' shapes (checked
#                        against and timed with torch.matmul)
#   gpu-check.sh, gpu/check.py, gpu/gpu_check.py
# Usage: scripts/gpu-prepare.sh [out-dir]     then copy the folder and run
#        bash <out-dir>/gpu-check.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-gpu-check}"
bash scripts/setup.sh >/dev/null
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --quiet -p coco-tools --bins
bin=./target/debug
# The kernels' math from NVIDIA's libdevice (the wheel setup.sh installs).
for wheel in .venv/lib/python3*/site-packages/nvidia/cuda_nvcc; do
  [ -f "$wheel/nvvm/libdevice/libdevice.10.bc" ] && export CUDA_PATH="$PWD/$wheel"
done
rm -rf "$out"
mkdir -p "$out/bundles" "$out/bench"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The GPU machine's Python may predate tomllib: give it the plan as JSON.
to_json() {
  python3 -c 'import json, sys, tomllib; json.dump(tomllib.load(open(sys.argv[1], "rb")), open(sys.argv[2], "w"), indent=1)' \
    "$1/plan.toml" "$1/plan.json"
}
compile() { # name program
  local name=$1 program=$2 dir="$out/bundles/$1"
  # Collective steps, as the cuda backend runs fused collectives; GEMMs
  # in the interpreter's rounding (ordered), as the compiled trials.
  $bin/coco-translate "$program" --emit=bundle --ranks 1 --fused-collectives=steps \
    --gemm-arithmetic ordered -o "$dir"
  # The GPU machine needs the plan, the PTX and the program, not host code.
  rm -f "$dir/kernels.so" "$dir/kernels.o" "$dir/kernels.ll"
  to_json "$dir"
  $bin/coco-run "$program" --backend reference --ranks 1 --seed 11 \
    --save-inputs "$dir/inputs" --outputs "$dir/reference" >/dev/null
}
for example in examples/coco/*.mlir; do
  name=$(basename "$example" .mlir)
  if grep -q coco.process_group "$example"; then
    echo "skipping $name: its pipeline stages need one GPU each; this check runs one"
    continue
  fi
  if grep -q coco.mesh "$example"; then
    echo "skipping $name: the compiled backends do not run mesh programs yet"
    continue
  fi
  compile "$name" "$example"
done
$bin/coco-opt examples/coco/adam.mlir --coco-autotune=v100-cluster -o "$work/adam-autotuned.mlir"
compile adam-autotuned "$work/adam-autotuned.mlir"

# The fused Adam step at benchmark size: inputs are drawn on the GPU.
n=16777216
bash scripts/gpu/adam-bench.sh "$bin" "$out/bench/adam-$n" "$n"
to_json "$out/bench/adam-$n"
# The GEMMs at the Megatron layers' GPT-2-medium shapes, timed against torch.matmul.
bash scripts/gpu/gemm-bench.sh "$bin" "$out/bench"
for bundle in "$out"/bench/gemm-*; do to_json "$bundle"; done

mkdir -p "$out/gpu"
cp scripts/gpu/check.py scripts/gpu/gpu_check.py "$out/gpu/"
cp scripts/gpu-check.sh "$out/gpu-check.sh"
size=$(du -sm "$out" | cut -f1)
echo "prepared $out (${size} MiB): copy it to the GPU machine and run: bash $out/gpu-check.sh"
if [ "$size" -ge 48 ]; then
  echo "error: $out is ${size} MiB, over the 48 MiB budget" >&2
  exit 1
fi
