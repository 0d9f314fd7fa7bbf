#!/usr/bin/env bash
# BigTest test-data generation per example program, by phase: JDU paths,
# records and test cases written, coverage, mutation score, and the median
# wall time of several runs of each phase.
#   enumerate  coco-opt --pass-pipeline=builtin.module(cse,bigtest-jdu-paths{k})
#   solve      the same plus bigtest-solve, less enumerate
#   emit       `coco-bigtest generate` (all three phases in one process, as
#              a user runs them), less enumerate and solve
#   total      `coco-bigtest generate`
# With BASELINE_BIN (another build's binaries, e.g. of the session's
# starting commit: `git worktree add /work/old <commit>` built with
# CARGO_TARGET_DIR=/work/oldtarget), its `generate` runs in the same loop
# and the table adds its median, its mutation score and the time ratio.
# Usage: bench/bigtest.sh [runs] [k...]    (defaults: 3 runs, k = 2)
# Release binaries (built here if missing; BIGTEST_BIN=./target/debug for
# the test build). BIGTEST_TIMEOUT_MS sets Z3's time per query (default:
# the tool's 10000). BIGTEST_PROGRAMS="wordcount payroll" picks the
# programs; by default every example (unit_prices, with 360 paths, last:
# about 25 s a run). Its filetest with exact coverage and mutation figures
# is REQUIRES: slow:
#   COCO_SLOW_TESTS=1 cargo test -p coco-filetests --test filetests -- bigtest/unit_prices-generate
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIGTEST_BIN:-./target/release}
if [ "$bin" = ./target/release ] && { [ ! -x "$bin/coco-bigtest" ] || [ ! -x "$bin/coco-opt" ]; }; then
  cargo build -q --release -p coco-tools --bin coco-bigtest --bin coco-opt
fi
runs=${1:-3}
shift || true
ks=("$@")
[ ${#ks[@]} -eq 0 ] && ks=(2)
timeout_ms=${BIGTEST_TIMEOUT_MS:-10000}
programs=${BIGTEST_PROGRAMS:-"$(ls examples/bigtest/*.mlir | xargs -n1 basename | sed 's/\.mlir$//' | grep -v '^unit_prices$') unit_prices"}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Median of the numbers on stdin.
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Seconds `"$@"` takes (its output dropped).
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN {print e - s}'
}

baseline=${BASELINE_BIN:-}
printf "%-18s %2s %6s %8s %8s %6s %9s %9s %9s %7s %7s %7s" \
  program k paths feasible records cases coverage mutation enumerate solve emit total
[ -n "$baseline" ] && printf " %7s %9s %6s" "base s" "base mut" ratio
printf "\n"
for k in "${ks[@]}"; do
  for p in $programs; do
    prog=examples/bigtest/$p.mlir
    enumerate=() solved=() total=() base=()
    line=""
    for _ in $(seq 1 "$runs"); do
      enumerate+=("$(seconds "$bin/coco-opt" "$prog" --pass-pipeline="builtin.module(cse,bigtest-jdu-paths{k=$k})")")
      solved+=("$(seconds "$bin/coco-opt" "$prog" --pass-pipeline="builtin.module(cse,bigtest-jdu-paths{k=$k},bigtest-solve{timeout-ms=$timeout_ms})")")
      start=$(date +%s.%N)
      if ! out=$("$bin/coco-bigtest" generate "$prog" -o "$work/$p" --k "$k" --timeout-ms "$timeout_ms" 2>&1); then
        line="failed: $(echo "$out" | tail -1)"
        break
      fi
      end=$(date +%s.%N)
      total+=("$(awk -v s="$start" -v e="$end" 'BEGIN {print e - s}')")
      line=$(echo "$out" | awk -v p="$p" '$1 == p')
      if [ -n "$baseline" ]; then
        base+=("$(seconds "$baseline/coco-bigtest" generate "$prog" -o "$work/base-$p" --k "$k" --timeout-ms "$timeout_ms")")
      fi
    done
    if [ ${#total[@]} -eq 0 ]; then
      printf "%-18s %2s %s\n" "$p" "$k" "$line"
      continue
    fi
    mutation=$("$bin/coco-bigtest" mutate "$prog" --data "$work/$p" 2>/dev/null |
      sed -n 's/^mutation score: //p')
    e=$(printf "%s\n" "${enumerate[@]}" | median)
    s=$(printf "%s\n" "${solved[@]}" | median)
    t=$(printf "%s\n" "${total[@]}" | median)
    b="" bm=""
    if [ -n "$baseline" ]; then
      b=$(printf "%s\n" "${base[@]}" | median)
      bm=$("$baseline/coco-bigtest" mutate "$prog" --data "$work/base-$p" 2>/dev/null |
        sed -n 's/^mutation score: //p')
    fi
    echo "$line" | awk -v k="$k" -v m="$mutation" -v e="$e" -v s="$s" -v t="$t" -v b="$b" -v bm="$bm" '{
      solve = s - e; emit = t - s; if (solve < 0) solve = 0; if (emit < 0) emit = 0
      printf "%-18s %2s %6d %8d %8d %6d %9s %9s %9.2f %7.2f %7.2f %7.2f", $1, k, $2, $3, $6, $7, $8, m, e, solve, emit, t
      if (b != "") printf " %7.2f %9s %5.2fx", b, bm, t / b
      printf "\n"
    }'
  done
done
