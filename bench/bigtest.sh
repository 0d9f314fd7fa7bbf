#!/usr/bin/env bash
# BigTest test-data generation per example program: JDU paths, records
# emitted against the records of one dataset per path (what a generator
# without record reuse would emit, counted in the same run), measured
# coverage and the median wall time of several `coco-bigtest generate` runs.
# Usage: bench/bigtest.sh [runs] [k...]    (defaults: 3 runs, k = 2 3)
# BIGTEST_TIMEOUT_MS sets Z3's time per query (default 30000, as the
# filetests use, so a loaded machine does not turn paths unknown; every
# program but unit_prices reaches full coverage at the tool's 10000). BIGTEST_PROGRAMS="wordcount payroll" picks the programs; by default every
# example but unit_prices, whose 238 test cases take minutes per run (run it
# with BIGTEST_PROGRAMS=unit_prices). Its filetest with exact coverage and
# mutation figures is REQUIRES: slow:
#   COCO_SLOW_TESTS=1 cargo test -p coco-filetests --test filetests -- bigtest/unit_prices-generate
set -euo pipefail
cd "$(dirname "$0")/.."
bin=./target/debug
runs=${1:-3}
shift || true
ks=("$@")
[ ${#ks[@]} -eq 0 ] && ks=(2 3)
programs=${BIGTEST_PROGRAMS:-$(ls examples/bigtest/*.mlir | xargs -n1 basename | sed 's/\.mlir$//' | grep -v '^unit_prices$')}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf "%-18s %2s %6s %8s %8s %6s %9s %9s %9s\n" program k paths feasible records naive "vs naive" coverage "median s"
for k in "${ks[@]}"; do
  for p in $programs; do
    prog=examples/bigtest/$p.mlir
    # Records of one dataset per feasible path: the `records` entries of
    # each satisfiable bigtest.jdu_path.
    naive=$($bin/coco-opt "$prog" --pass-pipeline="builtin.module(bigtest-jdu-paths{k=$k},bigtest-solve)" 2>/dev/null |
      grep 'status sat' | grep -o 'source = ' | wc -l || true)
    times=()
    line=""
    for _ in $(seq 1 "$runs"); do
      start=$(date +%s.%N)
      if ! out=$($bin/coco-bigtest generate "$prog" -o "$work/$p" --k "$k" --timeout-ms "${BIGTEST_TIMEOUT_MS:-30000}" 2>&1); then
        line="failed: $(echo "$out" | tail -1)"
        break
      fi
      end=$(date +%s.%N)
      times+=("$(awk -v s="$start" -v e="$end" 'BEGIN {print e - s}')")
      line=$(echo "$out" | awk -v p="$p" '$1 == p')
    done
    if [ ${#times[@]} -eq 0 ]; then
      printf "%-18s %2s %s\n" "$p" "$k" "$line"
      continue
    fi
    median=$(printf "%s\n" "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    echo "$line" | awk -v k="$k" -v n="$naive" -v m="$median" '{
      printf "%-18s %2s %6d %8d %8d %6d %8.2fx %9s %9.2f\n", $1, k, $2, $3, $6, n, ($6 ? n / $6 : 0), $8, m
    }'
  done
done
