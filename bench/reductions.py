"""Blocked-order reductions (issue 31), in one run: accuracy against an exact
sum, and the CPU kernels' time against the index order they replaced.

Accuracy: f32 sums of n = 1M and 16M values (squares of N(0,1) draws, and
uniform [0, 1) draws) as the interpreter and the CPU kernels compute them
(blocked order, which must agree bit for bit), as `--cpu-reductions
index-order` computes them (the order before), and as numpy's pairwise
`np.sum` does, each relative to the exact sum (`math.fsum` of the f64
values; f32 squares are exact in f64).

Speed, one rank: a whole-tensor norm and mean at 16M; LAMB at 4M and 16M as bench/optimizers.sh fuses it (one kernel
per step with both norms); Adafactor (examples/coco/adafactor.mlir) at
2048^2 and 4096^2 as written (one kernel per op). Each timed under both
orders in the same run.

Row and column means on slices, 2 ranks: Adafactor at 2048^2 as written,
fused without coco-partial-reduce (its row and column means over the
gathered gradient squares) and fused with it (each rank's rows reduced,
R + C values communicated instead of R x C), step time and all_gather time.

Usage (after `cargo build`): .venv/bin/python bench/reductions.py [--quick]
"""

import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "debug"
FUSE = (
    "builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,"
    "canonicalize,coco-partial-reduce,canonicalize,cse,coco-fuse)"
)
# The same without coco-partial-reduce: reductions over the gathered tensor.
GATHERED = (
    "builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,"
    "canonicalize,coco-fuse)"
)
ORDERS = ("index-order", "interpreter")


def run(*args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, args))}\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def sums_program(n):
    t = f"tensor<{n}xf32, #coco.replicated>"
    s = "tensor<f32, #coco.replicated>"
    return f"""func.func @sums(%x: {t}, %u: {t}) -> ({s}, {s}, {s}) {{
  %sq = arith.mulf %x, %x : {t}
  %ss = coco.reduce_elements sum %sq : {t} -> {s}
  %ms = coco.reduce_elements avg %sq : {t} -> {s}
  %us = coco.reduce_elements sum %u : {t} -> {s}
  return %ss, %ms, %us : {s}, {s}, {s}
}}
"""


def accuracy(work, n):
    src = work / f"sums{n}.mlir"
    src.write_text(sums_program(n))
    inputs = work / f"in{n}"
    draws = ["--input", "x=normal(0,1)", "--input", "u=uniform(0,1)", "--seed", "7"]
    out = {}
    ref = work / f"ref{n}"
    run(BIN / "coco-run", src, "--backend", "reference", "--ranks", "1", *draws,
        "--save-inputs", inputs, "--outputs", ref, "--max-interp-work", str(64 * n))
    out["reference"] = ref
    for order in ORDERS:
        d = work / f"{order}{n}"
        run(BIN / "coco-run", src, "--backend", "cpu", "--ranks", "1", "--inputs", inputs,
            "--outputs", d, "--cpu-reductions", order)
        out[order] = d
    x = np.load(inputs / "sums.arg0.npy").astype(np.float64)
    u = np.load(inputs / "sums.arg1.npy").astype(np.float64)
    exact = {
        "sum of squares": math.fsum(x * x),
        "mean of squares": math.fsum(x * x) / n,
        "sum of uniforms": math.fsum(u),
    }
    numpy_f32 = {
        "sum of squares": np.sum(np.float32(x) * np.float32(x), dtype=np.float32),
        "mean of squares": np.mean(np.float32(x) * np.float32(x), dtype=np.float32),
        "sum of uniforms": np.sum(np.float32(u), dtype=np.float32),
    }
    rows = []
    for i, (what, e) in enumerate(exact.items()):
        value = {k: np.load(d / f"sums.result{i}.npy") for k, d in out.items()}
        # The CPU's default order is the interpreter's, bit for bit.
        bitwise = value["reference"].tobytes() == value["interpreter"].tobytes()
        rel = lambda v: abs(float(v) - e) / abs(e)
        rows.append((what, n, rel(value["index-order"]), rel(value["reference"]), rel(numpy_f32[what]), bitwise))
    return rows


def kernel_ms(output):
    """(kernel ms per iteration, per iteration ms) from `--timing`: the
    `launch` and `peer_launch` totals (a fused schedule's kernels are peer
    launches)."""
    launches = re.findall(r"^\s+(?:peer_)?launch\s+([\d.]+) ms\s+\(\d+ x\)", output, re.M)
    per = re.search(r"per iteration\s+([\d.]+) ms\s+\((\d+) iterations\)", output)
    if not launches or not per:
        sys.exit(f"no kernel timing in:\n{output}")
    iterations = int(per.group(2))
    return sum(map(float, launches)) / iterations, float(per.group(1))


def timed(src, repeat):
    return {
        order: kernel_ms(run(BIN / "coco-run", src, "--backend", "cpu", "--ranks", "1",
                             "--repeat", str(repeat), "--timing", "--cpu-reductions", order))
        for order in ORDERS
    }


def resized(work, example, replacements, name):
    text = (ROOT / example).read_text()
    for old, new in replacements:
        if old not in text:
            sys.exit(f"cannot resize {example}: no {old}")
        text = text.replace(old, new)
    path = work / name
    path.write_text(text)
    return path


def main():
    quick = "--quick" in sys.argv
    sizes = [1 << 20] if quick else [1 << 20, 1 << 24]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print("accuracy: relative error against the exact sum (f32)")
        print(f"{'sum':<18} {'n':>9} {'index order':>12} {'blocked':>10} {'numpy f32':>10}  cpu == interpreter")
        for n in sizes:
            for what, n_, seq, blocked, npy, same in accuracy(work, n):
                print(f"{what:<18} {n_:>9} {seq:>12.2e} {blocked:>10.2e} {npy:>10.2e}  {'bitwise' if same else 'DIFFERENT'}")

        print("\nspeed: CPU kernel time per step, one rank (ms)")
        print(f"{'program':<28} {'index order':>12} {'blocked':>10} {'speed-up':>9}")
        cases = []
        n = sizes[-1]
        norm = work / "norm.mlir"
        t = f"tensor<{n}xf32, #coco.replicated>"
        norm.write_text(
            f"func.func @norm(%x: {t}) -> (tensor<f32, #coco.replicated>) {{\n"
            f"  %n = coco.norm %x : {t} -> tensor<f32, #coco.replicated>\n"
            f"  return %n : tensor<f32, #coco.replicated>\n}}\n")
        cases.append((f"norm {n}", norm, 20))
        # What a user would otherwise run on one core: numpy's norm, timed in
        # this process (best of 20).
        import time
        x = np.random.default_rng(0).standard_normal(n, dtype=np.float32)
        best = min(
            (lambda t0: (np.linalg.norm(x), time.perf_counter() - t0)[1])(time.perf_counter())
            for _ in range(20)
        )
        numpy_norm_ms = best * 1e3
        mean = work / "mean.mlir"
        mean.write_text(
            f"func.func @mean(%x: {t}) -> (tensor<f32, #coco.replicated>) {{\n"
            f"  %m = coco.reduce_elements avg %x : {t} -> tensor<f32, #coco.replicated>\n"
            f"  return %m : tensor<f32, #coco.replicated>\n}}\n")
        cases.append((f"mean {n}", mean, 20))
        lamb_sizes = [1 << 22] if quick else [1 << 22, 1 << 24]
        for size in lamb_sizes:
            src = resized(work, "examples/coco/lamb.mlir", [("tensor<65536xf32", f"tensor<{size}xf32")], f"lamb{size}.mlir")
            fused = work / f"lamb{size}-fused.mlir"
            run(BIN / "coco-opt", src, f"--pass-pipeline={FUSE}", "-o", fused)
            cases.append((f"LAMB {size} fused", fused, 5))
        for side in [2048] if quick else [2048, 4096]:
            shape = [("tensor<48x32", f"tensor<{side}x{side}"), ("tensor<48xf32", f"tensor<{side}xf32"),
                     ("tensor<32xf32", f"tensor<{side}xf32")]
            src = resized(work, "examples/coco/adafactor.mlir", shape, f"adafactor{side}.mlir")
            cases.append((f"Adafactor {side}x{side}", src, 5))
        for name, src, repeat in cases:
            t = timed(src, repeat)
            seq, blocked = t["index-order"][0], t["interpreter"][0]
            print(f"{name:<28} {seq:>12.2f} {blocked:>10.2f} {seq / blocked:>8.2f}x")
            if name.startswith("norm"):
                print(f"{'  numpy np.linalg.norm':<28} {'':>12} {numpy_norm_ms:>10.2f} {numpy_norm_ms / blocked:>8.2f}x (numpy / coco blocked)")

        print("\nrow and column means on slices: Adafactor 2048x2048, 2 ranks (ms per step)")
        print(f"{'schedule':<34} {'step':>8} {'all_gather':>11} {'vs gathered':>12}")
        shape = [("tensor<48x32", "tensor<2048x2048"), ("tensor<48xf32", "tensor<2048xf32"),
                 ("tensor<32xf32", "tensor<2048xf32")]
        written = resized(work, "examples/coco/adafactor.mlir", shape, "adafactor-2r.mlir")
        schedules = [("as written", written)]
        for label, pipeline in [("fused, means of the gathered", GATHERED), ("fused + partial-reduce", FUSE)]:
            out = work / f"adafactor-{len(schedules)}.mlir"
            run(BIN / "coco-opt", written, f"--pass-pipeline={pipeline}", "-o", out)
            schedules.append((label, out))
        results = []
        for label, src in schedules:
            output = run(BIN / "coco-run", src, "--ranks", "2", "--repeat", "5", "--timing")
            per = float(re.search(r"per iteration\s+([\d.]+) ms", output).group(1))
            gather = re.search(r"^\s+all_gather\s+([\d.]+) ms", output, re.M)
            results.append((label, per, float(gather.group(1)) / 5 if gather else 0.0))
        base = results[1][1]
        for label, per, gather in results:
            print(f"{label:<34} {per:>8.2f} {gather:>11.2f} {base / per:>11.2f}x")

if __name__ == "__main__":
    main()
