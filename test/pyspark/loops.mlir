// `for x in xs` over a split or a group's values is a cf loop: the header
// takes the index and the variables the body assigns that exist before the
// loop, reads element i with df.get_at and leaves when it is absent;
// `break` goes to the exit, `continue` and the end of the body back to the
// header with i + 1. The job runs on Spark with its generated cases in the
// PySpark check (test/pyspark/jobs/loops.py).

// RUN: coco-bigtest import pyspark/jobs/loops.py | FileCheck %s

// `bad` and `total` are carried; `piece` and `value` live in one trip.
// CHECK-LABEL: func.func @scores(%arg0: !df.str) -> (!df.str, i64, i64) {
// CHECK: %[[PIECES:[0-9]+]] = df.split %{{[0-9]+}} ";" : !df.list<!df.str>
// CHECK: cf.br ^bb1(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i64, i64, i64) loc("pyspark/jobs/loops.py":9:5)
// CHECK-NEXT: ^bb1(%[[I:[0-9]+]]: i64, %[[BAD:[0-9]+]]: i64, %[[TOTAL:[0-9]+]]: i64):
// CHECK-NEXT: %[[O:[0-9]+]] = df.get_at %[[PIECES]][%[[I]]] : !df.list<!df.str> -> !df.option<!df.str> loc("pyspark/jobs/loops.py":9:5)
// CHECK-NEXT: %[[MORE:[0-9]+]] = df.is_present %[[O]]
// CHECK-NEXT: cf.cond_br %[[MORE]], ^bb2, ^bb3
// The `continue` in the handler: bad + 1, the next index, back.
// CHECK: %[[BAD1:[0-9]+]] = arith.addi %[[BAD]], %{{[0-9]+}} : i64 loc("pyspark/jobs/loops.py":15:13)
// CHECK: %[[NEXT:[0-9]+]] = arith.addi %[[I]], %{{[0-9]+}} : i64 loc("pyspark/jobs/loops.py":16:13)
// CHECK-NEXT: cf.br ^bb1(%[[NEXT]], %[[BAD1]], %[[TOTAL]] : i64, i64, i64) loc("pyspark/jobs/loops.py":16:13)
// CHECK: func.return %{{[0-9]+}}, %[[TOTAL]], %[[BAD]] : !df.str, i64, i64

// `best = None` before the loop and a str in it: the header carries it as
// an optional str (a present flag and the value).
// CHECK-LABEL: func.func @longest_word(%arg0: !df.str) -> (i1, !df.str) {
// CHECK: ^bb1(%{{[0-9]+}}: i64, %[[PRESENT:[0-9]+]]: i1, %[[BEST:[0-9]+]]: !df.str):
// CHECK: func.return %[[PRESENT]], %[[BEST]] : i1, !df.str

// A group's values: a loop over !df.list<i64>.
// CHECK-LABEL: func.func @count_and_top(%arg0: !df.str, %arg1: !df.list<i64>) -> (!df.str, i64, i64) {
// CHECK: df.get_at %arg1[%{{[0-9]+}}] : !df.list<i64> -> !df.option<i64>

// `xs[-n]` is a loop too: it carries the last n elements and raises
// IndexError (to a handler that catches it) when the list had fewer.
// RUN: coco-bigtest import pyspark/jobs/paths.py | FileCheck %s --check-prefix=FROM-END
// FROM-END-LABEL: func.func @extension(%arg0: !df.str) -> (!df.str) {
// FROM-END: ^bb1(%[[I:[0-9]+]]: i64, %[[LAST:[0-9]+]]: !df.str):
// FROM-END-NEXT: df.get_at %{{[0-9]+}}[%[[I]]] : !df.list<!df.str> -> !df.option<!df.str> loc("pyspark/jobs/paths.py":18:12)
// FROM-END: ^bb3:
// FROM-END-NEXT: %[[ONE:[0-9]+]] = arith.constant 1 : i64
// FROM-END-NEXT: %[[ENOUGH:[0-9]+]] = arith.cmpi sge, %[[I]], %[[ONE]] : i64
// FROM-END-NEXT: cf.cond_br %[[ENOUGH]], ^bb4, ^bb5
// FROM-END-NEXT: ^bb4:
// FROM-END: df.split %[[LAST]] "." : !df.list<!df.str>
// FROM-END: ^bb5:
// FROM-END-NEXT: df.raise "IndexError" loc("pyspark/jobs/paths.py":18:12)
