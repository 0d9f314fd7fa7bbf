// RUN: not coco-opt %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: coco-opt %s -o %t
// RUN: coco-opt %t | FileCheck %s
// RUN: not coco-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: coco-opt --list-passes | FileCheck %s --check-prefix=LIST

// MISSING: coco-opt: error: could not open input file 'tools/coco-opt/files.mlir.missing': no such file or directory
// FLAG: error: unexpected argument '--no-such-flag' found
// LIST: coco passes:
// LIST: --coco-verify {{ *}}Check the semantic rules of coco, df and bigtest IR
// LIST: upstream passes and pipelines:
// LIST: --canonicalize {{ *}}Canonicalize operations
// LIST: --gpu-lower-to-nvvm-pipeline

// CHECK: func.func @written_to_a_file
func.func @written_to_a_file() {
  return
}
