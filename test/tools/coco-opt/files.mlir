// RUN: not coco-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: coco-opt %s -o %t
// RUN: coco-opt %t | FileCheck %s
// RUN: not coco-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: coco-opt --list-passes | FileCheck %s --check-prefix=LIST

// MISSING: coco-opt: error: could not open input file 'tools/coco-opt/files.mlir.missing': no such file or directory
// FLAG: error: unexpected argument '--no-such-flag' found
// Every coco pass, in registry order, with its options and their defaults
// (from the same declarations as docs/passes.md); upstream's list is
// MLIR's own and only introduced here.
// LIST: coco passes:
// LIST-NEXT: --coco-verify {{ *}}Check the semantic rules of coco, df and bigtest IR
// LIST-NEXT: --coco-split {{ *}}Split every coco.all_reduce
// LIST-NEXT: dim= {{.*}} (default: 0)
// LIST-NEXT: via= {{.*}} (default: reduce-scatter)
// LIST-NEXT: strict= {{.*}} (default: false)
// LIST-NEXT: --coco-reorder
// LIST-NEXT: --coco-as-slice
// LIST-NEXT: keep=
// LIST-NEXT: --coco-partial-reduce {{ *}}Compute norms and reductions of replicated tensors from per-slice partial results
// LIST-NEXT: --coco-fuse
// LIST-NEXT: collectives= {{.*}} (default: true)
// LIST-NEXT: kernels= {{.*}} (default: true)
// LIST-NEXT: --coco-overlap
// LIST-NEXT: chunks= {{.*}} (default: 4)
// LIST-NEXT: --coco-tile
// LIST-NEXT: target= {{.*}} (default: gpu)
// LIST-NEXT: matmul-rows=
// LIST-NEXT: matmul-cols=
// LIST-NEXT: matmul-depth=
// LIST-NEXT: block=
// LIST-NEXT: --coco-optimize
// LIST-NEXT: machine= {{.*}} (default: v100-cluster)
// LIST-NEXT: ranks= {{.*}} (default: 0)
// LIST-NEXT: --bigtest-jdu-paths
// LIST-NEXT: k= {{.*}} (default: 2)
// LIST-NEXT: fuel= {{.*}} (default: 100000)
// LIST-NEXT: max-index= {{.*}} (default: 1000)
// LIST-NEXT: max-paths= {{.*}} (default: 20000)
// LIST-NEXT: --bigtest-solve
// LIST-NEXT: timeout-ms= {{.*}} (default: 10000)
// LIST-NEXT: --bigtest-emit
// LIST-NEXT: timeout-ms= {{.*}} (default: 10000)
// LIST-NEXT: --test-coco-layouts
// LIST-EMPTY:
// LIST-NEXT: upstream passes and pipelines:

// CHECK: func.func @written_to_a_file
func.func @written_to_a_file() {
  return
}
