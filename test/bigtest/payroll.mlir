// JDU paths of @payroll (examples/bigtest/payroll.mlir) at k=2.
// Per site (union lhs or rhs): @parse_timesheet fails at df.get #1, #2, #3 or
// to_int #4, #5 (5 x 2 = 10). @hourly_pay calls @gross_pay, whose cf.cond_br
// diamond pays overtime or not, then divides by the hours: the division fails
// (2 x 2 = 4; with overtime the hours exceed 40, so those 2 are
// unsatisfiable) or the record reaches reduce_by_key alone (4). Two records
// folded per department: both from one site (2 sites x 2 x 2 = 8) or Berlin
// before Paris (4); Paris before Berlin is not a path, as the union emits its
// left-hand side first. 10 + 4 + 4 + 12 = 30 paths: 28 satisfiable.
// The generated data must make the program follow every satisfiable path
// when it runs (COVERAGE), and is scored against the program's mutants.
// RUN: coco-opt ../examples/bigtest/payroll.mlir --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt ../examples/bigtest/payroll.mlir --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT
// RUN: coco-bigtest generate ../examples/bigtest/payroll.mlir -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage ../examples/bigtest/payroll.mlir --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate ../examples/bigtest/payroll.mlir --data %t | FileCheck %s --check-prefix=MUTATION

// CHECK: branches ["source#1", "union#2=rhs", "map#3@parse_timesheet:get#1=fail"]
// CHECK: branches ["source#0", "union#2=lhs", "map#4@gross_pay:cond_br#2=true", "map#4@hourly_pay:divsi#1=fail"]
// CHECK: branches ["reduce_by_key#5=fold{source#0, union#2=lhs, map#4@gross_pay:cond_br#2=true | source#1, union#2=rhs, map#4@gross_pay:cond_br#2=false}", "sink#6"]
// CHECK: branches ["reduce_by_key#5=fold{source#1, union#2=rhs, map#4@gross_pay:cond_br#2=false | source#1, union#2=rhs, map#4@gross_pay:cond_br#2=false}", "sink#6"]

// COUNT-COUNT-30: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path

// COVERAGE: covered: 28 of 28 paths not shown infeasible (100.0%)

// MUTATION: @payroll: 23 mutants
// MUTATION: mutation score: 95.7%
// The one survivor is equivalent: at 40 hours the overtime formula gives
// 40 * rate as the plain one does.
// MUTATION: survived: @gross_pay cmpi#1: gt -> ge (wrong comparison)
