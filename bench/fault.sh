#!/usr/bin/env bash
# The long run of the fault-and-bad-input harness (docs/reliability.md):
# bench/fault.sh [COUNT] [SEED]. CI runs a 300-input slice of the same
# categories from scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-10000}
seed=${2:-1}
cargo build --quiet --workspace --bins
target/debug/coco-fault --count "$count" --seed "$seed" --jobs 2 --table target/fault-table.md
