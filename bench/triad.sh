#!/usr/bin/env bash
# CPU, 1 rank: bandwidth of the fused Adam kernel (reads gradient,
# parameter and both moments, writes parameter and both moments: 7 arrays
# of 4-byte floats) against a STREAM-triad loop (a = b + s*c: 3 arrays)
# compiled with cc -O3 -march=native, each timed over the same number of
# bytes per iteration, in the same run. Usage: bench/triad.sh [params]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./target/debug
n=${1:-16777216}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed "s/tensor<262144xf32/tensor<${n}xf32/g" examples/coco/adam.mlir > "$work/adam.mlir"
$bin/coco-opt "$work/adam.mlir" \
  --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-fuse)' \
  -o "$work/fused.mlir" 2>/dev/null
repeat=20
launch_ms=$($bin/coco-run "$work/fused.mlir" --ranks 1 --repeat $repeat --timing 2>&1 \
  | sed -n 's/^ *\(peer_\)\{0,1\}launch *\([0-9.]*\) ms.*/\2/p')
kernel_bytes=$(( 7 * 4 * n ))
# Triad over the same bytes: 3 arrays of kernel_bytes / 12 floats each.
m=$(( kernel_bytes / 12 ))
cat > "$work/triad.c" <<C
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(void) {
  long n = $m;
  float *a = aligned_alloc(64, n * 4), *b = aligned_alloc(64, n * 4), *c = aligned_alloc(64, n * 4);
  for (long i = 0; i < n; i++) { a[i] = 0; b[i] = i * 0.5f; c[i] = i * 0.25f; }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* The scalar changes every pass, so no pass can be skipped. */
  for (int r = 0; r < $repeat; r++) {
    float s = 3.0f + (float)r;
    for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    __asm__ volatile("" : : "r"(a) : "memory");
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ms = ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6) / $repeat;
  printf("%f %f\n", ms, a[n / 2]);
  return 0;
}
C
cc -O3 -march=native -o "$work/triad" "$work/triad.c"
triad_ms=$("$work/triad" | cut -d' ' -f1)
awk -v n="$n" -v k="$launch_ms" -v r="$repeat" -v t="$triad_ms" -v bytes="$kernel_bytes" 'BEGIN {
  kernel = k / r;
  printf "fused Adam kernel, %d parameters: %.2f ms per step, %.2f GB/s\n", n, kernel, bytes / (kernel * 1e6);
  printf "STREAM triad over the same %.0f MB:  %.2f ms, %.2f GB/s\n", bytes / 1e6, t, bytes / (t * 1e6);
  printf "fused kernel / triad bandwidth: %.0f%%\n", 100 * t / kernel
}'
