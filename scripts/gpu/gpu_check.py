#!/usr/bin/env python3
"""coco's GPU check in one command: the driver behind scripts/gpu-check.sh.

Two modes; gpu-check.sh picks one by where it runs (docs/gpu-check.md):

* tools: a checkout with the coco tools built. Every examples/coco/*.mlir
  runs through `coco-run EXAMPLE --backend cuda --check --ranks R --seed 5`,
  once on 1 GPU and once on all visible GPUs (R = their count, or the
  largest count below it that the example runs on: pipeline stages need one
  GPU each, and a sliced dimension must divide by its group). Then the fused
  Adam step is compiled (gpu/adam-bench.sh) and timed by check.py.
* folder: the folder scripts/gpu-prepare.sh made, on a machine without Rust
  or MLIR: check.py runs every bundle's PTX on one GPU, NCCL on one rank, and
  the same timing.

Either way it ends with one table: a row per check (PASS, FAIL or SKIP, and
seconds) and the timing rows (ms per step, GB/s, time over the D2D copy's,
time over torch's fused Adam's). Exit status 0 only when no row FAILed and
at least one PASSed. Everything runs under one time budget (--budget).

Needs only the Python standard library (3.8 or newer); PyTorch is needed by
check.py alone, and a missing torch turns the timing into a SKIP row.
`--self-test` checks this file on a CPU with fake tools and fake results.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The one-line errors this driver tells apart: a step the cuda backend lacks
# (runtime/executor, its cuda module), a world size that does not fit
# (compiler/dialects/src/coco/world.rs).
UNSUPPORTED = "is not supported by the cuda backend yet"
NOT_DIVIDE = "does not divide"
BENCH_PARAMETERS = 16777216
COLUMNS = ("what", "GPUs", "result", "seconds", "ms/step", "GB/s", "vs copy", "vs torch", "note")


# --- what runs where -------------------------------------------------------

def count_gpus(environ, nvidia_smi_lines):
    """(count, how it was found): CUDA_VISIBLE_DEVICES when set (CUDA stops at
    the first negative entry; capped by nvidia-smi's count), else the `GPU n:`
    lines of `nvidia-smi -L` (MIG lines below a GPU are not counted)."""
    listed = None
    if nvidia_smi_lines is not None:
        listed = sum(1 for line in nvidia_smi_lines if line.startswith("GPU "))
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        count = 0
        for entry in visible.split(","):
            entry = entry.strip()
            if not entry or entry.startswith("-"):
                break
            count += 1
        if listed is not None and listed < count:
            return listed, f"CUDA_VISIBLE_DEVICES={visible}, nvidia-smi -L lists {listed}"
        return count, f"CUDA_VISIBLE_DEVICES={visible}"
    if listed is None:
        return 0, "no nvidia-smi, no CUDA_VISIBLE_DEVICES"
    return listed, "nvidia-smi -L"


def nvidia_smi_lines():
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.decode(errors="replace").splitlines()


def discover(directory):
    """The examples: every *.mlir right in `directory` (not paper/: paper-scale
    programs are too large for the interpreter that --check runs)."""
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if name.endswith(".mlir") and os.path.isfile(os.path.join(directory, name)))


def on_mesh(text):
    """Whether the program declares a coco.mesh (named axes over its ranks)."""
    return re.search(r"^\s*coco\.mesh\s+@", text, re.M) is not None


def pipeline_stages(text):
    """How many pipeline stages the program's coco.process_group ops split the world into (1: none)."""
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    counts = [int(k) for k in re.findall(r"coco\.process_group\s+@\S+\s+stage\s+\d+\s+of\s+(\d+)", code)]
    return max(counts) if counts else 1


def choose_ranks(gpus, stages, problem):
    """The world size for the all-GPUs pass: the largest R in gpus..2 that is a
    multiple of `stages` (one GPU per rank, so every stage gets its own GPUs)
    and for which problem(R) is None. Returns (R, note) or (None, why not)."""
    if gpus < stages:
        return None, f"needs {stages} GPUs (one per pipeline stage), {gpus} visible"
    first = None
    for ranks in range(gpus, 1, -1):
        why = (f"{ranks} is not a multiple of its {stages} pipeline stages" if ranks % stages
               else problem(ranks))
        if why is None:
            return ranks, "" if ranks == gpus else f"on {ranks} of {gpus} GPUs: {first}"
        first = first or why
    return None, first


def world_size_problem(coco_translate, example, ranks, timeout=30):
    """Why `example` cannot run on `ranks` ranks, as coco-translate says it
    (the check both backends make, compiler/dialects/src/coco/world.rs), or
    None. Other compile errors are left for coco-run to report."""
    try:
        done = subprocess.run([coco_translate, example, "--emit=plan", "--ranks", str(ranks)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stderr.decode(errors="replace")
    if done.returncode == 0 or NOT_DIVIDE not in text:
        return None
    line = next(line for line in text.splitlines() if NOT_DIVIDE in line)
    line = re.sub(r"^[\w-]+: error: ", "", line)
    return re.sub(r"^\S+:\d+:\d+: ", "", line)


def classify(returncode, output, timed_out, timeout):
    """(result, note) of one coco-run: PASS on exit status 0; SKIP when the cuda
    backend says the program needs a step it does not have yet, or the world
    size does not fit; FAIL otherwise, with the last line of its output."""
    if timed_out:
        return "FAIL", f"timed out after {timeout:.0f} s"
    if returncode == 0:
        return "PASS", ""
    match = re.search(r"([^:\n]+?) " + re.escape(UNSUPPORTED), output)
    if match:
        return "SKIP", f"unsupported by the cuda backend yet: {match.group(1).strip()}"
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if NOT_DIVIDE in line:
            return "SKIP", re.sub(r"^.*?error: (\S+:\d+:\d+: )?", "", line)
    last = re.sub(r"^coco-run: error: ", "", lines[-1]) if lines else f"exit status {returncode}, no output"
    return "FAIL", last


# --- running ---------------------------------------------------------------

class Budget:
    """The time left of --budget seconds."""

    def __init__(self, seconds, clock=time.monotonic):
        self.clock = clock
        self.end = clock() + seconds

    def left(self):
        return self.end - self.clock()

    def timeout(self, limit, reserve=0.0):
        return min(limit, self.left() - reserve)


def run_logged(command, log, timeout, cwd=None, env=None):
    """Runs `command` with its stdout and stderr in the file `log`; after
    `timeout` seconds SIGTERM (coco-run then ends mpirun and its ranks),
    SIGKILL 15 s later. Returns (exit status or None, output, timed out)."""
    with open(log, "wb") as out:
        out.write(("$ " + " ".join(command) + "\n").encode())
        out.flush()
        try:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env)
        except OSError as error:
            return None, f"cannot start {command[0]}: {error}", False
        timed_out = False
        try:
            process.wait(timeout=max(timeout, 0.1))
        except subprocess.TimeoutExpired:
            timed_out = True
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    with open(log, "rb") as f:
        text = f.read().decode(errors="replace")
    return process.returncode, text.split("\n", 1)[1] if "\n" in text else "", timed_out


def row(what, gpus, result, seconds=None, note="", **timing):
    entry = {"what": what, "gpus": gpus, "result": result, "seconds": seconds, "note": note}
    entry.update(timing)
    return entry


def log_name(logs, *parts):
    return os.path.join(logs, "-".join(str(p) for p in parts).replace("/", "_") + ".log")


def shown(path):
    """`path` relative to the working directory when it is below it (for the progress lines)."""
    if not os.path.isabs(path):
        return path
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def tail(text, lines=15):
    return "\n".join("    " + line for line in text.rstrip().splitlines()[-lines:])


def check_examples(args, budget, logs, gpus, reserve):
    """Every example on 1 GPU and on `gpus` GPUs through coco-run --backend cuda --check."""
    coco_run = os.path.join(args.bin, "coco-run")
    coco_translate = os.path.join(args.bin, "coco-translate")
    examples = discover(args.examples)
    rows = []
    passes = [1] + ([gpus] if gpus > 1 else [])
    for count in passes:
        for example in examples:
            name = os.path.splitext(os.path.basename(example))[0]
            with open(example) as f:
                text = f.read()
            stages = pipeline_stages(text)
            if on_mesh(text):
                ranks, note = None, "a coco.mesh program: the compiled backends do not run them yet"
            elif count == 1:
                ranks, note = (1, "") if stages == 1 else (None, f"needs {stages} GPUs (one per pipeline stage)")
            else:
                left = budget.timeout(30, reserve)
                ranks, note = choose_ranks(
                    count, stages,
                    lambda r: world_size_problem(coco_translate, example, r, timeout=max(left, 1)))
            if ranks is None:
                print(f"== {name}, {count} GPU(s): SKIP ({note})")
                rows.append(row(name, count, "SKIP", note=note))
                continue
            # Ordered GEMM arithmetic: the interpreter's rounding, as the
            # compiled trials compare (fused multiply-adds are timed below).
            command = [coco_run, example, "--backend", "cuda", "--check", "--ranks", str(ranks),
                       "--seed", str(args.seed), "--gemm-arithmetic", "ordered"]
            print(f"== {name}, {ranks} GPU(s): {' '.join(shown(c) for c in command)}", flush=True)
            if args.dry_run:
                rows.append(row(name, ranks, "PLAN", note=note))
                continue
            timeout = budget.timeout(args.run_timeout, reserve)
            if budget.left() - reserve < 5:
                rows.append(row(name, ranks, "SKIP", note="time budget spent (--budget)"))
                continue
            began = time.monotonic()
            code, output, timed_out = run_logged(command, log_name(logs, name, ranks), timeout)
            seconds = time.monotonic() - began
            result, why = classify(code, output, timed_out, timeout)
            print(f"   {result} ({seconds:.1f} s){': ' + why if why else ''}", flush=True)
            if result == "FAIL":
                print(tail(output))
            rows.append(row(name, ranks, result, seconds, "; ".join(n for n in (why, note) if n)))
    return rows


def has_torch(python):
    try:
        return subprocess.run([python, "-c", "import torch"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def torch_python(args):
    """The Python with PyTorch: --python, else bench/pytorch_peer.sh's venv ($TORCH_VENV, .venv-torch)."""
    candidates = [args.python]
    if args.repo:
        venv = os.environ.get("TORCH_VENV", os.path.join(args.repo, ".venv-torch"))
        candidates.append(os.path.join(venv, "bin", "python"))
    for python in candidates:
        if python and (os.path.isfile(python) or shutil.which(python)) and has_torch(python):
            return python
    return None


def read_rows(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip():
                    rows.append(json.loads(line))
    return rows


def run_check_py(args, python, root, extra, budget, logs, label):
    """check.py ROOT EXTRA... with --results; its rows, and a FAIL row when it
    fails without saying why in a row."""
    results = os.path.join(logs, f"{label}.jsonl")
    if os.path.exists(results):
        os.remove(results)
    timeout = budget.timeout(args.check_timeout)
    command = [python, os.path.join(HERE, "check.py"), root] + extra + ["--results", results]
    print(f"== {' '.join(command)}", flush=True)
    began = time.monotonic()
    code, output, timed_out = run_logged(command, log_name(logs, label), timeout)
    print(output.rstrip())
    rows = read_rows(results)
    if timed_out:
        rows.append(row(f"check.py ({label})", 1, "FAIL", time.monotonic() - began,
                        f"timed out after {timeout:.0f} s"))
    elif code != 0 and not any(r["result"] == "FAIL" for r in rows):
        lines = [line for line in output.splitlines() if line.strip()]
        rows.append(row(f"check.py ({label})", 1, "FAIL", time.monotonic() - began,
                        lines[-1] if lines else f"exit status {code}"))
    return rows


def timing(args, budget, logs):
    """The fused Adam kernel vs a D2D copy vs torch.optim.Adam(fused=True), tools mode."""
    what = f"time: Adam {BENCH_PARAMETERS >> 20}M f32 (kernel, D2D copy, torch fused)"
    if args.dry_run:
        print(f"== {what}: adam-bench.sh, then check.py --bench-only")
        print("== time: GEMMs vs torch.matmul: gemm-bench.sh, then check.py --bench-only")
        return [row(what, 1, "PLAN")]
    python = torch_python(args)
    if python is None:
        return [row(what, 1, "SKIP", note="skipped (no torch)")]
    if budget.left() < 10:
        return [row(what, 1, "SKIP", note="time budget spent (--budget)")]
    root = tempfile.mkdtemp(prefix="coco-gpu-bench-")
    try:
        bundle = os.path.join(root, "bench", f"adam-{BENCH_PARAMETERS}")
        code, output, timed_out = run_logged(
            ["bash", os.path.join(HERE, "adam-bench.sh"), args.bin, bundle, str(BENCH_PARAMETERS)],
            log_name(logs, "adam-bench"), budget.timeout(120))
        if code != 0 or timed_out:
            return [row(what, 1, "FAIL", note="adam-bench.sh: " + (output.strip().splitlines() or ["timed out"])[-1])]
        code, output, timed_out = run_logged(
            ["bash", os.path.join(HERE, "gemm-bench.sh"), args.bin, os.path.join(root, "bench")],
            log_name(logs, "gemm-bench"), budget.timeout(120))
        if code != 0 or timed_out:
            return [row("time: GEMMs vs torch.matmul", 1, "FAIL",
                        note="gemm-bench.sh: " + (output.strip().splitlines() or ["timed out"])[-1])]
        return run_check_py(args, python, root, ["--bench-only"], budget, logs, "timing")
    finally:
        shutil.rmtree(root, ignore_errors=True)


# --- the table -------------------------------------------------------------

def cell(value, form):
    return "-" if value is None else form.format(value)


def format_table(rows, note_width=100):
    """The rows as aligned text lines: the header, then one line a row."""
    lines = [list(COLUMNS)]
    for r in rows:
        note = r.get("note") or ""
        if len(note) > note_width:
            note = note[: note_width - 3] + "..."
        lines.append([r["what"], str(r["gpus"]), r["result"], cell(r.get("seconds"), "{:.1f}"),
                      cell(r.get("ms"), "{:.3f}"), cell(r.get("gbps"), "{:.1f}"),
                      cell(r.get("vs_copy"), "{:.2f}x"), cell(r.get("vs_torch"), "{:.2f}x"), note])
    widths = [max(len(line[i]) for line in lines) for i in range(len(COLUMNS))]
    right = {1, 3, 4, 5, 6, 7}  # numbers
    out = []
    for line in lines:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths))]
        out.append("  ".join(cells).rstrip())
    return out


def verdict(rows):
    """(exit status, summary line): 0 only when nothing FAILed and something PASSed."""
    counts = {k: sum(1 for r in rows if r["result"] == k) for k in ("PASS", "FAIL", "SKIP", "PLAN")}
    unsupported = sum(1 for r in rows if r["result"] == "SKIP" and "unsupported" in (r.get("note") or ""))
    text = f"{counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['SKIP']} SKIP"
    if unsupported:
        text += f" ({unsupported} unsupported by the cuda backend yet)"
    if counts["PLAN"]:
        return 0, f"dry run: {counts['PLAN']} planned, {counts['SKIP']} SKIP"
    if counts["FAIL"]:
        return 1, text
    if not counts["PASS"]:
        return 1, text + ": nothing ran"
    return 0, text


def print_table(rows, title):
    print(f"== {title}")
    for line in format_table(rows):
        print(line)
    status, summary = verdict(rows)
    print(f"== {summary}: exit status {status}")
    return status


# --- the command -----------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="gpu-check.sh",
        description="coco's GPU check: every example through coco-run --backend cuda --check on 1 GPU "
                    "and on all visible GPUs (or, in a folder from gpu-prepare.sh, every bundle's PTX "
                    "on one GPU), the fused Adam kernel timed against a D2D copy and "
                    "torch.optim.Adam(fused=True), one table. docs/gpu-check.md")
    parser.add_argument("--gpus", type=int, help="GPUs to use in the all-GPUs pass (default: the visible ones)")
    parser.add_argument("--budget", type=float, default=480,
                        help="seconds for everything, the build aside (default 480)")
    parser.add_argument("--run-timeout", type=float, default=120, help="seconds for one coco-run (default 120)")
    parser.add_argument("--check-timeout", type=float, default=290,
                        help="seconds for check.py (the timing; in folder mode everything; default 290)")
    parser.add_argument("--seed", type=int, default=5, help="coco-run --seed (default 5, as the test suite)")
    parser.add_argument("--no-timing", action="store_true", help="leave out the fused Adam timing")
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would run (rank choices included; needs no GPU) and exit")
    parser.add_argument("--self-test", action="store_true", help="check this script on a CPU, fake results")
    parser.add_argument("--logs", help="folder for each run's output (default: a new one under $TMPDIR)")
    parser.add_argument("--no-build", action="store_true", help="(gpu-check.sh) do not run cargo build")
    internal = parser.add_argument_group("set by gpu-check.sh")
    internal.add_argument("--mode", choices=("tools", "folder"))
    internal.add_argument("--root", help="the prepared folder (folder mode)")
    internal.add_argument("--repo", help="the checkout (tools mode)")
    internal.add_argument("--bin", help="where coco-run and coco-translate are (default REPO/target/debug)")
    internal.add_argument("--examples", help="the examples' folder (default REPO/examples/coco)")
    internal.add_argument("--python", default=sys.executable, help="the Python for check.py")
    internal.add_argument("--parse-only", action="store_true", help="check the flags and exit")
    args = parser.parse_args(argv)
    for name in ("budget", "run_timeout", "check_timeout"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    if args.gpus is not None and args.gpus < 1:
        parser.error("--gpus must be at least 1")
    if args.repo:
        args.bin = args.bin or os.path.join(args.repo, "target", "debug")
        args.examples = args.examples or os.path.join(args.repo, "examples", "coco")
    if not args.self_test and args.mode is None:
        parser.error("--mode is set by gpu-check.sh: run that")
    if args.mode == "tools" and not args.bin:
        parser.error("tools mode needs --repo or --bin")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.parse_only:
        return 0
    if args.self_test:
        return self_test(args)
    budget = Budget(args.budget)
    logs = args.logs or ("(none: dry run)" if args.dry_run else tempfile.mkdtemp(prefix="coco-gpu-check-"))
    if not args.dry_run:
        os.makedirs(logs, exist_ok=True)
    if args.mode == "folder":
        if args.dry_run:
            print(f"== dry run: check.py {args.root} (every bundle on one GPU, NCCL on one rank, the timing)")
            return 0
        if not has_torch(args.python):
            rows = [row("prepared-folder check (check.py)", 1, "FAIL",
                        note=f"{args.python} has no PyTorch, which check.py needs")]
        else:
            rows = run_check_py(args, args.python, args.root, [], budget, logs, "folder")
        status = print_table(rows, "gpu-check (prepared folder: bundles on 1 GPU; docs/gpu-check.md)")
    else:
        smi = nvidia_smi_lines()
        gpus, source = count_gpus(os.environ, smi)
        if args.gpus is not None:
            gpus, source = args.gpus, "--gpus"
        elif gpus == 0 and args.dry_run:
            gpus, source = 1, "none visible; the dry run plans for 1 (set --gpus)"
        elif gpus == 0:
            print(f"gpu-check: no GPU visible ({source}); set --gpus N if that is wrong", file=sys.stderr)
            return 2
        print(f"== {gpus} GPU(s) ({source}); budget {args.budget:.0f} s; logs in {logs}")
        reserve = 0.0 if args.no_timing else 60.0
        rows = check_examples(args, budget, logs, gpus, reserve)
        if not args.no_timing:
            rows += timing(args, budget, logs)
        status = print_table(sort_rows(rows), f"gpu-check: coco-run --backend cuda --check on 1 and {gpus} GPU(s)")
    print(f"== logs: {logs}")
    return status


def sort_rows(rows):
    """Examples by name, each on 1 GPU then more, then the timing rows in their order."""
    checks = [r for r in rows if not r["what"].startswith("time: ")]
    times = [r for r in rows if r["what"].startswith("time: ")]
    return sorted(checks, key=lambda r: (r["what"], r["gpus"])) + times


# --- self-test (CPU only, fake tools and results) --------------------------

FAKE_COCO_RUN = """#!/usr/bin/env bash
# Fake coco-run for gpu_check.py --self-test: behaves by the example's name.
name=$(basename "$1" .mlir); ranks=1
while [ $# -gt 0 ]; do [ "$1" = --ranks ] && ranks=$2; shift; done
case $name in
  ok_*|megatron_*) echo "check against the reference interpreter:"; echo "  $name.result0: bitwise equal" ;;
  bad_*) echo "  $name.result0: largest relative error 1.0e0 (tolerance 7.6e-6)"; echo "coco-run: error: 1 output beyond tolerance" >&2; exit 1 ;;
  pipe_*) echo "coco-run: error: rank 0: send/recv between pipeline stages $UNSUPPORTED" >&2; exit 1 ;;
  slow_*) if [ "$ranks" = 1 ]; then exec sleep 5; fi ;;
esac
"""

FAKE_COCO_TRANSLATE = """#!/usr/bin/env bash
# Fake coco-translate: megatron_* runs only on world sizes dividing 8.
name=$(basename "$1" .mlir); ranks=$4
if [[ $name == megatron_* ]] && (( 8 % ranks )); then
  echo "coco-translate: error: $1:9:1: argument 1: dimension 1 of size 256 is sliced over $ranks ranks, which does not divide it" >&2
  exit 1
fi
"""

PIPELINE = "coco.process_group @stage0 stage 0 of 2\ncoco.process_group @stage1 stage 1 of 2\n"


def self_test(args):
    checks = []

    def expect(what, got, want):
        checks.append(what)
        if got != want:
            raise AssertionError(f"self-test: {what}: got {got!r}, expected {want!r}")

    began = time.monotonic()
    # Argument parsing.
    expect("defaults", (parse_args(["--mode", "tools", "--repo", "/r"]).budget,
                        parse_args(["--mode", "tools", "--repo", "/r"]).bin), (480, "/r/target/debug"))
    for bad in (["--gpus", "two"], ["--gpus", "0"], ["--budget", "-1"], ["--frobnicate"], []):
        stderr, sys.stderr = sys.stderr, open(os.devnull, "w")
        try:
            parse_args(bad)
            code = 0
        except SystemExit as stop:
            code = stop.code
        finally:
            sys.stderr.close()
            sys.stderr = stderr
        expect(f"rejects {bad}", code, 2)
    # Counting GPUs.
    smi = ["GPU 0: NVIDIA H100 (UUID: GPU-a)", "  MIG 1g.10gb Device 0: (UUID: MIG-b)",
           "GPU 1: NVIDIA H100 (UUID: GPU-c)"]
    expect("nvidia-smi -L", count_gpus({}, smi)[0], 2)
    expect("CUDA_VISIBLE_DEVICES", count_gpus({"CUDA_VISIBLE_DEVICES": "0,1"}, None)[0], 2)
    expect("CUDA_VISIBLE_DEVICES, capped", count_gpus({"CUDA_VISIBLE_DEVICES": "0,1,2,3"}, smi)[0], 2)
    expect("CUDA_VISIBLE_DEVICES=-1", count_gpus({"CUDA_VISIBLE_DEVICES": "-1"}, smi)[0], 0)
    expect("CUDA_VISIBLE_DEVICES empty", count_gpus({"CUDA_VISIBLE_DEVICES": ""}, smi)[0], 0)
    expect("nothing", count_gpus({}, None)[0], 0)
    # Rank selection.
    divides8 = lambda r: None if 8 % r == 0 else f"{r} does not divide 8"
    expect("all GPUs", choose_ranks(4, 1, divides8), (4, ""))
    expect("fall back", choose_ranks(3, 1, divides8), (2, "on 2 of 3 GPUs: 3 does not divide 8"))
    expect("stages", choose_ranks(5, 2, lambda r: None)[0], 4)
    expect("too few GPUs", choose_ranks(1, 2, lambda r: None)[0], None)
    # Classifying coco-run's output.
    expect("pass", classify(0, "ok", False, 60)[0], "PASS")
    expect("fail", classify(1, "x\ncoco-run: error: boom\n", False, 60), ("FAIL", "boom"))
    expect("timeout", classify(None, "", True, 60), ("FAIL", "timed out after 60 s"))
    expect("unsupported", classify(1, f"coco-run: error: all_to_all {UNSUPPORTED}\n", False, 60),
           ("SKIP", "unsupported by the cuda backend yet: all_to_all"))
    # The real examples, where this is a checkout.
    if args.examples and os.path.isdir(args.examples):
        found = [os.path.basename(p) for p in discover(args.examples)]
        expect("examples found", "adam.mlir" in found and not any("/" in f for f in found), True)
        for name in found:
            with open(os.path.join(args.examples, name)) as f:
                text = f.read()
            staged = name.startswith("pipeline") or name == "megatron_3d.mlir"
            expect(f"{name}: stages", pipeline_stages(text), 2 if staged else 1)
            expect(f"{name}: on a mesh", on_mesh(text), name == "megatron_3d.mlir")
        translate = os.path.join(args.bin or "", "coco-translate")
        attention = os.path.join(args.examples, "megatron_attention.mlir")
        if os.access(translate, os.X_OK) and os.path.exists(attention):
            why = world_size_problem(translate, attention, 3) or ""
            expect("coco-translate names the world-size problem", "sliced over 3 ranks" in why, True)
            expect("coco-translate accepts 2 ranks", world_size_problem(translate, attention, 2), None)
    # A whole tools-mode pass on 3 fake GPUs with fake tools.
    work = tempfile.mkdtemp(prefix="coco-gpu-check-self-test-")
    try:
        tools, examples = os.path.join(work, "bin"), os.path.join(work, "examples")
        os.makedirs(tools)
        os.makedirs(examples)
        for name, text in (("coco-run", FAKE_COCO_RUN.replace("$UNSUPPORTED", UNSUPPORTED)),
                           ("coco-translate", FAKE_COCO_TRANSLATE), ("python", "#!/bin/sh\nexit 1\n")):
            with open(os.path.join(tools, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(tools, name), 0o755)
        for name in ("ok_a", "bad_b", "pipe_c", "megatron_d", "slow_e"):
            with open(os.path.join(examples, name + ".mlir"), "w") as f:
                f.write(PIPELINE if name.startswith("pipe") else "// no stages\n")
        fake = parse_args(["--mode", "tools", "--bin", tools, "--examples", examples, "--gpus", "3",
                           "--run-timeout", "1.5", "--python", os.path.join(tools, "python"),
                           "--logs", os.path.join(work, "logs")])
        os.makedirs(fake.logs)
        stdout, sys.stdout = sys.stdout, open(os.devnull, "w")
        try:
            rows = check_examples(fake, Budget(60), fake.logs, 3, 0.0) + timing(fake, Budget(60), fake.logs)
        finally:
            sys.stdout.close()
            sys.stdout = stdout
        got = sorted((r["what"], r["gpus"], r["result"]) for r in rows)
        expect("fake run", got, sorted([
            ("ok_a", 1, "PASS"), ("ok_a", 3, "PASS"), ("bad_b", 1, "FAIL"), ("bad_b", 3, "FAIL"),
            ("pipe_c", 1, "SKIP"), ("pipe_c", 2, "SKIP"), ("megatron_d", 1, "PASS"),
            ("megatron_d", 2, "PASS"), ("slow_e", 1, "FAIL"), ("slow_e", 3, "PASS"),
            ("time: Adam 16M f32 (kernel, D2D copy, torch fused)", 1, "SKIP")]))
        notes = {(r["what"], r["gpus"]): r["note"] for r in rows}
        expect("stage note", notes[("pipe_c", 1)], "needs 2 GPUs (one per pipeline stage)")
        expect("fallback note", notes[("megatron_d", 2)],
               "on 2 of 3 GPUs: argument 1: dimension 1 of size 256 is sliced over 3 ranks, which does not divide it")
        expect("timeout note", notes[("slow_e", 1)], "timed out after 2 s")
        expect("no torch", notes[("time: Adam 16M f32 (kernel, D2D copy, torch fused)", 1)], "skipped (no torch)")
        expect("exit status with a FAIL", verdict(rows)[0], 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # The table, with fake timing rows as check.py writes them.
    fake_rows = sort_rows([r for r in rows if not r["what"].startswith("time: ")] + [
        row("time: Adam 16M f32, coco fused kernel", 1, "PASS", ms=0.5, gbps=939.5, vs_copy=1.25, vs_torch=0.8),
        row("time: Adam 16M f32, D2D copy, same bytes", 1, "PASS", ms=0.4, gbps=1174.4, vs_copy=1.0,
            vs_torch=0.64),
        row("time: Adam 16M f32, torch Adam(fused=True)", 1, "PASS", ms=0.625, gbps=751.6, vs_copy=1.5625,
            vs_torch=1.0)])
    table = format_table(fake_rows)
    expect("table lines", len(table), len(fake_rows) + 1)
    expect("header", table[0].split()[:4], ["what", "GPUs", "result", "seconds"])
    offset = table[0].index("result")
    expect("result column aligned", {line[offset:offset + 4] for line in table[1:]}, {"PASS", "FAIL", "SKIP"})
    expect("timing cells", table[-3].split()[-4:], ["0.500", "939.5", "1.25x", "0.80x"])
    expect("verdict, all pass", verdict([row("a", 1, "PASS"), row("b", 1, "SKIP")])[0], 0)
    expect("verdict, nothing ran", verdict([row("a", 1, "SKIP")])[0], 1)
    expect("verdict, dry run", verdict([row("a", 1, "PLAN")])[0], 0)
    print("== gpu-check self-test: the table from fake results (not measurements)")
    for line in table:
        print(line)
    print(f"== gpu-check self-test: ok ({len(checks)} checks, {time.monotonic() - began:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
