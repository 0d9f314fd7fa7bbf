// What `coco-bigtest generate -o DIR` may write: names of sources become
// file names, so one leaving DIR is rejected by the df verifier (every tool
// sees it); two sources (or a source and a report) sharing a file are an
// error naming both, and nothing is written. A non-empty DIR that is not an
// earlier output (it has no coco-bigtest-manifest.txt) is refused and left
// alone (inputs/foreign/case-1/precious.txt was once deleted). An earlier
// output is replaced, down to the files its manifest lists: the global
// reduce needs four test cases at k=2 (no record, which fails the job and
// is the one case without records, so it comes first; one record; two
// folded; three folded, so the reducer's result is an operand again), two
// at k=1, so after the k=1 run case-2/ and case-3/ are gone and the k=2
// fold is missed.
// RUN: not coco-bigtest generate tools/coco-bigtest/inputs/escape.df -o %t 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: not coco-bigtest generate tools/coco-bigtest/inputs/same-file.df -o %t 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not coco-bigtest coverage tools/coco-bigtest/inputs/same-file.df --data %t 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: not coco-bigtest generate tools/coco-bigtest/inputs/report-name.df -o %t 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not coco-bigtest generate %s -o tools/coco-bigtest/inputs/foreign 2>&1 | FileCheck %s --check-prefix=FOREIGN
// -o - is refused; --strict-whitespace because FileCheck would otherwise
// match a run of spaces in the message as one.
// RUN: not coco-bigtest generate %s -o - 2>&1 | FileCheck %s --check-prefix=DASH --strict-whitespace
// RUN: coco-bigtest run %s --data tools/coco-bigtest/inputs/foreign/case-1 | FileCheck %s --check-prefix=KEPT
// RUN: coco-bigtest generate %s -o %t --k 2 | FileCheck %s --check-prefix=FIRST
// RUN: coco-bigtest generate %s -o %t --k 1 | FileCheck %s --check-prefix=AGAIN
// RUN: coco-bigtest coverage %s --data %t --k 2 | FileCheck %s --check-prefix=COVERAGE

// ESCAPE: escape.df:4:12: error: 'df.source' op source name "../../X" contains a path separator; it names a file of generated test data, so it must be a plain file name
// SAME: coco-bigtest: error: source "b" at tools/coco-bigtest/inputs/same-file.df:4:8 and source "a" at tools/coco-bigtest/inputs/same-file.df:3:8 would both write {{.*}}times.txt; give one of them another name
// NOTHING: error: {{.*}}source "a": cannot read {{.*}}times.txt
// REPORT: coco-bigtest: error: source "a" at tools/coco-bigtest/inputs/report-name.df:3:8 and coco-bigtest's own report.txt would both write {{.*}}report.txt
// FOREIGN: coco-bigtest: error: -o tools/coco-bigtest/inputs/foreign: the folder is not empty and holds no coco-bigtest-manifest.txt, so it is not an earlier coco-bigtest output; refusing to write into it
// KEPT: sink "out" (1 records):
// KEPT-NEXT: 7
// FIRST: precious 3 3 0 0 6 4 100.0%
// AGAIN: precious 3 3 0 0 1 2 66.7%
// COVERAGE: covered: 2 of 3 paths not shown infeasible (66.7%); 0 records fail in the program; 1 datasets reach a global reduce empty
// COVERAGE: missed path 2 [sat]: reduce#1=fold{source#0 | source#0} ; sink#2

func.func @add(%a: i64, %b: i64) -> i64 {
  %sum = arith.addi %a, %b : i64
  return %sum : i64
}

func.func @precious() {
  %lines = df.source "precious" path "precious.txt" delimiter "," : !df.dataset<i64>
  %total = df.reduce %lines @add : !df.dataset<i64>
  df.sink "out" %total : !df.dataset<i64>
  return
}

// DASH: coco-bigtest: error: -o -: test data is a folder of files and cannot go to standard output; name a folder{{$}}
