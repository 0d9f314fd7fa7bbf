// JDU paths of @sensor_peak (examples/bigtest/sensor_peak.mlir) at k=2.
// @parse_reading fails at to_float on text that is not a number or at
// either df.get past the end of the split (3: on the JVM, the program's
// host, even piece 0 is missing from a line of delimiters alone, as
// String.split drops trailing empty pieces). The plausibility filter drops
// (1) or keeps. The global df.reduce sees one reading (single) or folds
// two, and the alarm scf.if of @label takes either side (2 x 2).
// No reading reaching the reduce is a path of its own (1): Spark's reduce
// throws on an empty dataset, which fails the job.
// 3 + 1 + 4 + 1 = 9 paths, all satisfiable. A global reduce over one record
// and over two cannot share a dataset, so the data comes as several test
// cases (directories case-N).
// The generated data must make the program follow every satisfiable path
// when it runs (COVERAGE), and is scored against the program's mutants.
// RUN: coco-opt ../examples/bigtest/sensor_peak.mlir --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt ../examples/bigtest/sensor_peak.mlir --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT
// RUN: coco-bigtest generate ../examples/bigtest/sensor_peak.mlir -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage ../examples/bigtest/sensor_peak.mlir --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate ../examples/bigtest/sensor_peak.mlir --data %t | FileCheck %s --check-prefix=MUTATION

// CHECK: bigtest.jdu_path 0 of @sensor_peak status unsolved branches ["reduce#3=empty=fail"] constraints []{{$}}
// CHECK: branches ["source#0", "map#1@parse_reading:to_float#3=fail"]
// CHECK: branches ["source#0", "filter#2=pass", "reduce#3=single", "map#4@label:if#2=then", "sink#5"]
// CHECK: branches ["reduce#3=fold{source#0, filter#2=pass | source#0, filter#2=pass}", "map#4@label:if#2=else", "sink#5"]

// COUNT-COUNT-9: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path

// COVERAGE: covered: 9 of 9 paths not shown infeasible (100.0%)

// MUTATION: @sensor_peak: 17 mutants
// MUTATION: mutation score: 100.0%
