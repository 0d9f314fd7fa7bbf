#!/usr/bin/env bash
# CPU, 2 MPI ranks: one optimizer step of Adam, LAMB and AdamW with
# global-norm clipping at 1M to 64M parameters, CoCoNet's AR_C (all_reduce +
# one kernel per op, as the examples are written) against
# fuse(RS_C_AG+as-slice+partial-reduce) (the fused schedule, with norms from
# per-slice partial sums and a scalar all_reduce), in the same run. The
# fused schedule runs as peer launches ("fused": one kernel per rank reads
# every rank's gradient part and writes every rank's parameters through
# shared memory) and as MPI steps ("steps": reduce_scatter -> one kernel on
# the slice -> all_gather, `--fused-collectives steps`); "gathered" is the
# peer form without coco-partial-reduce (norms over the gathered tensor),
# and "partial" its time over the fused one. Effective GB/s counts
# the optimizer's state traffic of one rank: gradient, parameter and moments
# read, parameter and moments written (7 x 4 bytes per parameter), over the
# fused step time.
# Usage: bench/optimizers.sh [sizes...]   (default: 1M 4M 16M 64M)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./target/debug
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(1048576 4194304 16777216 67108864); fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fuse='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-partial-reduce,canonicalize,cse,coco-fuse)'
# The same without coco-partial-reduce: norms over the gathered tensor.
gathered='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-fuse)'

per_iteration() { sed -n 's/.*per iteration *\([0-9.]*\) ms.*/\1/p'; }

printf "%-10s %10s %10s %10s %12s %10s %9s %9s %9s %10s\n" optimizer params "AR_C ms" "steps ms" "gathered ms" "fused ms" speedup "vs steps" partial "fused GB/s"
for example in adam lamb adamw_clip; do
  original=$(grep -o 'tensor<[0-9]*xf32' examples/coco/$example.mlir | head -1 | sed 's/tensor<\([0-9]*\)xf32/\1/')
  for n in "${sizes[@]}"; do
    sed "s/tensor<${original}xf32/tensor<${n}xf32/g" examples/coco/$example.mlir > "$work/$example-$n.mlir"
    grep -q "tensor<${n}xf32" "$work/$example-$n.mlir" || { echo "cannot resize $example" >&2; exit 1; }
    $bin/coco-opt "$work/$example-$n.mlir" --pass-pipeline="$fuse" -o "$work/$example-$n-fused.mlir" 2>/dev/null
    $bin/coco-opt "$work/$example-$n.mlir" --pass-pipeline="$gathered" -o "$work/$example-$n-gathered.mlir" 2>/dev/null
    # Fewer repetitions for big sizes keep the run short; the first step
    # is not excluded (setup is timed separately by the executor).
    repeat=$(( n >= 16777216 ? 3 : 10 ))
    arc=$($bin/coco-run "$work/$example-$n.mlir" --ranks 2 --repeat $repeat --timing 2>&1 | per_iteration)
    fused=$($bin/coco-run "$work/$example-$n-fused.mlir" --ranks 2 --repeat $repeat --timing 2>&1 | per_iteration)
    steps=$($bin/coco-run "$work/$example-$n-fused.mlir" --ranks 2 --repeat $repeat --timing --fused-collectives steps 2>&1 | per_iteration)
    # Without norms the two pipelines give one program: run it once.
    if cmp -s "$work/$example-$n-fused.mlir" "$work/$example-$n-gathered.mlir"; then
      gathered_ms=$fused
    else
      gathered_ms=$($bin/coco-run "$work/$example-$n-gathered.mlir" --ranks 2 --repeat $repeat --timing 2>&1 | per_iteration)
    fi
    awk -v ex="$example" -v n="$n" -v a="$arc" -v s="$steps" -v g="$gathered_ms" -v f="$fused" 'BEGIN {
      bytes = 7 * 4 * n;
      printf "%-10s %10d %10.2f %10.2f %12.2f %10.2f %8.2fx %8.2fx %8.2fx %10.2f\n", ex, n, a, s, g, f, a / f, s / f, g / f, bytes / (f * 1e6)
    }'
  done
done
