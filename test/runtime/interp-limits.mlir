// The reference interpreter's two limits (docs/reliability.md). Work: the
// element operations of the whole program are estimated from its types and
// refused before anything runs, naming the costliest op (a paper-scale
// Megatron layer used to run for hours). Memory: every op's operands and
// results are checked, beside the values alive, before they are allocated,
// so an intermediate far larger than the inputs is an error at its op
// (under an 8 GiB `ulimit -v`, a 2.5 GiB intermediate used to abort).
// RUN: not coco-run %s --backend reference --ranks 2 --entry huge --max-interp-work 1000 2>&1 | FileCheck %s --check-prefix=WORK
// RUN: not coco-run %s --backend reference --ranks 2 --entry huge --max-interp-work 100000000000000000 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN: coco-run %s --backend reference --ranks 2 --entry small --max-interp-work 46 | FileCheck %s --check-prefix=SMALL
// RUN: not coco-run %s --backend reference --ranks 2 --entry small --max-interp-work 45 2>&1 | FileCheck %s --check-prefix=SMALL-OVER
// --check is refused before the compiled job runs.
// RUN: not coco-run %s --ranks 2 --entry small --check --max-interp-work 45 2>&1 | FileCheck %s --check-prefix=CHECK-OVER

// WORK: coco-run: error: the reference interpreter would need about 4000000000000016 element operations for this program, over the limit of 1000 (--max-interp-work 1000); the costliest op is 'coco.expand' at {{.*}}interp-limits.mlir:22:8 with 2000000000000002
// MEMORY: coco-run: error: 'coco.expand' at {{.*}}interp-limits.mlir:22:8 needs 32000000000000016 bytes in the reference interpreter, bringing its values to {{[0-9]+}} bytes, over the limit of {{[0-9]+}} bytes
// SMALL: small.result0: f32 [] #coco.replicated
// SMALL-OVER: coco-run: error: the reference interpreter would need about 46 element operations for this program, over the limit of 45 (--max-interp-work 45); the costliest op is 'coco.matmul' at {{.*}}:33:8 with 16
// CHECK-OVER: coco-run: error: --check: the reference interpreter would need about 46 element operations

func.func @huge(%x: tensor<f32, #coco.replicated>) -> tensor<f32, #coco.replicated> {
  %e = coco.expand %x : tensor<f32, #coco.replicated> -> tensor<1000000000000000xf32, #coco.replicated>
  %n = coco.norm %e : tensor<1000000000000000xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %y = arith.addf %n, %x : tensor<f32, #coco.replicated>
  %z = arith.mulf %y, %n : tensor<f32, #coco.replicated>
  return %z : tensor<f32, #coco.replicated>
}

// Work on 2 ranks: the matmul's local 2x2 . 2x2 is 8 a rank (16), the
// norm reads 4 and writes 1 a rank (10), the expand reads 1 and writes 4 a
// rank (10), the second norm 10: 46.
func.func @small(%a: tensor<2x2xf32, #coco.replicated>) -> tensor<f32, #coco.replicated> {
  %m = coco.matmul %a, %a : tensor<2x2xf32, #coco.replicated>, tensor<2x2xf32, #coco.replicated> -> tensor<2x2xf32, #coco.replicated>
  %n = coco.norm %m : tensor<2x2xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %e = coco.expand %n : tensor<f32, #coco.replicated> -> tensor<4xf32, #coco.replicated>
  %s = coco.norm %e : tensor<4xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  return %s : tensor<f32, #coco.replicated>
}
