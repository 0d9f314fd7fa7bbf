#!/usr/bin/env bash
# coco's GPU check, one command (docs/gpu-check.md). Runs on a GPU machine
# with a CUDA driver; the mode follows from where this script is:
#   checkout (scripts/gpu-check.sh; the tools built, or cargo to build them,
#     and MPI): every examples/coco/*.mlir through `coco-run --backend cuda
#     --check` on 1 GPU and on all visible GPUs;
#   prepared folder (bundles/ beside it, made by scripts/gpu-prepare.sh; no
#     Rust, no MLIR, no network): every bundle's PTX run from Python on one
#     GPU and compared with the reference interpreter's outputs, and an NCCL
#     all_reduce on one rank.
# Both then time the fused Adam kernel against a device-to-device copy of the
# same bytes and torch.optim.Adam(fused=True) (PyTorch; without it that row
# is a SKIP), and print one table. Exit status 0 only when nothing FAILed.
# At most --budget seconds (480), the cargo build aside.
# Usage: bash scripts/gpu-check.sh [--gpus N] [--budget S] [--no-timing]
#        [--no-build] [--dry-run] [--self-test] [--help]     (PYTHON=... picks
#        the Python; TORCH_VENV or .venv-torch is tried for PyTorch)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python=${PYTHON:-python3}
driver="$here/gpu/gpu_check.py"
build=1 tools=1
for arg in "$@"; do
  case $arg in
    --no-build | --dry-run) build=0 ;;
    --self-test | -h | --help) build=0 tools=0 ;;
  esac
done

# NCCL comes as the nvidia-nccl wheel (torch from PyPI brings it too): put
# its lib/ on the loader path, for check.py and for coco-run's ranks.
find_nccl() {
  "$1" - <<'PY'
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()] + sys.path
for root in roots:
    for path in glob.glob(os.path.join(root, "nvidia", "nccl", "lib", "libnccl.so.2")):
        print(os.path.dirname(path)); sys.exit(0)
sys.exit(1)
PY
}
repo="$(cd "$here/.." && pwd)"
torch_python="${TORCH_VENV:-$repo/.venv-torch}/bin/python"
nccl_dir=$(find_nccl "$python" 2>/dev/null) ||
  { [ -x "$torch_python" ] && nccl_dir=$(find_nccl "$torch_python" 2>/dev/null); } || true
if [ -n "${nccl_dir:-}" ]; then
  export LD_LIBRARY_PATH="$nccl_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export COCO_NCCL="$nccl_dir/libnccl.so.2"
fi

if [ -d "$here/bundles" ]; then
  exec "$python" "$driver" --mode folder --root "$here" --python "$python" "$@"
fi
if [ ! -f "$repo/Cargo.toml" ] || [ ! -d "$repo/examples/coco" ]; then
  echo "gpu-check: $here is neither a checkout's scripts/ nor a folder from scripts/gpu-prepare.sh" >&2
  exit 2
fi
cargo=$(command -v cargo || true)
if [ -z "$cargo" ] && [ -x "$HOME/.cargo/bin/cargo" ]; then
  cargo="$HOME/.cargo/bin/cargo"
fi
if [ "$build" = 1 ] && [ -n "$cargo" ]; then
  # Bad flags stop here, before a build.
  "$python" "$driver" --mode tools --repo "$repo" --parse-only "$@"
  echo "== cargo build -p coco-tools -p coco-runtime --bins (outside the time budget)"
  (cd "$repo" && "$cargo" build --quiet -p coco-tools -p coco-runtime --bins) || {
    echo "gpu-check: cargo build failed; --no-build runs target/debug as it is" >&2
    exit 2
  }
fi
# NVIDIA's libdevice for the kernels' math (the nvidia-cuda-nvcc-cu12 wheel
# scripts/setup.sh installs), unless a CUDA path is set already.
if [ -z "${CUDA_ROOT:-}${CUDA_HOME:-}${CUDA_PATH:-}" ]; then
  for wheel in "$repo"/.venv/lib/python3*/site-packages/nvidia/cuda_nvcc; do
    [ -f "$wheel/nvvm/libdevice/libdevice.10.bc" ] && export CUDA_PATH="$wheel"
  done
fi
if [ "$tools" = 1 ] && [ ! -x "$repo/target/debug/coco-run" ]; then
  echo "gpu-check: no $repo/target/debug/coco-run and no cargo to build it; on a machine without" >&2
  echo "  Rust run scripts/gpu-prepare.sh elsewhere and bash <folder>/gpu-check.sh here" >&2
  exit 2
fi
exec "$python" "$driver" --mode tools --repo "$repo" --python "$python" "$@"
