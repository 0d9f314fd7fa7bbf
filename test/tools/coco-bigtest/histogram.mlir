// coverage --histogram reports on the path histogram the paths job
// (coco-translate --emit=pyspark-paths) wrote on a cluster, as coverage does
// on local data: records per enumerated path, the empty reduce's path where
// no record failed before it, folds of more than k records beyond k. A
// histogram of another program, made at another k, naming operators the
// program lacks, cut short, or not a regular file is refused with what is
// wrong.
// RUN: coco-bigtest coverage %s --histogram tools/coco-bigtest/inputs/histograms/best.json | FileCheck %s
// RUN: not coco-bigtest coverage %s --histogram tools/coco-bigtest/inputs/histograms/k3.json 2>&1 | FileCheck %s --check-prefix=K
// RUN: not coco-bigtest coverage %s --histogram tools/coco-bigtest/inputs/histograms/other.json 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: not coco-bigtest coverage %s --histogram tools/coco-bigtest/inputs/histograms/op9.json 2>&1 | FileCheck %s --check-prefix=OP
// RUN: not coco-bigtest coverage %s --histogram tools/coco-bigtest/inputs/histograms/notreduce.json 2>&1 | FileCheck %s --check-prefix=NOTREDUCE
// RUN: not coco-bigtest coverage %s --histogram tools/coco-bigtest/inputs/histograms/cut.json 2>&1 | FileCheck %s --check-prefix=CUT
// RUN: not coco-bigtest coverage %s --histogram %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not coco-bigtest coverage %s --histogram /dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not coco-bigtest generate %s -o %t.g --given-histogram tools/coco-bigtest/inputs 2>&1 | FileCheck %s --check-prefix=FOLDER
// RUN: not coco-bigtest coverage %s --spark 2>&1 | FileCheck %s --check-prefix=NODATA
// RUN: not coco-bigtest coverage %s --spark --data tools/coco-bigtest/inputs/given 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not coco-bigtest coverage %s --data tools/coco-bigtest/inputs --histogram tools/coco-bigtest/inputs/histograms/best.json 2>&1 | FileCheck %s --check-prefix=BOTH

// CHECK: @best: 4 JDU paths at k=2 (4 feasible, 0 infeasible, 0 unknown)
// CHECK-NEXT: covered: 2 of 4 paths not shown infeasible (50.0%); 0 records fail in the program; 1 datasets reach a global reduce empty
// CHECK-NEXT: missed path {{[0-9]+}} [sat]: source#0 ; filter#1=pass ; reduce#2=single ; sink#3
// CHECK-NEXT: missed path {{[0-9]+}} [sat]: reduce#2=fold{source#0, filter#1=pass | source#0, filter#1=pass} ; sink#3
// CHECK-NEXT: path {{[0-9]+}}: 1 record{{$}}
// CHECK-NEXT: path {{[0-9]+}}: 9 records
// CHECK-NEXT: 1 path(s) the data follows are beyond k=2 (more records combined, later flat_map elements or more loop trips), 1 record:
// CHECK-NEXT: beyond k: reduce#2=fold{more than 2 records} ; sink#3

// K: error: {{.*}}k3.json: the histogram was made at --k 3, the paths are enumerated at --k 2; run the job with --k 2
// OTHER: error: {{.*}}other.json: the histogram is of @other, not @best
// OP: error: {{.*}}op9.json: the histogram names operator #9; @best has 4
// NOTREDUCE: error: {{.*}}notreduce.json: the histogram names operator #1 as a global reduce; it is not one
// CUT: error: {{.*}}cut.json: not a path histogram of coco's paths job (coco-translate --emit=pyspark-paths): EOF while parsing
// MISSING: error: {{.*}}histogram.mlir.missing: No such file or directory
// DEVICE: error: /dev/zero: {{.*}} is not a regular file
// FOLDER: error: tools/coco-bigtest/inputs: {{.*}} is not a regular file
// NODATA: error: the following required arguments were not provided:
// NODATA: --data <DIR>
// NOFILE: error: @best: {{.*}}histogram.mlir:{{[0-9]+}}:{{[0-9]+}}: source "points": {{.*}}points.txt is not a file
// BOTH: error: the argument '--data <DIR>' cannot be used with '--histogram <FILE>'

func.func @high(%score: i64) -> i1 {
  %bar = arith.constant 100 : i64
  %high = arith.cmpi sgt, %score, %bar : i64
  return %high : i1
}

func.func @max(%a: i64, %b: i64) -> i64 {
  %m = arith.maxsi %a, %b : i64
  return %m : i64
}

func.func @best() {
  %scores = df.source "points" inline ["7", "42"] delimiter "," : !df.dataset<i64>
  %high = df.filter %scores @high : !df.dataset<i64>
  %best = df.reduce %high @max : !df.dataset<i64>
  df.sink "best" %best : !df.dataset<i64>
  return
}
