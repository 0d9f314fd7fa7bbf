#!/usr/bin/env bash
# BigTest on the PySpark examples: `coco-bigtest generate JOB.py` per job of
# examples/pyspark/, with JDU paths, feasible and unknown paths, records,
# test cases, measured coverage and the median wall time of several runs.
# Side by side with another build of the tools (BASELINE_BIN, for example
# the bin folder of an earlier commit's build) when it is set: the same
# jobs, the same machine, in the same run, and the time ratio.
# Usage: bench/pyspark.sh [runs]    (default: 3 runs)
# BENCH_BIN: the tools measured (default ./target/debug).
# BASELINE_BIN: the tools compared against (default: none).
# BENCH_LIMIT_S: wall-clock limit of one run (default 600): a run past it
# is reported as "> LIMIT", not waited for.
# PYSPARK_JOBS="word_count sessions" picks the jobs (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
bin=${BENCH_BIN:-./target/debug}
baseline=${BASELINE_BIN:-}
limit=${BENCH_LIMIT_S:-600}
jobs=${PYSPARK_JOBS:-$(ls examples/pyspark/*.py | xargs -n1 basename | sed 's/\.py$//')}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# One tool build on one job: "paths feasible unknown records cases coverage
# median_s", or "- - - - - - >LIMIT" when a run ran past the limit.
measure() {
  local tools=$1 job=$2 times=() line=""
  for _ in $(seq 1 "$runs"); do
    rm -rf "$work/out"
    local start end status=0
    start=$(date +%s.%N)
    out=$(timeout "$limit" "$tools/coco-bigtest" generate "examples/pyspark/$job.py" -o "$work/out" 2>"$work/err") || status=$?
    end=$(date +%s.%N)
    if [ "$status" -eq 124 ]; then
      echo "- - - - - - >$limit"
      return
    fi
    # Exit 2: some paths unknown; the data and the summary are still written.
    if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then
      echo "failed: $(tail -1 "$work/err")"
      return
    fi
    times+=("$(awk -v s="$start" -v e="$end" 'BEGIN {print e - s}')")
    line=$(echo "$out" | awk 'NR == 2 {print $2, $3, $5, $6, $7, $8}')
  done
  local median
  median=$(printf "%s\n" "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]}')
  echo "$line $median"
}

if [ -n "$baseline" ]; then
  printf "%-18s %6s %8s %7s %8s %6s %9s %9s %11s %7s\n" job paths feasible unknown records cases coverage "median s" "baseline s" ratio
else
  printf "%-18s %6s %8s %7s %8s %6s %9s %9s\n" job paths feasible unknown records cases coverage "median s"
fi
for job in $jobs; do
  read -r paths feasible unknown records cases coverage seconds <<<"$(measure "$bin" "$job")"
  if [ -n "$baseline" ]; then
    read -r _ _ _ _ _ _ base <<<"$(measure "$baseline" "$job")"
    ratio=$(awk -v b="${base#>}" -v s="$seconds" 'BEGIN {
      if (s + 0 > 0 && b + 0 > 0) printf "%s%.1fx", (substr("'"$base"'", 1, 1) == ">" ? ">" : ""), b / s; else print "-" }')
    printf "%-18s %6s %8s %7s %8s %6s %9s %9s %11s %7s\n" "$job" "$paths" "$feasible" "$unknown" "$records" "$cases" "$coverage" "$seconds" "$base" "$ratio"
  else
    printf "%-18s %6s %8s %7s %8s %6s %9s %9s\n" "$job" "$paths" "$feasible" "$unknown" "$records" "$cases" "$coverage" "$seconds"
  fi
done
