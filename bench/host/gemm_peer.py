"""One-thread GEMM times of the libraries a user would otherwise call.

Usage: gemm_peer.py DTYPE BATCH M K N REPEAT
Prints `numpy MS` (float32 only: numpy has no bfloat16) and `torch MS`
(when torch imports), the best of REPEAT calls after one warm-up each.
"""

import sys
import time

import numpy as np


def best_ms(call, repeat):
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


def main():
    dtype, batch, m, k, n, repeat = sys.argv[1], *map(int, sys.argv[2:])
    lead = (batch,) if batch > 0 else ()
    rng = np.random.default_rng(0)
    a = rng.standard_normal(lead + (m, k), dtype=np.float32)
    b = rng.standard_normal(lead + (k, n), dtype=np.float32)
    if dtype == "f32":
        print(f"numpy {best_ms(lambda: a @ b, repeat):.3f}")
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)
    kind = {"f32": torch.float32, "bf16": torch.bfloat16}[dtype]
    ta, tb = torch.from_numpy(a).to(kind), torch.from_numpy(b).to(kind)
    print(f"torch {best_ms(lambda: ta @ tb, repeat):.3f}")


if __name__ == "__main__":
    main()
