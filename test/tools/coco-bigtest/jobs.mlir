// Test cases are Spark jobs: Spark aborts a job at the first exception, so
// each path that ends in a failure gets a test case of its own, and the
// other paths share cases that run without any failure. Here 3 of the 5
// paths fail (get #1 past the end of a line of "," alone, get #2 past the
// end, to_int #3), so the data has 4 cases; `run --data` runs each as a job
// of its own and reports the three that fail, and prints the sinks of the
// one that succeeds (`--json` gives the same per job, for the Spark check).
// `coverage` counts over all cases.
// RUN: coco-bigtest generate %s -o %t --timeout-ms 30000 | FileCheck %s
// RUN: not coco-bigtest run %s --data %t 2>&1 | FileCheck %s --check-prefix=JOBS
// RUN: not coco-bigtest run %s --data %t --json | FileCheck %s --check-prefix=JSON
// RUN: coco-bigtest coverage %s --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE

// CHECK: orders 5 5 0 0 9 4 100.0%

// JOBS-DAG: @orders on {{.*}}case-{{[0-9]}}:
// JOBS-DAG: sink "large" (3 records):
// JOBS: coco-bigtest: error: @orders on {{.*}}: 1 failures (Spark would abort the job):
// JOBS: @orders on {{.*}}: 1 failures (Spark would abort the job):
// JOBS: @orders on {{.*}}: 1 failures (Spark would abort the job):
// JOBS-NOT: failures

// JSON: {"jobs":[{"data":
// JSON-DAG: "outcome":"failed","program":"orders","sinks":{}
// JSON-DAG: "outcome":"succeeded","program":"orders","sinks":{"large":["

// COVERAGE: covered: 5 of 5 paths not shown infeasible (100.0%)

func.func @parse(%line: !df.str) -> (!df.str, i64) {
  %fields = df.split %line "," : !df.list<!df.str>
  %customer = df.get %fields[0] : !df.list<!df.str> -> !df.str
  %quantity_text = df.get %fields[2] : !df.list<!df.str> -> !df.str
  %quantity = df.to_int %quantity_text
  return %customer, %quantity : !df.str, i64
}

func.func @large(%customer: !df.str, %quantity: i64) -> i1 {
  %ten = arith.constant 10 : i64
  %large = arith.cmpi sgt, %quantity, %ten : i64
  return %large : i1
}

func.func @orders() {
  %lines = df.source "orders" path "orders.txt" delimiter "\t" : !df.dataset<!df.str>
  %parsed = df.map %lines @parse : !df.dataset<!df.str> -> !df.dataset<tuple<!df.str, i64>>
  %large = df.filter %parsed @large : !df.dataset<tuple<!df.str, i64>>
  df.sink "large" %large path "large.csv" : !df.dataset<tuple<!df.str, i64>>
  return
}
