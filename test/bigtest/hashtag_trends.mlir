// JDU paths of @hashtag_trends (examples/bigtest/hashtag_trends.mlir) at k=2.
// A tweet reaches the tokens either unique or as two identical lines merged
// by distinct (2 ways), and flat_map follows token 0 or 1 (2): 4 token
// kinds. On the JVM (the program's host) a tweet of spaces alone splits to
// no token at all (String.split drops trailing empty pieces): flat_map is
// empty (2). Each token kind is dropped by the hashtag filter (4), passes
// and then fails in @count_one's df.substr (4, all unsatisfiable: a kept
// token is longer than "#", so the substring is in range), or reaches
// reduce_by_key alone (4). Two tokens folded per tag: 4 x 4 ordered kinds
// (16); two unique tweets must differ, which the path conditions say.
// 2 + 4 + 4 + 4 + 16 = 30 paths: 26 satisfiable, 4 unsatisfiable.
// The generated data must make the program follow every satisfiable path
// when it runs (COVERAGE), and is scored against the program's mutants.
// RUN: coco-opt ../examples/bigtest/hashtag_trends.mlir --bigtest-jdu-paths | FileCheck %s
// RUN: coco-opt ../examples/bigtest/hashtag_trends.mlir --bigtest-jdu-paths | FileCheck %s --check-prefix=COUNT
// RUN: coco-bigtest generate ../examples/bigtest/hashtag_trends.mlir -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage ../examples/bigtest/hashtag_trends.mlir --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate ../examples/bigtest/hashtag_trends.mlir --data %t | FileCheck %s --check-prefix=MUTATION

// CHECK: branches ["distinct#1=duplicate{source#0 | source#0}", "flat_map#2=elem1", "filter#3=drop"]
// CHECK: bigtest.jdu_path 6 of @hashtag_trends status unsolved branches ["source#0", "distinct#1=unique", "flat_map#2=elem0", "filter#3=pass", "map#4@count_one:substr#3=fail"]
// CHECK: branches ["reduce_by_key#5=fold{source#0, distinct#1=unique, flat_map#2=elem0, filter#3=pass | source#0, distinct#1=unique, flat_map#2=elem0, filter#3=pass}", "sink#6"]
// CHECK-SAME: (assert (not (= tweets_0.f0 tweets_1.f0)))

// COUNT-COUNT-30: bigtest.jdu_path
// COUNT-NOT: bigtest.jdu_path

// COVERAGE: covered: 26 of 26 paths not shown infeasible (100.0%)

// MUTATION: @hashtag_trends: 7 mutants
// MUTATION: mutation score: 100.0%
