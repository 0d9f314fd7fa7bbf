// i1 tensors hold one byte per element (0 or 1) in memory on every
// backend: the interpreter's files (numpy's |b1), the executor's buffers,
// the PTX (byte loads and stores) and the CPU kernels. Vectorised CPU
// kernels used to load and store vector<16xi1> as LLVM's packed bits, so
// an arith.ori of two comparisons, a coco.expand of one, and a comparison
// returned as an i1 output came out wrong (a select reading the same
// comparison in registers was right). 48 elements are three full 16-lane
// vectors on one rank; 24 and 12 per rank take masked loads and stores.
// RUN: coco-run %s --entry ori --backend cpu --ranks 1 --seed 1 --check | FileCheck %s --check-prefix=ORI
// RUN: coco-run %s --entry ori --backend cpu --ranks 2 --seed 2 --check | FileCheck %s --check-prefix=ORI
// RUN: coco-run %s --entry ori --backend cpu --ranks 4 --seed 3 --check | FileCheck %s --check-prefix=ORI
// RUN: coco-run %s --entry cmp --backend cpu --ranks 2 --seed 1 --check | FileCheck %s --check-prefix=CMP
// RUN: coco-run %s --entry cmp --backend cpu --ranks 4 --seed 2 --check | FileCheck %s --check-prefix=CMP
// RUN: coco-run %s --entry expand --backend cpu --ranks 2 --seed 1 --check | FileCheck %s --check-prefix=EXPAND
// RUN: coco-run %s --entry expand --backend cpu --ranks 4 --seed 2 --check | FileCheck %s --check-prefix=EXPAND
// RUN: coco-translate %s --entry ori --emit=llvm-ir --ranks 1 --mcpu znver4 | FileCheck %s --check-prefix=IR
// RUN: coco-translate %s --entry expand --emit=ptx --ranks 2 | FileCheck %s --check-prefix=PTX

// ORI: check against the reference interpreter:
// ORI-NEXT: ori.result0: bitwise equal

// CMP: check against the reference interpreter:
// CMP-NEXT: cmp.result0: bitwise equal
// CMP-NEXT: cmp.result1: bitwise equal

// EXPAND: check against the reference interpreter:
// EXPAND-NEXT: expand.result0: bitwise equal

// Whole vectors of flags move as bytes, never as packed <16 x i1>.
// IR: define void @ori_k0(
// IR-NOT: store <16 x i1>
// IR: store <16 x i8>
// IR-NOT: {{(store|load) <16 x i1>|masked\.(load|store)\.v16i1}}

// The GPU's kernels store and load a flag as one byte.
// PTX-LABEL: .entry expand_k0_kernel(
// PTX: st.global.u8
// PTX-LABEL: .entry expand_k1_kernel(
// PTX: ld.global.u8
// PTX: st.global.u8

func.func @ori(%a: tensor<48xf32, #coco.sliced<0>>, %b: tensor<48xf32, #coco.sliced<0>>) -> tensor<48xi1, #coco.sliced<0>> {
  %h = arith.constant dense<0.5> : tensor<48xf32, #coco.sliced<0>>
  %x = arith.cmpf ogt, %a, %h : tensor<48xf32, #coco.sliced<0>>
  %y = arith.cmpf olt, %b, %h : tensor<48xf32, #coco.sliced<0>>
  %o = arith.ori %x, %y : tensor<48xi1, #coco.sliced<0>>
  return %o : tensor<48xi1, #coco.sliced<0>>
}

func.func @cmp(%a: tensor<48xf32, #coco.replicated>) -> (tensor<48xi1, #coco.replicated>, tensor<48xf32, #coco.replicated>) {
  %h = arith.constant dense<0.5> : tensor<48xf32, #coco.replicated>
  %z = arith.constant dense<0.0> : tensor<48xf32, #coco.replicated>
  %x = arith.cmpf ogt, %a, %h : tensor<48xf32, #coco.replicated>
  %s = arith.select %x, %a, %z : tensor<48xi1, #coco.replicated>, tensor<48xf32, #coco.replicated>
  return %x, %s : tensor<48xi1, #coco.replicated>, tensor<48xf32, #coco.replicated>
}

func.func @expand(%a: tensor<48xf32, #coco.replicated>) -> tensor<48x8xi1, #coco.replicated> {
  %h = arith.constant dense<0.5> : tensor<48xf32, #coco.replicated>
  %x = arith.cmpf ogt, %a, %h : tensor<48xf32, #coco.replicated>
  %e = coco.expand %x {dims = array<i64: 0>} : tensor<48xi1, #coco.replicated> -> tensor<48x8xi1, #coco.replicated>
  return %e : tensor<48x8xi1, #coco.replicated>
}
