#!/usr/bin/env bash
# BigTest's reference interpreter at scale: `coco-bigtest run` and
# `coco-bigtest coverage` of examples/bigtest/wordcount.mlir on generated
# inputs, wall time, user time and peak memory per command.
#   distinct:  N lines "w<i> w<i%100> x<i%7>" (N distinct words: keyed ops
#              with many keys; a scan per key was quadratic)
#   repeated:  N lines "the quick brown fox <i%10>" (few keys, big groups;
#              coverage listed each group's records with a scan per record)
#   one line:  a single line of M words (flat_map of a long line; each
#              element once copied the whole line)
# Usage: bench/bigtest-scale.sh [N...]   (default: 10000 100000)
# LINE_WORDS=1000000 sets M; BIN=target/release uses a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-./target/debug}
bin=$(cd "$bin" && pwd)
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(10000 100000)
words=${LINE_WORDS:-1000000}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data"
cp examples/bigtest/wordcount.mlir "$work/"
cd "$work"
measure() { # label command...
  local label=$1
  shift
  /usr/bin/time -f "%e %U %M" -o "$work/time" "$@" >/dev/null
  read -r wall user kb <"$work/time"
  printf "%-10s %-9s %10s %8.2f %8.2f %9d\n" "$label" "$cmd" "$size" "$wall" "$user" "$((kb / 1024))"
}
printf "%-10s %-9s %10s %8s %8s %9s\n" input command lines wall_s user_s peak_MiB
for size in "${sizes[@]}"; do
  awk -v n="$size" 'BEGIN { for (i = 0; i < n; i++) printf "w%d w%d x%d\n", i, i % 100, i % 7 }' >data/lines.txt
  for cmd in run coverage; do measure distinct "$bin/coco-bigtest" "$cmd" wordcount.mlir; done
  awk -v n="$size" 'BEGIN { for (i = 0; i < n; i++) printf "the quick brown fox %d\n", i % 10 }' >data/lines.txt
  for cmd in run coverage; do measure repeated "$bin/coco-bigtest" "$cmd" wordcount.mlir; done
done
awk -v n="$words" 'BEGIN { for (i = 0; i < n; i++) printf "w%d ", i % 50000; printf "\n" }' >data/lines.txt
size="1 ($(wc -c <data/lines.txt | awk '{printf "%.1f MB", $1 / 1e6}'))"
for cmd in run coverage; do measure "one line" "$bin/coco-bigtest" "$cmd" wordcount.mlir; done
