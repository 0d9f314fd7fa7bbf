#!/usr/bin/env bash
# Runs on the GPU machine (CUDA driver, PyTorch, the nvidia-nccl wheel; no
# Rust, no MLIR, no network), in the folder scripts/gpu-prepare.sh made:
# loads every bundle's PTX, runs every kernel through its plan on one GPU and
# compares the outputs with the reference interpreter's, runs an NCCL
# all_reduce on a single rank, and times the fused Adam kernel against a
# device-to-device copy of the same bytes and torch.optim.Adam(fused=True).
# Finishes within 5 minutes; exit status 0 only when every check passes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python=${PYTHON:-python3}
# NCCL comes as the nvidia-nccl wheel: put its lib/ on the loader path.
nccl_dir=$($python - <<'PY'
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()] + sys.path
for root in roots:
    for path in glob.glob(os.path.join(root, "nvidia", "nccl", "lib", "libnccl.so.2")):
        print(os.path.dirname(path)); sys.exit(0)
PY
) || true
if [ -n "${nccl_dir:-}" ]; then
  export LD_LIBRARY_PATH="$nccl_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export COCO_NCCL="$nccl_dir/libnccl.so.2"
fi
exec timeout 290 "$python" "$here/check.py" "$here"
