#!/usr/bin/env python3
"""coco's GPU check from Python (run by gpu-check.sh through gpu_check.py).

The executor's CUDA backend has not run on a GPU yet, so this script checks
the PTX on its own, on one GPU: it loads each bundle's PTX with the CUDA
driver API (ctypes, no toolkit), follows the plan (kernel launches from `gpu_launches`; on one rank
every collective is a copy), and compares every output with the reference
interpreter's. It also runs an NCCL all_reduce on a single rank, times
the fused Adam kernel against a device-to-device copy of the same bytes and
torch.optim.Adam(fused=True), and checks and times the GEMM kernels
(ROOT/bench/gemm-*) against torch.matmul. Needs PyTorch (for device memory and timing)
and a CUDA driver; plans are read from plan.json (written by gpu-prepare.sh),
else from plan.toml (Python 3.11's tomllib, or tomli).

    check.py ROOT [--results FILE]                # ROOT/bundles/*, NCCL, ROOT/bench/*
    check.py ROOT --bench-only [--results FILE]   # the timing of ROOT/bench/* only

With --results, every check and timing is also appended to FILE as one JSON
object a line (gpu_check.py's table rows: what, gpus, result, seconds, ms,
gbps, vs_copy, vs_torch, note).
"""

import argparse
import ctypes
import json
import os
import struct
import sys
import time

try:
    import torch
except ImportError:
    print("check.py: needs PyTorch (pip install torch)")
    sys.exit(3)

# The plan format version this script reads (coco_bundle::FORMAT_VERSION).
PLAN_VERSION = 4
FAILURES = []
RESULTS = None  # the --results file, when given

# Relative tolerance by element type: |a - b| <= tol * max(1, |b|), as
# coco-run --check. The PTX is IEEE (mul.rn, add.rn, div.rn, sqrt.rn, no
# contraction) except transcendentals (libdevice, or coco's ex2-based
# fallback; plan.ptx.libdevice says which) and reductions, which are trees
# on the GPU: docs/gpu.md has the error of each.
TOLERANCE = {"f64": 2.0 ** -40, "f32": 2.0 ** -17, "f16": 2.0 ** -7, "bf16": 2.0 ** -7,
             "i64": 0.0, "i32": 0.0, "i1": 0.0}
TORCH_DTYPE = {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16,
               "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32, "i1": torch.uint8}
SIZE = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i1": 1}


def fail(message):
    FAILURES.append(message)
    print(f"  FAIL: {message}")


def record(what, result, seconds=None, note="", **timing):
    """One row of gpu_check.py's table (to --results, when given)."""
    if RESULTS is None:
        return
    row = {"what": what, "gpus": 1, "result": result, "seconds": seconds, "note": note}
    row.update(timing)
    RESULTS.write(json.dumps(row) + "\n")
    RESULTS.flush()


def load_plan(bundle):
    """plan.json (gpu-prepare.sh writes it for Pythons without tomllib), else plan.toml."""
    path = os.path.join(bundle, "plan.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    try:
        import tomllib
    except ImportError:
        try:
            import tomli as tomllib
        except ImportError:
            raise RuntimeError(f"{bundle}: no plan.json, and reading plan.toml needs Python 3.11 or tomli")
    with open(os.path.join(bundle, "plan.toml"), "rb") as f:
        return tomllib.load(f)


# --- CUDA driver API -------------------------------------------------------

try:
    cuda = ctypes.CDLL("libcuda.so.1")
except OSError as error:  # reported by main(), as a row of the table
    cuda, CUDA_ERROR = None, f"libcuda.so.1 does not load ({error})"


def check_cu(result, what):
    if result != 0:
        text = ctypes.c_char_p()
        cuda.cuGetErrorString(result, ctypes.byref(text))
        raise RuntimeError(f"{what}: CUDA error {result} ({(text.value or b'?').decode()})")


def load_module(ptx):
    """cuModuleLoadDataEx with the JIT error log."""
    module = ctypes.c_void_p()
    log = ctypes.create_string_buffer(16384)
    options = (ctypes.c_int * 2)(5, 6)  # CU_JIT_ERROR_LOG_BUFFER, ..._SIZE_BYTES
    values = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p).value, len(log))
    data = ctypes.create_string_buffer(ptx.encode() + b"\0")
    result = cuda.cuModuleLoadDataEx(ctypes.byref(module), data, 2, options, values)
    if result != 0:
        check_cu(result, f"cuModuleLoadDataEx: {log.value.decode(errors='replace').strip()}")
    return module


def function(module, name):
    handle = ctypes.c_void_p()
    check_cu(cuda.cuModuleGetFunction(ctypes.byref(handle), module, name.encode()), f"cuModuleGetFunction({name})")
    return handle


def launch(handle, grid, block, args, stream):
    keep = []
    for kind, value in args:
        keep.append(ctypes.c_int64(value) if kind == "i64" else
                    ctypes.c_float(value) if kind == "f32" else
                    ctypes.c_double(value) if kind == "f64" else
                    ctypes.c_int32(value) if kind == "i32" else
                    ctypes.c_uint64(value))
    params = (ctypes.c_void_p * len(keep))(*[ctypes.cast(ctypes.byref(k), ctypes.c_void_p) for k in keep])
    check_cu(cuda.cuLaunchKernel(handle, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                 0, ctypes.c_void_p(stream), params, None), "cuLaunchKernel")


# --- .npy ------------------------------------------------------------------

def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise RuntimeError(f"{path}: not a .npy file")
    if data[6] == 1:
        header_len, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        header_len, start = struct.unpack("<I", data[8:12])[0], 12
    header = data[start:start + header_len].decode()
    descr = header.split("'descr':")[1].split("'")[1]
    shape_text = header.split("'shape':")[1].split(")")[0].strip(" (")
    shape = [int(d) for d in shape_text.split(",") if d.strip()]
    return descr, shape, data[start + header_len:]


def npy_tensor(path, dtype):
    """The file's elements as a CPU tensor of `dtype` (bf16 is stored as <f4)."""
    descr, shape, raw = read_npy(path)
    stored = {"<f8": torch.float64, "<f4": torch.float32, "<f2": torch.float16,
              "<i8": torch.int64, "<i4": torch.int32, "|b1": torch.uint8}[descr]
    flat = torch.frombuffer(bytearray(raw), dtype=stored) if raw else torch.empty(0, dtype=stored)
    return flat.to(TORCH_DTYPE[dtype]), shape


# --- running a plan on one GPU ---------------------------------------------

def element_count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Run:
    def __init__(self, bundle):
        self.bundle = bundle
        self.plan = load_plan(bundle)
        if self.plan.get("format") != "coco-bundle" or self.plan.get("version") != PLAN_VERSION:
            raise RuntimeError(f"{bundle}: not a version-{PLAN_VERSION} coco bundle "
                               f"(version {self.plan.get('version')}); prepare it again")
        if self.plan["ranks"] != 1:
            raise RuntimeError(f"{bundle}: compiled for {self.plan['ranks']} ranks; the check runs one GPU")
        with open(os.path.join(bundle, self.plan["ptx"]["file"])) as f:
            self.module = load_module(f.read())
        self.kernels = {k["name"]: k for k in self.plan.get("kernels", [])}
        self.stage = self.plan["stages"][0]
        self.buffers = {}
        plain = [b for b in self.stage["buffers"] if "view" not in b]
        for b in plain:
            nbytes = max(1, element_count(b["shape"]) * SIZE[b["dtype"]])
            self.buffers[b["name"]] = (torch.zeros(nbytes, dtype=torch.uint8, device="cuda"), b)
        for b in self.stage["buffers"]:
            if "view" in b:
                base, _ = self.buffers[b["view"]["of"]]
                start = b["view"]["offset"] * SIZE[b["dtype"]]
                nbytes = element_count(b["shape"]) * SIZE[b["dtype"]]
                self.buffers[b["name"]] = (base[start:start + nbytes], b)
        self.functions = {}
        self.scratch = {}
        self.stream = torch.cuda.current_stream().cuda_stream

    def fill_inputs(self, directory=None):
        for name, (memory, b) in self.buffers.items():
            if "input" not in b:
                continue
            if directory is None:
                values = torch.rand(element_count(b["shape"]), device="cuda").to(TORCH_DTYPE[b["dtype"]])
            else:
                path = os.path.join(directory, b["input"]["name"] + ".npy")
                values, _ = npy_tensor(path, b["dtype"])
            raw = values.contiguous().view(torch.uint8).reshape(-1)
            if raw.numel() != element_count(b["shape"]) * SIZE[b["dtype"]]:
                raise RuntimeError(f"input {b['input']['name']}: {raw.numel()} bytes, expected "
                                   f"{element_count(b['shape']) * SIZE[b['dtype']]}")
            memory[: raw.numel()].copy_(raw.to(memory.device))

    def launch_kernel(self, name, buffer_names):
        kernel = self.kernels[name]
        if not kernel.get("gpu_launches"):
            raise RuntimeError(f"kernel {name} ({kernel.get('computes')}) has no GPU launches")
        if name not in self.scratch:
            self.scratch[name] = [torch.zeros(max(1, n), dtype=torch.uint8, device="cuda")
                                  for n in kernel.get("gpu_scratch", [])]
        for entry in kernel["gpu_launches"]:
            if entry["entry"] not in self.functions:
                self.functions[entry["entry"]] = function(self.module, entry["entry"])
            args = []
            for param in entry["params"]:
                # docs/bundle.md: a table tagged by `kind`.
                kind = param["kind"]
                dtype = param.get("dtype")
                if kind == "buffer":
                    args.append(("ptr", self.buffers[buffer_names[param["index"]]][0].data_ptr()))
                elif kind == "scratch":
                    args.append(("ptr", self.scratch[name][param["index"]].data_ptr()))
                elif kind in ("rank", "rank_times"):
                    args.append(("i64", 0))  # one rank: position 0
                elif kind == "constant" and dtype in ("i64", "i32"):
                    args.append((dtype, int(param["value"])))
                elif kind == "constant" and dtype in ("f32", "f64"):
                    args.append((dtype, float(param["value"])))
                else:
                    raise RuntimeError(f"kernel {name}: unknown launch parameter {param}")
            launch(self.functions[entry["entry"]], entry["grid"], entry["block"], args, self.stream)

    def run_steps(self):
        for step in self.stage["steps"]:
            op = step["op"]
            if op == "launch":
                self.launch_kernel(step["kernel"], step["buffers"])
            elif op in ("all_reduce", "reduce_scatter", "all_gather", "broadcast", "reduce",
                        "all_to_all", "copy"):
                # One rank: every collective is the identity.
                src, _ = self.buffers[step["input"]]
                dst, _ = self.buffers[step["output"]]
                if src.data_ptr() != dst.data_ptr():
                    dst.copy_(src)
            elif op in ("record_event", "wait_event"):
                pass
            else:
                raise RuntimeError(f"step '{op}' needs more than one rank")

    def compare(self, reference):
        torch.cuda.synchronize()
        results = []
        for name, (memory, b) in self.buffers.items():
            if "output" not in b:
                continue
            out_name = b["output"]["name"]
            expected, _ = npy_tensor(os.path.join(reference, out_name + ".npy"), b["dtype"])
            count = element_count(b["shape"])
            got = memory[: count * SIZE[b["dtype"]]].view(TORCH_DTYPE[b["dtype"]]).cpu()
            a, e = got.to(torch.float64), expected.to(torch.float64)
            if a.numel() != e.numel():
                fail(f"{out_name}: {a.numel()} elements, reference {e.numel()}")
                continue
            if torch.equal(got.view(-1), expected.view(-1)):
                results.append(f"{out_name}: bitwise equal")
                continue
            error = ((a - e).abs() / e.abs().clamp(min=1.0)).nan_to_num(nan=float("inf"))
            worst = float(error.max()) if error.numel() else 0.0
            tol = TOLERANCE[b["dtype"]]
            if worst > tol:
                fail(f"{os.path.basename(self.bundle)}: {out_name}: largest error {worst:.3e} > {tol:.1e}")
            else:
                results.append(f"{out_name}: largest relative error {worst:.3e} (tolerance {tol:.1e})")
        return results


def check_bundles(root):
    bundles = os.path.join(root, "bundles")
    for name in sorted(os.listdir(bundles)):
        bundle = os.path.join(bundles, name)
        print(f"== {name}")
        began, failures = time.time(), len(FAILURES)
        try:
            run = Run(bundle)
            run.fill_inputs(os.path.join(bundle, "inputs"))
            run.run_steps()
            for line in run.compare(os.path.join(bundle, "reference")):
                print(f"  {line}")
        except Exception as error:  # one bundle's failure must not hide the others
            fail(f"{name}: {error}")
        new = FAILURES[failures:]
        record(f"{name} (bundle)", "FAIL" if new else "PASS", time.time() - began, new[0] if new else "")


def check_nccl():
    print("== NCCL, one rank")
    began, failures = time.time(), len(FAILURES)
    check_nccl_rank()
    new = FAILURES[failures:]
    record("NCCL all_reduce, one rank", "FAIL" if new else "PASS", time.time() - began, new[0] if new else "")


def check_nccl_rank():
    try:
        nccl = ctypes.CDLL(os.environ.get("COCO_NCCL", "libnccl.so.2"))
    except OSError as error:
        fail(f"cannot load libnccl.so.2 ({error}); install the nvidia-nccl wheel")
        return

    class UniqueId(ctypes.Structure):
        _fields_ = [("internal", ctypes.c_char * 128)]

    version = ctypes.c_int()
    nccl.ncclGetVersion(ctypes.byref(version))
    uid = UniqueId()
    comm = ctypes.c_void_p()
    nccl.ncclCommInitRank.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, UniqueId, ctypes.c_int]
    nccl.ncclAllReduce.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                   ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    for what, result in (("ncclGetUniqueId", nccl.ncclGetUniqueId(ctypes.byref(uid))),
                         ("ncclCommInitRank", nccl.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0))):
        if result != 0:
            fail(f"{what} returned {result}")
            return
    x = torch.arange(1 << 20, dtype=torch.float32, device="cuda")
    y = torch.empty_like(x)
    stream = torch.cuda.current_stream().cuda_stream
    result = nccl.ncclAllReduce(x.data_ptr(), y.data_ptr(), x.numel(), 7, 0, comm, ctypes.c_void_p(stream))
    torch.cuda.synchronize()
    nccl.ncclCommDestroy(comm)
    if result != 0:
        fail(f"ncclAllReduce returned {result}")
    elif not torch.equal(x, y):
        fail("ncclAllReduce on one rank changed the data")
    else:
        print(f"  NCCL {version.value}: all_reduce of 4 MiB on one rank: correct")


def time_cuda(fn, iterations=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iterations):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iterations


def measure(label, fn):
    """Milliseconds per call of `fn`, or None (with the reason printed) when it fails."""
    try:
        return time_cuda(fn), ""
    except Exception as error:
        print(f"  {label}: {error}")
        return None, str(error)


def benchmark(root):
    bench = os.path.join(root, "bench")
    for name in sorted(os.listdir(bench)):
        if name.startswith("gemm-"):
            bench_gemm(os.path.join(bench, name), name)
            continue
        print(f"== timing: {name}")
        n = int(name.split("-")[-1])
        size = f"{n >> 20}M" if n % (1 << 20) == 0 else str(n)
        rows = {"kernel": f"time: Adam {size} f32, coco fused kernel",
                "copy": f"time: Adam {size} f32, D2D copy, same bytes",
                "torch": f"time: Adam {size} f32, torch Adam(fused=True)"}
        kernel_bytes = 7 * 4 * n  # reads g, m, v, p; writes m, v, p
        ms, notes = {}, {}
        try:
            run = Run(os.path.join(bench, name))
            run.fill_inputs(None)
            launches = [s for s in run.stage["steps"] if s["op"] == "launch"]
            if len(launches) != 1:
                raise RuntimeError(f"expected one fused kernel, the plan has {len(launches)}")
            step = launches[0]
            ms["kernel"], notes["kernel"] = measure(
                "coco fused Adam kernel", lambda: run.launch_kernel(step["kernel"], step["buffers"]))
        except Exception as error:
            ms["kernel"], notes["kernel"] = None, str(error)
        if ms["kernel"] is None:
            fail(f"{name}: {notes['kernel']}")
        try:
            # Reads and writes kernel_bytes in all, as the kernel does.
            src = torch.rand(kernel_bytes // 8, device="cuda")
            dst = torch.empty_like(src)
            ms["copy"], notes["copy"] = measure("device-to-device copy", lambda: dst.copy_(src))
            src = dst = None  # frees the memory before torch's Adam allocates
        except Exception as error:
            ms["copy"], notes["copy"] = None, str(error)
        if ms["copy"] is None:
            fail(f"{name}: device-to-device copy: {notes['copy']}")
        try:
            params = [torch.rand(n, device="cuda", requires_grad=True)]
            params[0].grad = torch.rand(n, device="cuda")
            optimizer = torch.optim.Adam(params, lr=1e-3, fused=True)
            ms["torch"], notes["torch"] = measure("torch.optim.Adam(fused=True)", optimizer.step)
        except Exception as error:  # a PyTorch without fused Adam: no comparison, not a failure of coco
            ms["torch"], notes["torch"] = None, f"torch {torch.__version__}: {error}"
            print(f"  torch.optim.Adam(fused=True): {error}")
        gbps = lambda t: kernel_bytes / (t * 1e6)
        ratio = lambda a, b: a / b if a is not None and b is not None else None
        for key, label in (("kernel", "coco fused Adam kernel:  "), ("copy", "device-to-device copy:   "),
                           ("torch", "torch.optim.Adam(fused): ")):
            t = ms[key]
            if t is not None:
                versus = ratio(t, ms["copy"])
                print(f"  {label} {t:8.3f} ms  {gbps(t):8.1f} GB/s" +
                      (f"  ({versus:.2f}x the copy's time)" if versus is not None else ""))
            result = "PASS" if t is not None else ("SKIP" if key == "torch" else "FAIL")
            record(rows[key], result, None, notes[key] if t is None else "",
                   ms=t, gbps=gbps(t) if t is not None else None,
                   vs_copy=ratio(t, ms["copy"]), vs_torch=ratio(t, ms["torch"]))


def gemm_bound(k, dtype):
    """The largest relative error of a length-k sum of positive products in
    f32 (fused or not: gamma_k, docs/gemm.md), plus the final rounding of a
    16-bit result: against an f64 reference."""
    return 1.01 * (k * 2.0 ** -24 + {"bf16": 2.0 ** -8, "f16": 2.0 ** -11}.get(dtype, 0.0))


def bench_gemm(bundle, name):
    """One GEMM bundle (gpu/gemm-bench.sh's): its kernel's result against
    torch.matmul in f64, then its time against torch.matmul's on the same
    operands (f32 without TF32, as coco's: both on the f32 units; bf16 as
    torch runs it, on tensor cores, which coco's kernels do not use)."""
    print(f"== timing: {name}")
    what = name[len("gemm-"):]
    coco_row, torch_row = f"time: GEMM {what}, coco", f"time: GEMM {what}, torch.matmul"
    try:
        run = Run(bundle)
        run.fill_inputs(None)
        launches = [s for s in run.stage["steps"] if s["op"] == "launch"]
        if len(launches) != 1:
            raise RuntimeError(f"expected one GEMM kernel, the plan has {len(launches)}")
        step = launches[0]

        def tensor(buffer_name):
            memory, b = run.buffers[buffer_name]
            return memory.view(TORCH_DTYPE[b["dtype"]]).reshape(b["shape"]), b["dtype"]

        (a, dtype), (b, _), (c, _) = (tensor(n) for n in step["buffers"])
        run.launch_kernel(step["kernel"], step["buffers"])
        torch.cuda.synchronize()
        expected = torch.matmul(a.double(), b.double())
        error = ((c.double() - expected).abs() / expected.abs().clamp(min=1.0)).max().item()
        k = a.shape[-1]
        bound = gemm_bound(k, dtype)
        flops = 2.0 * c.numel() * k
        if not error <= bound:
            fail(f"{name}: largest relative error {error:.3e} against torch.matmul in f64, bound {bound:.3e}")
            record(coco_row, "FAIL", note=f"largest relative error {error:.3e}, bound {bound:.3e}")
            return
        ms_coco = time_cuda(lambda: run.launch_kernel(step["kernel"], step["buffers"]))
    except Exception as error:
        fail(f"{name}: {error}")
        record(coco_row, "FAIL", note=str(error))
        return
    torch.backends.cuda.matmul.allow_tf32 = False
    out = torch.empty_like(c)
    ms_torch, note = measure("torch.matmul", lambda: torch.matmul(a, b, out=out))
    tflops = lambda ms: flops / (ms * 1e9)
    ratio = ms_coco / ms_torch if ms_torch is not None else None
    print(f"  coco:         {ms_coco:8.3f} ms  {tflops(ms_coco):7.2f} TFLOP/s  (largest relative error {error:.1e})")
    if ms_torch is not None:
        print(f"  torch.matmul: {ms_torch:8.3f} ms  {tflops(ms_torch):7.2f} TFLOP/s  (coco {ratio:.2f}x its time)")
    record(coco_row, "PASS", ms=ms_coco, vs_torch=ratio,
           note=f"{tflops(ms_coco):.2f} TFLOP/s; largest relative error {error:.1e} (bound {bound:.1e})")
    record(torch_row, "PASS" if ms_torch is not None else "SKIP", ms=ms_torch,
           vs_torch=1.0 if ms_torch is not None else None,
           note=f"{tflops(ms_torch):.2f} TFLOP/s" if ms_torch is not None else note)


def main():
    global RESULTS
    parser = argparse.ArgumentParser(description="coco's GPU check from Python (see the module docstring)")
    parser.add_argument("root", nargs="?", default=os.path.dirname(os.path.abspath(__file__)),
                        help="the folder with bundles/ and bench/ (gpu-prepare.sh's)")
    parser.add_argument("--bench-only", action="store_true", help="only time ROOT/bench/*")
    parser.add_argument("--results", help="append one JSON row a check to this file")
    args = parser.parse_args()
    if args.results:
        RESULTS = open(args.results, "a")
    began = time.time()
    if cuda is None:
        print(f"gpu-check: {CUDA_ERROR}")
        record("CUDA driver loads", "FAIL", note=CUDA_ERROR)
        return 1
    if not torch.cuda.is_available():
        print("gpu-check: no CUDA device visible to PyTorch")
        record("PyTorch sees a CUDA device", "FAIL", note="torch.cuda.is_available() is False")
        return 1
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # makes the primary context current for the driver API
    print(f"device: {torch.cuda.get_device_name()} (PyTorch {torch.__version__})")
    if not args.bench_only:
        check_bundles(args.root)
        check_nccl()
    benchmark(args.root)
    print(f"== summary: {len(FAILURES)} failure(s) in {time.time() - began:.1f} s")
    for message in FAILURES:
        print(f"  {message}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
