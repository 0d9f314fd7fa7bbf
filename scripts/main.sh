#!/usr/bin/env bash
# Installs what is missing, builds coco-opt and runs the flagship example:
# data-parallel Adam, parsed, verified (layouts, process groups) and put
# through coco-verify + canonicalize + CSE.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"

cargo build --quiet -p coco-tools --bin coco-opt
echo "== coco-opt examples/coco/adam.mlir --pass-pipeline='builtin.module(coco-verify,canonicalize,cse)'"
./target/debug/coco-opt examples/coco/adam.mlir --pass-pipeline='builtin.module(coco-verify,canonicalize,cse)'
