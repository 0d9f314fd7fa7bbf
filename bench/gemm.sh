#!/usr/bin/env bash
# One-thread GEMM microbenchmark, every library in the same run: coco's
# generated GEMMs (fused multiply-adds, the default; and --gemm-arithmetic
# ordered, the interpreter's rounding), coco's library route (--gemm
# library: Debian's OpenBLAS called from the kernel; f32 only, bf16 stays
# generated so the column reads n/a), numpy (OpenBLAS) and torch
# (oneDNN/MKL), at the GEMM shapes of examples/coco/megatron_{mlp,attention}
# at GPT-2-medium sizes (hidden 1024, 16 heads of 64, 512 tokens) on 1 and
# 2 ranks. Each line: ms per GEMM (coco: mean of --repeat launches of a
# one-matmul program, which includes zeroing C; libraries: best of the
# calls), GFLOP/s of coco fused, and coco fused over the fastest library
# (below 1 is faster). `tuned ms` is coco fused with the cache blocking
# --tune-gemms measured for the shape in this run (--gemm-tiles).
#
# numpy and torch come from the bench environment that pytorch_peer.sh
# --install creates (.venv-torch, or $TORCH_VENV); without it those
# columns read n/a. Never in CI.
# Usage: bench/gemm.sh [--quick]   (--quick: the first two shapes only)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./target/debug
venv=${TORCH_VENV:-.venv-torch}
python=python3
[ -x "$venv/bin/python" ] && python="$venv/bin/python"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# batch m k n: what each GEMM is in the layers (per rank).
shapes=(
  "0 512 1024 4096"   # MLP up-projection, 1 rank (h -> 4h)
  "0 512 4096 1024"   # MLP down-projection, 1 rank
  "0 512 1024 2048"   # MLP up, 2 ranks (column-parallel half)
  "0 512 2048 1024"   # MLP down, 2 ranks (row-parallel half)
  "0 512 1024 3072"   # attention QKV, 1 rank
  "0 512 1024 1024"   # attention output projection, 1 rank
  "16 512 64 512"     # attention scores, 16 heads
  "16 512 512 64"     # attention context, 16 heads
)
[ "${1:-}" = "--quick" ] && shapes=("${shapes[@]:0:2}")

program() { # dtype batch m k n -> file
  local t=$1 b=$2 m=$3 k=$4 n=$5 lead=""
  [ "$b" -gt 0 ] && lead="${b}x"
  local f="$work/mm-$t-$b-$m-$k-$n.mlir"
  cat > "$f" <<MLIR
func.func @mm(%a: tensor<${lead}${m}x${k}x${t}, #coco.replicated>, %b: tensor<${lead}${k}x${n}x${t}, #coco.replicated>) -> tensor<${lead}${m}x${n}x${t}, #coco.replicated> {
  %c = coco.matmul %a, %b : tensor<${lead}${m}x${k}x${t}, #coco.replicated>, tensor<${lead}${k}x${n}x${t}, #coco.replicated> -> tensor<${lead}${m}x${n}x${t}, #coco.replicated>
  return %c : tensor<${lead}${m}x${n}x${t}, #coco.replicated>
}
MLIR
  echo "$f"
}
coco_ms() { # file repeat [flags...]: ms per launch
  local f=$1 r=$2
  shift 2
  $bin/coco-run "$f" --backend cpu --ranks 1 --repeat "$r" --timing "$@" 2>&1 |
    awk -v r="$r" '/^ *0 launch / { printf "%.3f", $(NF-3) / r; found = 1 } END { if (!found) print "failed" }'
}

printf "%-5s %-22s %10s %10s %12s %12s %10s %10s %8s %12s\n" dtype "batch m k n" "coco ms" "tuned ms" "ordered ms" "library ms" "numpy ms" "torch ms" "GFLOP/s" "coco/best"
for t in f32 bf16; do
  for s in "${shapes[@]}"; do
    read -r b m k n <<< "$s"
    f=$(program "$t" $b $m $k $n)
    flops=$(awk -v b=$b -v m=$m -v k=$k -v n=$n 'BEGIN { print 2 * (b > 0 ? b : 1) * m * k * n }')
    repeat=$(awk -v f="$flops" 'BEGIN { r = int(2e10 / f); print r < 3 ? 3 : (r > 50 ? 50 : r) }')
    fused=$(coco_ms "$f" "$repeat")
    # Blockings measured for this shape here (--tune-gemms), then applied.
    tuned=failed
    if $bin/coco-translate "$f" --tune-gemms "$work/tiles.toml" >/dev/null 2>&1; then
      tuned=$(coco_ms "$f" "$repeat" --gemm-tiles "$work/tiles.toml")
    fi
    ordered=$(coco_ms "$f" "$repeat" --gemm-arithmetic ordered)
    library=n/a
    [ "$t" = f32 ] && library=$(coco_ms "$f" "$repeat" --gemm library)
    libs=$("$python" bench/host/gemm_peer.py "$t" $b $m $k $n "$repeat" 2>/dev/null || true)
    np=$(awk '$1 == "numpy" { print $2 }' <<< "$libs"); np=${np:-n/a}
    th=$(awk '$1 == "torch" { print $2 }' <<< "$libs"); th=${th:-n/a}
    awk -v t=$t -v s="$s" -v f="$fused" -v u="$tuned" -v o="$ordered" -v l="$library" -v np="$np" -v th="$th" -v flops="$flops" 'BEGIN {
      best = "n/a"
      if (np != "n/a") best = np
      if (th != "n/a" && (best == "n/a" || th + 0 < best + 0)) best = th
      gf = (f == "failed") ? "n/a" : sprintf("%.1f", flops / f / 1e6)
      ratio = (best == "n/a" || f == "failed") ? "n/a" : sprintf("%.2fx", f / best)
      printf "%-5s %-22s %10s %10s %12s %12s %10s %10s %8s %12s\n", t, s, f, u, o, l, np, th, gf, ratio
    }'
  done
done
