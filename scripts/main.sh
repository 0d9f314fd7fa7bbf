#!/usr/bin/env bash
# Installs what is missing, builds the tools and runs the flagship example:
# data-parallel Adam. The autotuner picks CoCoNet's fuse(RS_C_AG) schedule with
# sliced optimizer state for CoCoNet's testbed, then the reference interpreter
# runs the original and the optimized program on 4 ranks to show they agree.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"

cargo build --quiet -p coco-tools --bin coco-opt --bin coco-run
out="$(mktemp -d)"
echo "== coco-opt examples/coco/adam.mlir --coco-autotune=v100-cluster --autotune-report"
./target/debug/coco-opt examples/coco/adam.mlir --coco-autotune=v100-cluster --autotune-report -o "$out/adam-optimized.mlir"
cat "$out/adam-optimized.mlir"
echo "== coco-run (reference interpreter, 4 ranks): original"
./target/debug/coco-run examples/coco/adam.mlir --ranks 4 --seed 1
echo "== coco-run (reference interpreter, 4 ranks): optimized"
./target/debug/coco-run "$out/adam-optimized.mlir" --ranks 4 --seed 1
