#!/usr/bin/env bash
# coco against PyTorch on the same CPU ranks, interleaved in one run: one
# data-parallel optimizer step at 1M to 64M float32 parameters on 2 and 4
# ranks (one thread each).
#   coco AR_C        examples/coco/{adam,lamb}.mlir as written (all_reduce, then kernels)
#   coco fused       fuse(RS_C_AG+as-slice[+partial-reduce]) as peer launches:
#                    one kernel per rank over shared memory (docs/bundle.md)
#   torch ...        bench/host/pytorch_step.py: all_reduce + Adam foreach,
#                    all_reduce + Adam fused, ZeRO-style reduce_scatter + fused
#                    Adam on the shard + all_gather, LAMB from torch._foreach ops
# Each line: ms per step (median for torch, mean of --repeat for coco), the
# best PyTorch variant over coco's fused step, and the memory-traffic limit
# of the fused step: the bytes per parameter all ranks together must move,
# over the bandwidth of a STREAM triad run with as many processes as ranks,
# measured in this run. Adam: 8 x ranks + 20 (every rank's gradient part
# read, moments and parameter read, moments written, the new part written
# to every rank); LAMB 8 more (its update is written and read again, since
# the trust ratio needs the update's norm before the update is applied).
# AR_C keeps one buffer per op, and at 64M parameters on 4 ranks it does not
# fit this machine's 24 GiB: a coco run that fails prints "failed".
#
# PyTorch is not a dependency of coco: `--install` creates a virtual
# environment (default .venv-torch, or $TORCH_VENV) and installs torch from
# PyPI into it (several GB; never in CI).
# Usage: [RANKS="2 4"] bench/pytorch_peer.sh [--install] [sizes...]
#        (default sizes: 1M 4M 16M 64M)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./target/debug
venv=${TORCH_VENV:-.venv-torch}
if [ "${1:-}" = "--install" ]; then
  shift
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet torch numpy deepspeed
fi
if ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  echo "pytorch_peer.sh: no torch in $venv; run with --install (downloads several GB from PyPI)" >&2
  exit 1
fi
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(1048576 4194304 16777216 67108864); fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fuse='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-partial-reduce,canonicalize,cse,coco-fuse)'
per_iteration() { sed -n 's/.*per iteration *\([0-9.]*\) ms.*/\1/p'; }
coco_ms() { # program ranks steps
  ( $bin/coco-run "$1" --ranks "$2" --repeat "$3" --timing 2>&1 || true ) | per_iteration | grep . || echo failed
}
torch_ms() { # variant params ranks steps
  OMP_NUM_THREADS=1 "$venv/bin/python" -m torch.distributed.run --standalone \
    --nproc_per_node "$3" bench/host/pytorch_step.py --variant "$1" --params "$2" --steps "$4" 2>/dev/null \
    | awk '{print $4}' | tail -1
}

# Bandwidth: a triad (a = b + s*c) in `ranks` processes at once, GB/s in all.
cat > "$work/triad.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
  long n = atol(argv[1]);
  float *a = aligned_alloc(64, n * 4), *b = aligned_alloc(64, n * 4), *c = aligned_alloc(64, n * 4);
  for (long i = 0; i < n; i++) { a[i] = 0; b[i] = i * 0.5f; c[i] = i * 0.25f; }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int r = 0; r < 10; r++) {
    float s = 3.0f + (float)r;
    for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    __asm__ volatile("" : : "r"(a) : "memory");
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%f\n", 10.0 * 12.0 * n / ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)));
  return 0;
}
C
cc -O3 -march=native -o "$work/triad" "$work/triad.c"
bandwidth() { # ranks: summed GB/s of `ranks` triads at once
  for _ in $(seq "$1"); do "$work/triad" 16777216 & done | awk '{s += $1} END {printf "%.2f", s}'
}

printf "%-5s %5s %9s %9s %9s %11s %11s %9s %11s %9s %11s\n" opt ranks params "coco AR_C" "coco fused" "torch fe" "torch fused" "torch ZeRO" "best torch" "limit ms" "fused/limit"
for ranks in ${RANKS:-2 4}; do
  gbs=$(bandwidth "$ranks")
  for example in adam lamb; do
    original=$(grep -o 'tensor<[0-9]*xf32' examples/coco/$example.mlir | head -1 | sed 's/tensor<\([0-9]*\)xf32/\1/')
    for n in "${sizes[@]}"; do
      sed "s/tensor<${original}xf32/tensor<${n}xf32/g" examples/coco/$example.mlir > "$work/$example-$n.mlir"
      $bin/coco-opt "$work/$example-$n.mlir" --pass-pipeline="$fuse" -o "$work/$example-$n-fused.mlir" 2>/dev/null
      steps=$(( n >= 16777216 ? 3 : 10 ))
      arc=$(coco_ms "$work/$example-$n.mlir" "$ranks" $steps)
      if [ "$example" = adam ]; then
        fe=$(torch_ms adam-foreach "$n" "$ranks" $steps)
      else
        fe=$(torch_ms lamb-foreach "$n" "$ranks" $steps)
      fi
      fused=$(coco_ms "$work/$example-$n-fused.mlir" "$ranks" $steps)
      if [ "$example" = adam ]; then
        tf=$(torch_ms adam-fused "$n" "$ranks" $steps)
        tz=$(torch_ms adam-zero "$n" "$ranks" $steps)
      else
        tf=nan; tz=nan
      fi
      awk -v ex="$example" -v r="$ranks" -v n="$n" -v a="$arc" -v f="$fused" -v fe="$fe" -v tf="$tf" -v tz="$tz" -v gbs="$gbs" 'BEGIN {
        best = fe; if (tf != "nan" && tf < best) best = tf; if (tz != "nan" && tz < best) best = tz;
        limit = n * (8 * r + (ex == "lamb" ? 28 : 20)) / (gbs * 1e6);
        printf "%-5s %5d %9d %9s %11.1f %9.1f %11s %11s %9.2fx %9.1f %10.2fx\n", ex, r, n, a, f, fe, tf, tz, best / f, limit, f / limit
      }'
    done
  done
done
