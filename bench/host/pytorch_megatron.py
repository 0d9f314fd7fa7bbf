"""Megatron-LM's tensor-parallel blocks (forward) in PyTorch on CPU ranks
(gloo), as a user writes them: the peer side of bench/megatron.sh, one
thread per rank.

mlp (examples/coco/megatron_mlp.mlir): each rank holds its column slice of
W1 and b1 and its row slice of W2;
    h = gelu_tanh(x @ W1_r + b1_r)        column-parallel linear
    p = h @ W2_r                          row-parallel linear (partial sums)
    all_reduce(p)                         dist.all_reduce over gloo
    y = layer_norm(dropout(p + b2) + x)   bias, dropout, residual, norm

attention (examples/coco/megatron_attention.mlir): each rank holds whole
heads (heads of 64): column slices of Wq, Wk, Wv, a row slice of Wo;
    q, k, v = x @ Wq_r, x @ Wk_r, x @ Wv_r, split into the rank's heads
    a = dropout(softmax(q k^T / 8)) v, heads merged
    p = a @ Wo_r; all_reduce(p); y = layer_norm(dropout(p + bo) + x)

--all-reduce deepspeed replaces dist.all_reduce by DeepSpeed's
inference_all_reduce: its shared-memory all-reduce for CPU ranks
(deepspeed/ops/csrc/cpu/comm/shm.cpp, JIT-built with ninja on first use;
DS_ACCELERATOR=cpu), what DeepSpeed's AutoTP inference uses on CPUs.

Run under torch.distributed.run; prints one line on rank 0:
  BLOCK TOKENS HIDDEN DTYPE WORLD median_ms
"""

import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--block", choices=["mlp", "attention"], default="mlp")
    parser.add_argument("--tokens", type=int, required=True)
    parser.add_argument("--hidden", type=int, required=True)
    parser.add_argument("--dtype", choices=["f32", "bf16"], required=True)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--all-reduce", choices=["gloo", "deepspeed"], default="gloo")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.all_reduce == "deepspeed":
        # DeepSpeed's launcher sets LOCAL_SIZE; without it the shm op is
        # never set up and its all-reduce faults (DeepSpeed 0.19.8).
        os.environ.setdefault("LOCAL_SIZE", os.environ.get("LOCAL_WORLD_SIZE", "1"))
        import deepspeed
        import deepspeed.comm

        deepspeed.init_distributed(dist_backend="gloo")

        def all_reduce(p):
            deepspeed.comm.inference_all_reduce(p)
    else:
        dist.init_process_group("gloo")

        def all_reduce(p):
            dist.all_reduce(p)
    world, rank = dist.get_world_size(), dist.get_rank()
    kind = {"f32": torch.float32, "bf16": torch.bfloat16}[args.dtype]
    t, h = args.tokens, args.hidden
    gen = torch.Generator().manual_seed(rank)

    def weight(*shape):
        return (torch.randn(*shape, generator=gen) * 0.02).to(kind)

    x = torch.randn(t, h, generator=torch.Generator().manual_seed(7)).to(kind)
    b2 = (torch.randn(h, generator=torch.Generator().manual_seed(8)) * 0.02).to(kind)
    gamma = torch.ones(h, dtype=kind)
    beta = torch.zeros(h, dtype=kind)
    if args.block == "mlp":
        f = 4 * h // world
        w1, b1, w2 = weight(h, f), weight(f), weight(f, h)

        def partial():
            return F.gelu(x @ w1 + b1, approximate="tanh") @ w2
    else:
        heads = h // 64 // world
        wq, wk, wv, wo = weight(h, heads * 64), weight(h, heads * 64), weight(h, heads * 64), weight(heads * 64, h)

        def partial():
            def split(m):
                return m.view(t, heads, 64).transpose(0, 1)
            q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
            w = F.dropout(torch.softmax(q @ k.transpose(1, 2) / 8.0, dim=-1), 0.1, training=True)
            return (w @ v).transpose(0, 1).reshape(t, heads * 64) @ wo
    times = []
    with torch.no_grad():
        for _ in range(args.steps + 1):
            dist.barrier()
            start = time.perf_counter()
            p = partial()
            all_reduce(p)
            y = F.layer_norm(F.dropout(p + b2, 0.1, training=True) + x, (h,), gamma, beta, 1e-5)
            times.append(time.perf_counter() - start)
    # The first step warms up (allocation, gloo's first connection).
    median = statistics.median(times[1:]) * 1e3
    if rank == 0:
        print(f"{args.block} {t} {h} {args.dtype} {world} {median:.2f}")
    dist.destroy_process_group()
    del y


if __name__ == "__main__":
    main()
