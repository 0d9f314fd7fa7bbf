#!/usr/bin/env bash
# Megatron-LM's tensor-parallel blocks (forward), coco against PyTorch on
# the same CPU ranks, one thread each, in one run: the MLP block
# (examples/coco/megatron_mlp.mlir) and the attention block
# (examples/coco/megatron_attention.mlir, heads of 64) at hidden sizes 1024
# and 2048 (GPT-2 medium and XL), 512 and 2048 tokens, f32 and bf16, on 2
# and 4 ranks.
#   coco AR_C       the example as written: GEMMs, all_reduce, kernels
#   coco tuned      --coco-autotune (the cost model's schedule for the machine
#                   and the ranks; docs/autotune.md)
#   torch TP        bench/host/pytorch_megatron.py: the same blocks with
#                   torch's matmul (oneDNN/MKL) and dist.all_reduce over gloo
#   torch DS        the same with DeepSpeed's shared-memory all-reduce
#                   (inference_all_reduce, what its AutoTP uses on CPUs), when
#                   deepspeed is in the environment (pip install deepspeed;
#                   its op is JIT-built with ninja on first use), else n/a
# Each line: ms per forward (mean of --repeat for coco, median for torch)
# and the faster torch over the faster coco schedule (above 1: coco is
# faster).
# With CHECK=1 each coco schedule also runs once under --check against the
# reference interpreter (slow at these sizes: minutes per program): "ok"
# as compiled, "ordered" when only --gemm-arithmetic ordered is within
# tolerance (bf16 intermediates can widen fused GEMMs' rounding
# differences; docs/gemm.md), else FAILED.
#
# torch comes from the environment pytorch_peer.sh --install creates
# (.venv-torch, or $TORCH_VENV). Never in CI.
# Usage: [BLOCKS="mlp attention"] [RANKS="2 4"] [TOKENS="512 2048"]
#        [HIDDEN="1024 2048"] [DTYPES="f32 bf16"] [CHECK=1] bench/megatron.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./target/debug
venv=${TORCH_VENV:-.venv-torch}
if ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
  echo "megatron.sh: no torch in $venv; run bench/pytorch_peer.sh --install first" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1

# The examples with their shapes as parameters. MLP: 16 tokens, hidden
# 1024, f16. Attention: 64 tokens, hidden 256, 8 heads of 32, f32.
sed -e 's/tensor<16x/tensor<@T@x/g' -e 's/4096/@F@/g' -e 's/1024/@H@/g' -e 's/f16/@D@/g' \
  examples/coco/megatron_mlp.mlir > "$work/mlp.template"
sed -e 's/tensor<64x256x/tensor<@T@x@H@x/g' -e 's/tensor<256x256x/tensor<@H@x@H@x/g' \
  -e 's/tensor<256x/tensor<@H@x/g' -e 's/tensor<8x64x32x/tensor<@NH@x@T@x64x/g' \
  -e 's/tensor<8x32x64x/tensor<@NH@x64x@T@x/g' -e 's/tensor<8x64x64x/tensor<@NH@x@T@x@T@x/g' \
  -e 's/dense<0.17677669>/dense<0.125>/g' -e 's/f32/@D@/g' \
  examples/coco/megatron_attention.mlir > "$work/attention.template"
per_iteration() { sed -n 's/.*per iteration *\([0-9.]*\) ms.*/\1/p'; }
coco_ms() { # program ranks repeat
  ( $bin/coco-run "$1" --ranks "$2" --repeat "$3" --timing 2>&1 || true ) | per_iteration | grep . || echo failed
}
checked() { # program ranks
  local within="result0: \(bitwise equal\|largest\)"
  if [ "${CHECK:-0}" != 1 ]; then
    echo -
  elif $bin/coco-run "$1" --ranks "$2" --check 2>&1 | grep -q "$within"; then
    echo ok
  elif $bin/coco-run "$1" --ranks "$2" --check --gemm-arithmetic ordered 2>&1 | grep -q "$within"; then
    echo ordered
  else
    echo FAILED
  fi
}

deepspeed=0
"$venv/bin/python" -c 'import deepspeed' >/dev/null 2>&1 && deepspeed=1
# DeepSpeed's CPU accelerator, and ninja (a wheel in the venv) for its op.
export DS_ACCELERATOR=cpu PATH="$PWD/$venv/bin:$PATH"
torch_ms() { # block tokens hidden dtype ranks steps all-reduce
  "$venv/bin/python" -m torch.distributed.run --standalone --nproc_per_node "$5" \
    bench/host/pytorch_megatron.py --block "$1" --tokens "$2" --hidden "$3" --dtype "$4" \
    --steps "$6" --all-reduce "$7" 2>/dev/null | awk '{print $6}' | tail -1
}
printf "%-9s %5s %6s %6s %5s %12s %12s %10s %10s %16s %8s\n" block ranks tokens hidden dtype "coco AR_C" "coco tuned" "torch TP" "torch DS" "check" "torch/coco"
for block in ${BLOCKS:-mlp attention}; do
for ranks in ${RANKS:-2 4}; do
  for dtype in ${DTYPES:-f32 bf16}; do
    for hidden in ${HIDDEN:-1024 2048}; do
      for tokens in ${TOKENS:-512 2048}; do
        p="$work/$block-$tokens-$hidden-$dtype.mlir"
        sed -e "s/@T@/$tokens/g; s/@F@/$((4 * hidden))/g; s/@H@/$hidden/g; s/@NH@/$((hidden / 64))/g; s/@D@/$dtype/g" \
          "$work/$block.template" > "$p"
        $bin/coco-opt "$p" --coco-autotune=cpu-host --autotune-ranks="$ranks" -o "$p.tuned.mlir" 2>/dev/null || cp "$p" "$p.tuned.mlir"
        repeat=$(( tokens * hidden >= 2048 * 2048 ? 2 : 5 ))
        arc=$(coco_ms "$p" "$ranks" $repeat)
        tuned=$(coco_ms "$p.tuned.mlir" "$ranks" $repeat)
        torch=$(torch_ms "$block" "$tokens" "$hidden" "$dtype" "$ranks" $repeat gloo)
        ds=n/a
        [ "$deepspeed" = 1 ] && ds=$(torch_ms "$block" "$tokens" "$hidden" "$dtype" "$ranks" $repeat deepspeed)
        check="$(checked "$p" "$ranks")/$(checked "$p.tuned.mlir" "$ranks")"
        awk -v b=$block -v r=$ranks -v t=$tokens -v h=$hidden -v d=$dtype -v a="$arc" -v u="$tuned" -v th="${torch:-nan}" -v ds="${ds:-nan}" -v c="$check" 'BEGIN {
          best = a; if (u != "failed" && (best == "failed" || u + 0 < best + 0)) best = u
          tb = th; if (ds != "n/a" && ds != "nan" && (tb == "nan" || ds + 0 < tb + 0)) tb = ds
          ratio = (best == "failed" || tb == "nan") ? "n/a" : sprintf("%.2fx", tb / best)
          printf "%-9s %5d %6d %6d %5s %12s %12s %10s %10s %16s %8s\n", b, r, t, h, d, a, u, th, ds, c, ratio
        }'
      done
    done
  done
done
done
