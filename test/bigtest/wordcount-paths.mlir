// JDU paths of the word count at k=2. A line of spaces alone has no token
// on the JVM, the program's host (String.split drops trailing empty
// pieces): flat_map is empty (1). Otherwise flat_map follows token 0 or
// token 1; reduce_by_key sees one word alone ("single") or two records with
// the same word folded, from token 0 or 1 each (4 combinations). The single
// count is 1, so `count >= 2` is false and the filter drops it; a fold of
// two counts 2, so the filter keeps it. 1 + 2 + 4 = 7 paths, all
// satisfiable.
// RUN: coco-opt ../examples/bigtest/wordcount.mlir --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt ../examples/bigtest/wordcount.mlir --pass-pipeline='builtin.module(bigtest-jdu-paths{k=2},bigtest-solve)' | FileCheck %s --check-prefix=SOLVED
// The generated data covers all 7 paths when the program runs on it, and
// kills all 6 mutants: @add with a -> b or b -> a adds 1 + 1 either way for
// two records, but the data also holds a word three times (a path beyond
// k=2), where b + b = 2 differs from 2 + 1.
// RUN: coco-bigtest generate ../examples/bigtest/wordcount.mlir -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage ../examples/bigtest/wordcount.mlir --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate ../examples/bigtest/wordcount.mlir --data %t | FileCheck %s --check-prefix=MUTATION

// CHECK: bigtest.jdu_path 0 of @wordcount status unsolved branches ["source#0", "flat_map#1=empty"]
// CHECK-SAME: (str.in_re flat_map1.t1 (re.* (str.to_re \22 \22)))
// CHECK: bigtest.jdu_path 1 of @wordcount status unsolved branches ["source#0", "flat_map#1=elem0", "reduce_by_key#3=single", "filter#4=drop"]
// CHECK-SAME: keys [{op = 3 : i64, term = "flat_map1.p0"}] records [{fields = ["lines.f0"], source = "lines"}]
// CHECK: bigtest.jdu_path 2 of @wordcount status unsolved branches ["source#0", "flat_map#1=elem1", "reduce_by_key#3=single", "filter#4=drop"]
// CHECK: bigtest.jdu_path 3 of @wordcount status unsolved branches ["reduce_by_key#3=fold{source#0, flat_map#1=elem0 | source#0, flat_map#1=elem0}", "filter#4=pass", "sink#5"]
// CHECK-SAME: "(assert (= flat_map1_0.p0 flat_map1_1.p0))"
// CHECK: bigtest.jdu_path 4 of @wordcount
// CHECK: bigtest.jdu_path 5 of @wordcount
// CHECK: bigtest.jdu_path 6 of @wordcount status unsolved branches ["reduce_by_key#3=fold{source#0, flat_map#1=elem1 | source#0, flat_map#1=elem1}", "filter#4=pass", "sink#5"]
// CHECK-NOT: bigtest.jdu_path 7

// SOLVED: bigtest.jdu_path 0 of @wordcount status sat
// SOLVED: bigtest.jdu_path 1 of @wordcount status sat
// SOLVED: bigtest.jdu_path 2 of @wordcount status sat
// SOLVED: bigtest.jdu_path 3 of @wordcount status sat
// SOLVED: bigtest.jdu_path 4 of @wordcount status sat
// SOLVED: bigtest.jdu_path 5 of @wordcount status sat
// SOLVED: bigtest.jdu_path 6 of @wordcount status sat

// COVERAGE: covered: 7 of 7 paths not shown infeasible (100.0%)

// MUTATION: @wordcount: 6 mutants, 6 killed
// MUTATION: mutation score: 100.0%
