#!/usr/bin/env bash
# Every benchmark, ratios side by side; figures go to docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet -p coco-tools -p coco-runtime --bins
echo "== optimizer step, CPU, 2 MPI ranks: AR_C vs fuse(RS_C_AG) + as-slice"
bash bench/optimizers.sh "$@"
echo "== blocked-order reductions: accuracy and kernel time against index order"
.venv/bin/python bench/reductions.py
echo "== fused optimizer kernel vs STREAM triad, CPU, 1 rank"
bash bench/triad.sh
echo "== compile time"
bash bench/compile.sh
echo "== front end on big inputs"
bash bench/parse.sh
echo "== BigTest test-data generation, k=2"
bash bench/bigtest.sh 3 2
