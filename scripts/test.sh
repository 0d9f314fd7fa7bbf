#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite: formatting,
# clippy, and every test (the lit-style filetests, round trips, docs
# freshness, differential tests of passes and of compiled runs under MPI, and
# the fuzz smoke test live in one binary; the executor has its own MPI tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== architecture invariant: the bundle executor links neither MLIR nor LLVM"
if cargo tree -p coco-runtime -e normal --prefix none | grep -E '^(mlir-sys|llvm-sys|melior|inkwell) '; then
  echo "coco-runtime must not depend on MLIR or LLVM" >&2
  exit 1
fi
echo "== cargo test"
# The compiled-run tests start coco-exec (the bundle executor) under mpirun.
cargo build --workspace --bins --quiet
cargo test --workspace
