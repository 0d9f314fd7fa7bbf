#!/usr/bin/env bash
# Installs what is missing, builds the tools and runs the flagship end to
# end: data-parallel Adam. The autotuner picks CoCoNet's fuse(RS_C_AG)
# schedule with sliced optimizer state; coco-translate emits its PTX and a
# bundle; coco-run executes it on 4 CPU ranks under MPI with --check against
# the reference interpreter; then both schedules are timed and the speedup of
# the optimized one over AR_C (all_reduce + unfused optimizer) is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"

cargo build --quiet -p coco-tools -p coco-runtime --bins
bin=./target/debug
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "== coco-opt examples/coco/adam.mlir --coco-autotune=v100-cluster --autotune-report"
$bin/coco-opt examples/coco/adam.mlir --coco-autotune=v100-cluster --autotune-report -o "$out/adam-optimized.mlir"
cat "$out/adam-optimized.mlir"

echo "== coco-translate --emit=ptx --ranks 4 (sm_90, PTX 8.0): entry points"
$bin/coco-translate "$out/adam-optimized.mlir" --emit=ptx --ranks 4 -o "$out/adam.ptx"
grep -E '^\.(version|target)|\.entry' "$out/adam.ptx"

echo "== coco-translate --emit=bundle --ranks 4: the execution plan's steps"
$bin/coco-translate "$out/adam-optimized.mlir" --emit=bundle --ranks 4 -o "$out/adam.bundle"
grep -A3 '^\[\[stages.steps\]\]' "$out/adam.bundle/plan.toml" | grep -E 'op =|kernel =|reduction ='

echo "== coco-run adam.bundle --ranks 4 --backend cpu --check (native kernels, MPI)"
$bin/coco-run "$out/adam.bundle" --ranks 4 --check --seed 1

per_iteration() {
  sed -n 's/.*per iteration *\([0-9.]*\) ms.*/\1/p'
}
echo "== timing: 50 steps of each schedule on 4 CPU ranks"
arc=$($bin/coco-run examples/coco/adam.mlir --ranks 4 --repeat 50 --timing 2>&1 | per_iteration)
fused=$($bin/coco-run "$out/adam.bundle" --ranks 4 --repeat 50 --timing 2>&1 | per_iteration)
echo "AR_C (all_reduce + unfused optimizer): ${arc} ms per step"
echo "fuse(RS_C_AG) + as-slice (autotuned):  ${fused} ms per step"
awk -v a="$arc" -v f="$fused" 'BEGIN { printf "speedup over AR_C: %.2fx\n", a / f }'
