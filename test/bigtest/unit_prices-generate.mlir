// Test data for examples/bigtest/unit_prices.mlir: generation takes tens
// of seconds (299 test cases, 24 s on the release build, about 40 s on the
// test build; see "Results on the examples" in docs/bigtest.md), so it runs
// with COCO_SLOW_TESTS=1 or bench/bigtest.sh; unit_prices-small.mlir is its
// CI variant. Every one of
// its 360 paths is decided at the default timeout; the RUN lines give Z3
// more time only to keep a loaded machine from changing the answer.
// REQUIRES: slow
// RUN: coco-bigtest generate ../examples/bigtest/unit_prices.mlir -o %t --timeout-ms 30000 >/dev/null
// RUN: coco-bigtest coverage ../examples/bigtest/unit_prices.mlir --data %t --timeout-ms 30000 | FileCheck %s --check-prefix=COVERAGE
// RUN: coco-bigtest mutate ../examples/bigtest/unit_prices.mlir --data %t | FileCheck %s --check-prefix=MUTATION

// COVERAGE: covered: 360 of 360 paths not shown infeasible (100.0%)

// MUTATION: @unit_prices: 12 mutants, 11 killed
// MUTATION: mutation score: 91.7%
