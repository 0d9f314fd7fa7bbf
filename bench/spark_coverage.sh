#!/usr/bin/env bash
# Coverage of production-sized data on Spark against the interpreter, at a
# million records per source: the filetest trial spark::coverage
# (test/src/spark_coverage.rs) with COCO_SPARK_COVERAGE_RECORDS. Per
# program it prints the coverage, the busiest path and both tools' wall
# time (coco-bigtest coverage in the test build, including the path
# analysis; --spark in Spark local mode, default driver memory, with the
# JVM's start); the trial fails if the two reports disagree.
# Usage: bench/spark_coverage.sh [records per source] [programs]
#   (defaults: 1000000, "stock_moves,hashtag_trends"; the others of the
#   trial: sessions, sensor_peak, payroll)
set -euo pipefail
cd "$(dirname "$0")/.."
export COCO_SPARK_COVERAGE_RECORDS=${1:-1000000}
export COCO_SPARK_COVERAGE_ONLY=${2:-stock_moves,hashtag_trends}
cargo test -q -p coco-filetests --test filetests -- spark::coverage --nocapture 2>&1 \
  | grep -E "records per source|FAILED|differs|error|test result"
