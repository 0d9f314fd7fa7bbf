"""One data-parallel optimizer step in PyTorch on CPU ranks (gloo), as
users write it, timed per step: the peer side of bench/pytorch_peer.sh.

Variants (each rank holds its own gradient of N float32 parameters):
  adam-foreach   all_reduce(grad) / world, torch.optim.Adam(foreach=True)
  adam-fused     all_reduce(grad) / world, torch.optim.Adam(fused=True)
  adam-zero      reduce_scatter_tensor(avg) of the gradient, fused Adam on
                 the rank's shard, all_gather_into_tensor of the parameters
  adam-kernel    torch.optim.Adam(fused=True).step() alone, on a gradient
                 already averaged: the kernel, for a per-byte comparison
  lamb-foreach   all_reduce(grad) / world, LAMB written with torch._foreach
                 ops (PyTorch has no LAMB), the per-tensor trust ratio over
                 the whole parameter tensor

Run under torch.distributed.run; prints one line on rank 0:
  VARIANT N WORLD median_ms
"""

import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist


def lamb_step(p, g, m, v, lr, step, beta1=0.9, beta2=0.999, eps=1e-6, wd=0.01):
    torch._foreach_mul_([m], beta1)
    torch._foreach_add_([m], [g], alpha=1 - beta1)
    torch._foreach_mul_([v], beta2)
    torch._foreach_addcmul_([v], [g], [g], value=1 - beta2)
    m_hat = torch._foreach_div([m], 1 - beta1**step)
    v_hat = torch._foreach_div([v], 1 - beta2**step)
    denom = torch._foreach_sqrt(v_hat)
    torch._foreach_add_(denom, eps)
    update = torch._foreach_div(m_hat, denom)
    torch._foreach_add_(update, [p], alpha=wd)
    p_norm = torch._foreach_norm([p])[0]
    u_norm = torch._foreach_norm(update)[0]
    ratio = torch.where((p_norm > 0) & (u_norm > 0), p_norm / u_norm, torch.ones_like(p_norm))
    torch._foreach_add_([p], torch._foreach_mul(update, -lr * ratio))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", required=True)
    parser.add_argument("--params", type=int, required=True)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    world, rank = dist.get_world_size(), dist.get_rank()
    n = args.params
    gen = torch.Generator().manual_seed(rank)
    grad = torch.randn(n, generator=gen)
    p = torch.nn.Parameter(torch.randn(n, generator=torch.Generator().manual_seed(7)))
    times = []
    if args.variant in ("adam-foreach", "adam-fused"):
        opt = torch.optim.Adam([p], lr=1e-3, foreach=args.variant == "adam-foreach",
                               fused=args.variant == "adam-fused")
        for _ in range(args.steps):
            g = grad.clone()
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(g)
            g.div_(world)
            p.grad = g
            opt.step()
            times.append(time.perf_counter() - t0)
    elif args.variant == "adam-kernel":
        opt = torch.optim.Adam([p], lr=1e-3, fused=True)
        p.grad = grad
        for _ in range(args.steps):
            dist.barrier()
            t0 = time.perf_counter()
            opt.step()
            times.append(time.perf_counter() - t0)
    elif args.variant == "adam-zero":
        shard = torch.nn.Parameter(p.detach()[rank * n // world:(rank + 1) * n // world].clone())
        opt = torch.optim.Adam([shard], lr=1e-3, fused=True)
        g_shard = torch.empty(n // world)
        for _ in range(args.steps):
            dist.barrier()
            t0 = time.perf_counter()
            dist.reduce_scatter_tensor(g_shard, grad, op=dist.ReduceOp.SUM)
            g_shard.div_(world)
            shard.grad = g_shard
            opt.step()
            dist.all_gather_into_tensor(p.data, shard.data)
            times.append(time.perf_counter() - t0)
    elif args.variant == "lamb-foreach":
        m, v = torch.zeros(n), torch.zeros(n)
        with torch.no_grad():
            for step in range(1, args.steps + 1):
                g = grad.clone()
                dist.barrier()
                t0 = time.perf_counter()
                dist.all_reduce(g)
                g.div_(world)
                lamb_step(p.data, g, m, v, 1e-3, step)
                times.append(time.perf_counter() - t0)
    else:
        raise SystemExit(f"unknown variant {args.variant}")
    slowest = torch.tensor([statistics.median(times)])
    dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
    if rank == 0:
        print(f"{args.variant} {n} {world} {slowest.item() * 1e3:.2f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
