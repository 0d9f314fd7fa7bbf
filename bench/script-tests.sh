#!/usr/bin/env bash
# The generated tests of the public scripts (examples/pyspark/wild), run
# both ways in one run: each script in a process of its own, as
# spark-submit would (COCO_SPARK_SUBMIT=1, the baseline), and in the test
# process on one shared Spark context (the default). Prints each way's
# wall time, its pytest summary and the ratio (docs/benchmarks.md,
# "Generated script tests: one Spark per test or one per session").
#   bench/script-tests.sh [OUT]     (default /tmp/coco-script-tests)
# BIN picks the binaries (default target/debug, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-target/debug}
out=${1:-/tmp/coco-script-tests}
python=.venv/bin/python
[ -x "$bin/coco-bigtest" ] || cargo build --quiet -p coco-tools --bin coco-bigtest
[ -x "$python" ] || { echo "bench/script-tests.sh: no $python (run scripts/setup.sh)" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out"
modules=()
for job in examples/pyspark/wild/*.py; do
  name=$(basename "$job" .py)
  "$bin/coco-bigtest" generate "$job" -o "$out/$name" --pytest "$out/$name/test_${name//-/_}.py" >/dev/null
  modules+=("$out/$name/test_${name//-/_}.py")
done
run() {
  local start end
  start=$(date +%s.%N)
  "$python" -m pytest -q -p no:cacheprovider "${modules[@]}" 2>&1 | tail -n 1
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f\n", e - s }'
}
echo "== ${#modules[@]} scripts, each test in a process of its own (COCO_SPARK_SUBMIT=1)"
submit=$(COCO_SPARK_SUBMIT=1 run | tee /dev/stderr | tail -n 1)
echo "== the same tests on one shared Spark context"
shared=$(run | tee /dev/stderr | tail -n 1)
awk -v a="$submit" -v b="$shared" \
  'BEGIN { printf "spark-submit each: %.1f s   shared context: %.1f s   ratio: %.2fx\n", a, b, a / b }'
