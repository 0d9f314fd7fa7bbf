"""Megatron-LM's tensor-parallel MLP block (forward) in PyTorch on CPU
ranks (gloo), as a user writes it: the peer side of bench/megatron.sh.

Each rank holds its column slice of W1 and b1 and its row slice of W2;
    h = gelu_tanh(x @ W1_r + b1_r)        column-parallel linear
    p = h @ W2_r                          row-parallel linear (partial sums)
    all_reduce(p)                         dist.all_reduce over gloo
    y = layer_norm(dropout(p + b2) + x)   bias, dropout, residual, norm
the operations of examples/coco/megatron_mlp.mlir, one thread per rank.

Run under torch.distributed.run; prints one line on rank 0:
  mlp TOKENS HIDDEN DTYPE WORLD median_ms
"""

import argparse
import statistics
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, required=True)
    parser.add_argument("--hidden", type=int, required=True)
    parser.add_argument("--dtype", choices=["f32", "bf16"], required=True)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    world, rank = dist.get_world_size(), dist.get_rank()
    kind = {"f32": torch.float32, "bf16": torch.bfloat16}[args.dtype]
    t, h = args.tokens, args.hidden
    f = 4 * h // world
    gen = torch.Generator().manual_seed(rank)
    x = torch.randn(t, h, generator=torch.Generator().manual_seed(7)).to(kind)
    w1 = (torch.randn(h, f, generator=gen) * 0.02).to(kind)
    b1 = (torch.randn(f, generator=gen) * 0.02).to(kind)
    w2 = (torch.randn(f, h, generator=gen) * 0.02).to(kind)
    b2 = (torch.randn(h, generator=torch.Generator().manual_seed(8)) * 0.02).to(kind)
    gamma = torch.ones(h, dtype=kind)
    beta = torch.zeros(h, dtype=kind)
    times = []
    with torch.no_grad():
        for _ in range(args.steps + 1):
            dist.barrier()
            start = time.perf_counter()
            a = F.gelu(x @ w1 + b1, approximate="tanh")
            p = a @ w2
            dist.all_reduce(p)
            y = F.layer_norm(F.dropout(p + b2, 0.1, training=True) + x, (h,), gamma, beta, 1e-5)
            times.append(time.perf_counter() - start)
    # The first step warms up (allocation, gloo's first connection).
    median = statistics.median(times[1:]) * 1e3
    if rank == 0:
        print(f"mlp {t} {h} {args.dtype} {world} {median:.2f}")
    dist.destroy_process_group()
    del y


if __name__ == "__main__":
    main()
