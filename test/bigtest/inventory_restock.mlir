// JDU paths of @inventory_restock (examples/bigtest/inventory_restock.mlir) at k=2.
// The scf.for in @project has constant bounds (3 days), so it unrolls fully
// whatever k is: every path runs it three times. A purchase order for an
// unknown SKU is right-only and ends at the left_outer join (1). A stock line
// with (both) or without (left-only) an order (2) is projected, then dropped
// by the safety filter (2) or kept and ordered with or without the rush
// doubling of @order's scf.if (4).
// 1 + 2 + 4 = 7 paths, all satisfiable.
// The generated data must make the program follow every satisfiable path
// when it runs (COVERAGE), and is scored against the program's mutants.
// RUN: coco-opt ../examples/bigtest/inventory_restock.mlir --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt ../examples/bigtest/inventory_restock.mlir --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT
// RUN: coco-bigtest generate ../examples/bigtest/inventory_restock.mlir -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage ../examples/bigtest/inventory_restock.mlir --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate ../examples/bigtest/inventory_restock.mlir --data %t | FileCheck %s --check-prefix=MUTATION

// CHECK: branches ["source#1", "join#2=right-only"]
// CHECK: branches ["join#2=both{source#0 | source#1}", "map#3@project:for#6=iter", "map#3@project:for#6=iter", "map#3@project:for#6=iter", "map#3@project:for#6=exit", "filter#4=drop"]
// CHECK: branches ["source#0", "join#2=left-only", "map#3@project:for#6=iter", "map#3@project:for#6=iter", "map#3@project:for#6=iter", "map#3@project:for#6=exit", "filter#4=pass", "map#5@order:if#4=else", "sink#6"]

// COUNT-COUNT-7: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path

// COVERAGE: covered: 7 of 7 paths not shown infeasible (100.0%)

// MUTATION: @inventory_restock: 15 mutants
// MUTATION: mutation score: 100.0%
