// JDU paths of @course_grades (examples/bigtest/course_grades.mlir) at k=2.
// The right_outer join: a grade for an unknown course is left-only and ends
// there (1). A matched record reaches reduce_by_key alone, and @report takes
// either side of its scf.if (2); an ungraded course (right-only) carries the
// sentinel -1, so only the "no grades yet" side is feasible and the enumerator
// never forks on it (1). Two records folded per course title: matched +
// matched (then/else, 2), matched + unmatched (then/else, 2), unmatched +
// unmatched (then only, 1). An unmatched record before a matched one is not a
// path: the join emits unmatched right records after all matched ones.
// 1 + 2 + 1 + 5 = 9 paths, all satisfiable.
// The generated data must make the program follow every satisfiable path
// when it runs (COVERAGE), and is scored against the program's mutants.
// RUN: coco-opt ../examples/bigtest/course_grades.mlir --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt ../examples/bigtest/course_grades.mlir --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT
// RUN: coco-bigtest generate ../examples/bigtest/course_grades.mlir -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage ../examples/bigtest/course_grades.mlir --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate ../examples/bigtest/course_grades.mlir --data %t | FileCheck %s --check-prefix=MUTATION

// CHECK: branches ["source#0", "join#2=left-only"]
// CHECK: branches ["source#1", "join#2=right-only", "reduce_by_key#4=single", "map#5@report:if#2=then", "sink#6"]
// CHECK: branches ["reduce_by_key#4=fold{join#2=both{source#0 | source#1} | source#1, join#2=right-only}", "map#5@report:if#2=else", "sink#6"]
// CHECK: branches ["reduce_by_key#4=fold{source#1, join#2=right-only | source#1, join#2=right-only}", "map#5@report:if#2=then", "sink#6"]

// COUNT-COUNT-9: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path

// COVERAGE: covered: 9 of 9 paths not shown infeasible (100.0%)

// MUTATION: @course_grades: 10 mutants
// MUTATION: mutation score: 100.0%
