// JDU paths of @weblog_bytes (examples/bigtest/weblog_bytes.mlir) at k=2.
// @parse_request fails at df.get #1, #2, #3 or #4 past the end of the split
// (#1, piece 0, is missing only on the JVM, the program's host, for a line of
// spaces alone: String.split drops trailing empty pieces) or at to_int #5
// or #6 (6). The health-check filter drops (1). A kept request takes either
// side of @charged_bytes' cf.cond_br (error or not) and reaches
// reduce_by_key alone (2) or folded with another request of the same host,
// in each order of the two sides (4). 6 + 1 + 2 + 4 = 13 paths, all
// satisfiable.
// The generated data must make the program follow every satisfiable path
// when it runs (COVERAGE), and is scored against the program's mutants.
// RUN: coco-opt ../examples/bigtest/weblog_bytes.mlir --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt ../examples/bigtest/weblog_bytes.mlir --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT
// RUN: coco-bigtest generate ../examples/bigtest/weblog_bytes.mlir -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage ../examples/bigtest/weblog_bytes.mlir --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate ../examples/bigtest/weblog_bytes.mlir --data %t | FileCheck %s --check-prefix=MUTATION

// CHECK: branches ["source#0", "map#1@parse_request:to_int#6=fail"]
// CHECK: branches ["source#0", "filter#2=drop"]
// CHECK: branches ["reduce_by_key#4=fold{source#0, filter#2=pass, map#3@charged_bytes:cond_br#2=false | source#0, filter#2=pass, map#3@charged_bytes:cond_br#2=true}", "sink#5"]

// COUNT-COUNT-13: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path

// COVERAGE: covered: 13 of 13 paths not shown infeasible (100.0%)

// MUTATION: @weblog_bytes: 18 mutants
// MUTATION: mutation score: 100.0%
