#!/usr/bin/env bash
# Same job, same data, loaded or quiet: `coco-bigtest generate` of every
# BigTest example, every PySpark example and every PySpark test job, with
# its pytest module, into one folder per job plus its exit status.
#   bench/determinism.sh run OUT         generate everything into OUT
#   bench/determinism.sh compare A B     byte-compare two such folders
# Run it once on a quiet machine and once while another heavy job shares
# it (docs/benchmarks.md, "Determinism under load"), into the same OUT path
# (the pytest modules name their data folder), moving the first away:
#   bench/determinism.sh run /tmp/det && mv /tmp/det /tmp/det-quiet
#   (start the load) ; bench/determinism.sh run /tmp/det
#   bench/determinism.sh compare /tmp/det-quiet /tmp/det
# BIN picks the binaries (default target/debug, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-target/debug}
case "${1:-}" in
run)
  out=${2:?usage: bench/determinism.sh run OUT}
  [ -x "$bin/coco-bigtest" ] || cargo build --quiet -p coco-tools --bin coco-bigtest
  mkdir -p "$out"
  jobs=(examples/bigtest/*.mlir examples/pyspark/*.py test/pyspark/jobs/*.py)
  for job in "${jobs[@]}"; do
    name=$(basename "$(dirname "$job")")-$(basename "$job")
    name=${name%.*}
    args=(generate "$job" -o "$out/$name")
    case "$job" in *.py) args+=(--pytest "$out/$name.test.py") ;; esac
    start=$(date +%s.%N)
    rc=0
    "$bin/coco-bigtest" "${args[@]}" >"$out/$name.stdout" 2>"$out/$name.stderr" || rc=$?
    # The summary's last column is the wall time: the one thing load may change.
    sed -i -E 's/ +([0-9]+\.[0-9]+s|\(time\))$/ (time)/' "$out/$name.stdout"
    echo "$rc" >"$out/$name.rc"
    printf '%-40s exit %s  %6.1f s  load %s\n' "$name" "$rc" \
      "$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { print e - s }')" "$(cut -d' ' -f1 /proc/loadavg)"
  done
  ;;
compare)
  a=${2:?usage: bench/determinism.sh compare A B}
  b=${3:?usage: bench/determinism.sh compare A B}
  jobs=$(ls "$a" | grep -c '\.rc$')
  if diff -r "$a" "$b" >/dev/null; then
    echo "all $jobs jobs: the same data, modules, messages and exit status"
  else
    diff -rq "$a" "$b" || true
    exit 1
  fi
  ;;
*)
  echo "usage: bench/determinism.sh run OUT | compare A B" >&2
  exit 2
  ;;
esac
