#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite: formatting,
# clippy, and every test (the lit-style filetests, round trips, docs
# freshness, differential tests of passes and of compiled runs under MPI, the
# layering check and the fuzz smoke test live in one binary; the executor has
# its own MPI tests). Slow cases (`// REQUIRES: slow`) run with
# COCO_SLOW_TESTS=1, or from bench/.
#
# At the end (pass or fail) it prints the suite's wall time and the ten
# slowest filetest trials, from the per-trial times the filetests print with
# COCO_TEST_TIMES=1 (kept in target/filetest-times.txt; the budget is in
# docs/architecture.md, "Test suite budget").
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target
TIMES=target/filetest-times.txt
: >"$TIMES"
summary() {
  local status=$?
  echo "== time"
  echo "total wall time: ${SECONDS} s (exit $status)"
  if grep -q '^time:' "$TIMES" 2>/dev/null; then
    echo "slowest filetest trials (all: $TIMES):"
    grep '^time:' "$TIMES" | sort -k2,2 -g -r | head -n 10 || true
  fi
}
trap summary EXIT
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== cargo test"
# The compiled-run tests start coco-exec (the bundle executor) under mpirun.
# Every target at once: with resolver 2 a build of the binaries alone leaves
# out the dev-dependencies' features, so `cargo test` would then build the
# whole MLIR stack a second time with other features (minutes on 2 cores).
cargo build --workspace --all-targets --quiet
# stderr goes to the terminal and, through tee, to $TIMES (each filetest
# trial prints `time: N.NNs NAME` there).
{ COCO_TEST_TIMES=1 cargo test --workspace 2>&1 1>&3 | tee "$TIMES" >&2; } 3>&1
echo "== fault and bad-input harness (slice; the long run: bench/fault.sh)"
target/debug/coco-fault --count 300 --seed "${COCO_FAULT_SEED:-1}"
timeout 30 bash scripts/gpu-check.sh --self-test   # the GPU check on fake tools and results, ~2 s (docs/gpu-check.md)
