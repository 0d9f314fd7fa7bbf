// How coco-bigtest reads data files and shows what is in them.
//
// Records are what Spark's sc.textFile reads (Hadoop's LineRecordReader):
// inputs/records/lines.txt starts with a UTF-8 byte order mark (dropped),
// ends lines with "\r", "\r\n" and "\n", and holds malformed UTF-8 (0xFF,
// and ED A0 80, an encoded surrogate, one U+FFFD each as in Java), an
// escape sequence that would clear the screen, a bell, a tab and an empty
// line. Names and values are escaped wherever the tool prints them.
// RUN: coco-bigtest run %s --data tools/coco-bigtest/inputs/records | FileCheck %s --check-prefix=RECORDS
// RECORDS: sink "out" (6 records):
// RECORDS-NEXT: {{^  $}}
// RECORDS-NEXT: {{^  }}\u{1b}[2J\u{7}
// RECORDS-NEXT: {{^  a$}}
// RECORDS-NEXT: {{^  b$}}
// RECORDS-NEXT: {{^  c��d$}}
// RECORDS-NEXT: {{^  }}tab\there
// RECORDS-NOT: {{.}}

// Data is read only from regular files, and at most --max-data-bytes of it
// (8 MiB by default) per command: the interpreter holds about 250 bytes of
// memory per byte of data.
// RUN: not coco-bigtest run %s --data tools/coco-bigtest/inputs/records --max-data-bytes 10 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not coco-bigtest coverage %s --data tools/coco-bigtest/inputs/records --max-data-bytes 10 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not coco-bigtest mutate %s --data tools/coco-bigtest/inputs/records --max-data-bytes 10 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not coco-bigtest run %s --data tools/coco-bigtest/inputs/folder 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// LIMIT: coco-bigtest: error: tools/coco-bigtest/records.mlir:{{[0-9]+}}:12: source "lines": cannot read tools/coco-bigtest/inputs/records/lines.txt: it is 31 bytes, more than the limit of 10 bytes of data per command (raise it with --max-data-bytes N; the interpreter needs about 250 bytes of memory per byte of data)
// DIRECTORY: coco-bigtest: error: tools/coco-bigtest/records.mlir:{{[0-9]+}}:12: source "lines": cannot read tools/coco-bigtest/inputs/folder/lines.txt: it is a directory, not a regular file (data files must be regular files)

// A record quoted in an error, a failing record's text and a program name
// holding a newline are escaped: in messages, the summary table and
// report.txt (the name would otherwise forge a line of each).
// RUN: not coco-bigtest run tools/coco-bigtest/inputs/ints.df --data tools/coco-bigtest/inputs/escapes 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not coco-bigtest run tools/coco-bigtest/inputs/forged.df --data tools/coco-bigtest/inputs/escapes 2>&1 | FileCheck %s --check-prefix=FAILURE
// RUN: coco-bigtest generate tools/coco-bigtest/inputs/forged.df -o %t | FileCheck %s --check-prefix=TABLE
// RUN: FileCheck %s --check-prefix=REPORT --input-file %t/report.txt

// What coverage and run print stays short whatever the data: an operator
// that combines more than k records is one step, `fold{more than 2
// records}`; 20 paths beyond k are listed and the others counted; 20
// failures of a job are listed and the others counted.
// RUN: coco-bigtest coverage tools/coco-bigtest/inputs/sum.df --data tools/coco-bigtest/inputs/numbers | FileCheck %s --check-prefix=FOLD
// RUN: coco-bigtest coverage tools/coco-bigtest/inputs/words.df --data tools/coco-bigtest/inputs/words | FileCheck %s --check-prefix=BEYOND
// RUN: not coco-bigtest run tools/coco-bigtest/inputs/forged.df --data tools/coco-bigtest/inputs/letters 2>&1 | FileCheck %s --check-prefix=FAILURES
// FOLD: 1 path(s) the data follows are beyond k=2
// FOLD-NEXT: beyond k: reduce#1=fold{more than 2 records} ; sink#2
// BEYOND: 23 path(s) the data follows are beyond k=2
// BEYOND-COUNT-20: beyond k: source#0 ; flat_map#1=elem
// BEYOND-NEXT: beyond k: ... and 3 more
// FAILURES: 25 failures (Spark would abort the job):
// FAILURES-COUNT-20: map#1 (@number): "{{[a-y]}}" is not an integer
// FAILURES-NEXT: ... and 5 more

func.func @echo() {
  %lines = df.source "lines" path "lines.txt" delimiter "\t" : !df.dataset<!df.str>
  df.sink "out" %lines : !df.dataset<!df.str>
  return
}

// BAD: coco-bigtest: error: tools/coco-bigtest/inputs/ints.df:3:12: source "lines" record 0 ("\u{1b}[2J\u{1b}[31mred") has field #0 "\u{1b}[2J\u{1b}[31mred", which is not a valid i64
// FAILURE: coco-bigtest: error: @numbers\nforged      2 2 0 0 2 2 100.0%: 1 failures (Spark would abort the job):
// FAILURE-NEXT: inputs/forged.df:10:14: map#1 (@number): "\u{1b}[2J\u{1b}[31mred" is not an integer (lines record 0)
// TABLE: program
// TABLE-NEXT: {{^}}numbers\nforged      2 2 0 0 2 2 100.0% 2 2 0 0 2 2 100.0%
// TABLE-NEXT: test data written to
// REPORT: {{^}}BigTest report for @numbers\nforged      2 2 0 0 2 2 100.0%{{$}}
// REPORT-EMPTY:
// REPORT-NEXT: 2 JDU paths: 2 feasible, 0 infeasible, 0 unknown
