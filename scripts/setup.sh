#!/usr/bin/env bash
# Installs every system package coco needs, idempotently: packages already
# present are left alone, and nothing runs apt when all are installed.
set -euo pipefail

PACKAGES=(
  # LLVM/MLIR 19 (Debian 12 ships 19.1.7; /usr/bin/llvm-config is LLVM 14, so
  # everything points at /usr/lib/llvm-19 through .cargo/config.toml).
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  # llvm-config --libs names Polly, so static links need its archive
  libpolly-19-dev
  # link dependencies of the LLVM/MLIR static libraries
  libzstd-dev libxml2-dev zlib1g-dev libncurses-dev libffi-dev
  # bindgen (mlir-sys, mpi-sys)
  clang-19 libclang-19-dev
  # BigTest solver
  libz3-dev
  # CPU runtime
  libopenmpi-dev openmpi-bin
  # the CPU's library GEMM route (--gemm library)
  libopenblas-dev
  # C++ compiler for the ODS-generated dialect code
  g++ pkg-config
  # Apache Spark for the df Spark check and exported jobs (pyspark runs on a
  # JRE; pyspark itself goes into the project's virtual environment below)
  openjdk-17-jre-headless python3 python3-venv
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} system packages present"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: cargo not found; install Rust (https://rustup.rs) first" >&2
    exit 1
  fi
fi

# PySpark (from PyPI) in a project-local virtual environment: the Spark check
# runs every BigTest example's generated cases on it, and jobs exported with
# `coco-translate --emit=pyspark` run on it. Nothing is installed when the
# pinned version is already there.
PYSPARK_VERSION=3.5.3
VENV="$(cd "$(dirname "$0")/.." && pwd)/.venv"
if "$VENV/bin/python" -c "import sys, pyspark; sys.exit(pyspark.__version__ != '$PYSPARK_VERSION')" 2>/dev/null; then
  echo "setup: pyspark $PYSPARK_VERSION present in .venv"
else
  echo "setup: installing pyspark $PYSPARK_VERSION into .venv"
  /usr/bin/python3 -m venv "$VENV"
  # pyspark is a source distribution: with `wheel` present pip builds it
  # once into its cache and later fresh set-ups (a clean CI checkout)
  # install that wheel instead of running setup.py install each time.
  "$VENV/bin/pip" install --quiet --disable-pip-version-check wheel
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "pyspark==$PYSPARK_VERSION"
fi

# pytest, which runs the test modules `coco-bigtest generate job.py --pytest`
# writes for PySpark jobs (the test suite runs every example's module).
# A wheel at a pinned version in .venv, installed only when another version
# (or none) is there.
pinned_wheel() {
  if "$VENV/bin/python" -c "import sys, importlib.metadata as m; sys.exit(m.version('$1') != '$2')" 2>/dev/null; then
    echo "setup: $1 $2 present in .venv"
  else
    echo "setup: installing $1 $2 into .venv"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "$1==$2"
  fi
}
pinned_wheel pytest 8.3.4

# numpy, which the examples' oracles (examples/coco/oracles/*.py) recompute
# programs with, on one device, to check what coco computed on many ranks.
pinned_wheel numpy 2.1.3

# NVIDIA's PTX assembler and libdevice (the nvidia-cuda-nvcc-cu12 wheel: no
# GPU or driver needed). The test suite assembles every PTX coco emits with
# this ptxas, and coco-translate links this libdevice into GPU modules
# (`--cuda-path`, which the tests and scripts point at
# .venv/.../nvidia/cuda_nvcc).
pinned_wheel nvidia-cuda-nvcc-cu12 12.9.86
