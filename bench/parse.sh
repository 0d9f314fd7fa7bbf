#!/usr/bin/env bash
# Front-end time on big inputs: coco-opt parsing (nesting check, the parse
# guard, MLIR's parser), verifying and printing 8,000 functions, one
# function with 20,000 arguments, and 45,000 nested scf.if (700 KB).
# Usage: bench/parse.sh [bin-dir]   (default ./target/debug; pass another
# build's directory to compare)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-./target/debug}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT; [ -n "${KEEP:-}" ] && trap - EXIT && echo "$work"
for i in $(seq 1 8000); do
  printf 'func.func @f%d(%%arg0: f32) -> f32 {\n  %%0 = arith.addf %%arg0, %%arg0 : f32\n  return %%0 : f32\n}\n' "$i"
done > "$work/functions.mlir"
{
  printf 'func.func @wide('
  for i in $(seq 0 19998); do printf '%%a%d: f32, ' "$i"; done
  printf '%%a19999: f32) -> f32 {\n  return %%a0 : f32\n}\n'
} > "$work/arguments.mlir"
{
  echo 'func.func @deep(%c: i1) {'
  for _ in $(seq 1 45000); do echo 'scf.if %c {'; done
  for _ in $(seq 1 45000); do echo '}'; done
  echo 'return'
  echo '}'
} > "$work/nested.mlir"
for input in functions arguments nested; do
  start=$(date +%s.%N)
  set +e
  timeout 120 "$bin/coco-opt" "$work/$input.mlir" >/dev/null 2>"$work/err"
  code=$?
  set -e
  end=$(date +%s.%N)
  awk -v n="$input" -v s="$start" -v e="$end" -v c="$code" -v b="$(wc -c <"$work/$input.mlir")" \
    'BEGIN { printf "%-10s %7d KB  %6.2f s  exit %d\n", n, b / 1024, e - s, c }'
  head -c 300 "$work/err"
done
