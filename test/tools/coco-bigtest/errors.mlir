// coco-bigtest's bad input: a missing program, a bound out of range, a data
// directory without the program's sources, and a malformed program. Each is
// one diagnostic and a non-zero exit.
// RUN: not coco-bigtest generate %s.missing -o %t 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not coco-bigtest generate %s -o %t --k 0 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not coco-bigtest coverage %s --data %s.nodir 2>&1 | FileCheck %s --check-prefix=NODATA
// RUN: not coco-bigtest mutate ../examples/bigtest/wordcount.mlir --data %s.nodir 2>&1 | FileCheck %s --check-prefix=NODATA2
// RUN: not coco-bigtest run tools/coco-bigtest/malformed.txt 2>&1 | FileCheck %s --check-prefix=MALFORMED

// MISSING: coco-bigtest: error: could not open input file 'tools/coco-bigtest/errors.mlir.missing': no such file or directory
// BOUND: coco-bigtest: error: --k must be between 1 and 8, found 0
// NODATA: coco-bigtest: error: tools/coco-bigtest/errors.mlir:{{[0-9]+}}:{{[0-9]+}}: source "lines": cannot read tools/coco-bigtest/errors.mlir.nodir/lines.txt
// NODATA2: coco-bigtest: error: --data tools/coco-bigtest/errors.mlir.nodir: no such directory
// MALFORMED: coco-bigtest: error: tools/coco-bigtest/malformed.txt: could not parse the input
// MALFORMED: malformed.txt:1:19: error: expected non-function type

func.func @first_word(%line: !df.str) -> !df.str {
  %words = df.split %line " " : !df.list<!df.str>
  %first = df.get %words[0] : !df.list<!df.str> -> !df.str
  return %first : !df.str
}

func.func @first_words() {
  %lines = df.source "lines" path "lines.txt" delimiter "\t" : !df.dataset<!df.str>
  %words = df.map %lines @first_word : !df.dataset<!df.str> -> !df.dataset<!df.str>
  df.sink "words" %words : !df.dataset<!df.str>
  return
}
