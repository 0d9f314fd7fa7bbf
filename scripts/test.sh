#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite: formatting,
# clippy, and every test (the lit-style filetests, round trips, docs
# freshness, differential tests of passes and of compiled runs under MPI, the
# layering check and the fuzz smoke test live in one binary; the executor has
# its own MPI tests). Slow cases (`// REQUIRES: slow`) run with
# COCO_SLOW_TESTS=1, or from bench/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test"
# The compiled-run tests start coco-exec (the bundle executor) under mpirun.
cargo build --workspace --bins --quiet
cargo test --workspace
echo "== fault and bad-input harness (slice; the long run: bench/fault.sh)"
target/debug/coco-fault --count 300 --seed "${COCO_FAULT_SEED:-1}"
timeout 30 bash scripts/gpu-check.sh --self-test   # the GPU check on fake tools and results, ~2 s (docs/gpu-check.md)
