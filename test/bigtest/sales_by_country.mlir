// JDU paths of @sales_by_country (examples/bigtest/sales_by_country.mlir) at k=2.
// @parse_order fails four ways: df.get #1 or #2 past the end of the split,
// to_int #3 or #4 on text that is not an integer (4 paths). The filter drops a
// non-positive amount (1). A kept order whose customer is unknown is a
// left-only record of the inner join and ends there (1); a customer without
// orders is right-only and ends there too (1). Matched records reach
// reduce_by_key alone (1) or two with the same country folded (1).
// 4 + 1 + 2 + 2 = 9 paths, all satisfiable.
// The generated data must make the program follow every satisfiable path
// when it runs (COVERAGE), and is scored against the program's mutants.
// RUN: coco-opt ../examples/bigtest/sales_by_country.mlir --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt ../examples/bigtest/sales_by_country.mlir --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT
// RUN: coco-bigtest generate ../examples/bigtest/sales_by_country.mlir -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage ../examples/bigtest/sales_by_country.mlir --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate ../examples/bigtest/sales_by_country.mlir --data %t | FileCheck %s --check-prefix=MUTATION

// CHECK: bigtest.jdu_path 0 of @sales_by_country status unsolved branches ["source#0", "map#2@parse_order:to_int#4=fail"]
// CHECK: branches ["source#0", "filter#3=pass", "join#4=left-only"]
// CHECK: branches ["source#1", "join#4=right-only"]
// CHECK: branches ["reduce_by_key#6=fold{join#4=both{source#0, filter#3=pass | source#1} | join#4=both{source#0, filter#3=pass | source#1}}", "sink#7"]

// COUNT-COUNT-9: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path

// COVERAGE: covered: 9 of 9 paths not shown infeasible (100.0%)

// MUTATION: @sales_by_country: 16 mutants
// MUTATION: mutation score: 100.0%
