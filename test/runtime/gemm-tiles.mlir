// Tuned GEMM tiles (docs/gemm.md, "Tuned tiles"): --tune-gemms measures
// cache blockings for the program's CPU GEMMs on this machine and writes
// the fastest of each to a table; --gemm-tiles applies a table to GEMMs
// without a coco.tile (coco.tile still wins), for the CPU it was measured
// on. What is fastest depends on the machine, so the measured table is
// only checked for what it holds and for giving the interpreter's results;
// a table written for x86-64-v3 pins the blocking it applies.
// RUN: coco-translate %s --tune-gemms %t.toml --gemm-arithmetic ordered | FileCheck %s --check-prefix=TUNE
// RUN: coco-run %s --backend cpu --ranks 1 --seed 3 --check --gemm-tiles %t.toml --gemm-arithmetic ordered | FileCheck %s --check-prefix=CHECKED
// RUN: coco-translate %s --emit=kernels --mcpu x86-64-v3 --gemm-arithmetic ordered --gemm-tiles runtime/inputs/gemm-tiles/x86-64-v3.toml | FileCheck %s --check-prefix=PINNED
// Another CPU, or other arithmetic, is not what the table measured: defaults.
// RUN: coco-translate %s --emit=kernels --mcpu skylake-avx512 --gemm-arithmetic ordered --gemm-tiles runtime/inputs/gemm-tiles/x86-64-v3.toml | FileCheck %s --check-prefix=OTHER
// RUN: coco-translate %s --emit=kernels --mcpu x86-64-v3 --gemm-tiles runtime/inputs/gemm-tiles/x86-64-v3.toml | FileCheck %s --check-prefix=FUSED
// RUN: not coco-translate %s --emit=kernels --gemm-tiles runtime/inputs/gemm-tiles/corrupt.toml 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: not coco-translate %s --emit=kernels --gemm-tiles runtime/inputs/gemm-tiles/absent.toml 2>&1 | FileCheck %s --check-prefix=ABSENT
// RUN: not coco-translate %s --emit=kernels --mcpu x86-64-v3 --gemm-arithmetic ordered --gemm-tiles runtime/inputs/gemm-tiles/four-numbers.toml 2>&1 | FileCheck %s --check-prefix=FOUR
// RUN: not coco-run %s --backend cpu --ranks 1 --gemm-tiles runtime/inputs/gemm-tiles 2>&1 | FileCheck %s --check-prefix=FOLDER

// Two shapes (the batched one tuned as its 2-D matrices), each once.
// TUNE:      gemm (m x n x k)
// TUNE-DAG:  37 x 45 x 29 f32 ordered
// TUNE-DAG:  9 x 7 x 5 bf16 ordered
// TUNE:      2 GEMM(s) tuned for {{.+}}: {{.+}}.toml (apply with --gemm-tiles)

// CHECKED:      check against the reference interpreter:
// CHECKED-NEXT:   tiles.result0: bitwise equal
// CHECKED-NEXT:   tiles.result1: bitwise equal
// CHECKED-NEXT:   tiles.result2: bitwise equal

// The table's 12 x 16 x 7 for the untiled 37 x 45 x 29 product (rounded to
// x86-64-v3's 6 x 16 register tile: 12 x 16 x 7); the tiled one keeps its
// coco.tile.
// PINNED-DAG: func.func private @coco_gemm_37x45x29_f32_f32_b12x16x7_r6x16_ordered(
// PINNED-DAG: func.func private @coco_gemm_37x45x29_f32_f32_b30x32x29_r6x16_ordered(
// OTHER-NOT:  b12x16x7
// FUSED-NOT:  b12x16x7

// CORRUPT: coco-translate: error: --gemm-tiles: runtime/inputs/gemm-tiles/corrupt.toml:1: not a GEMM tile table
// FOUR:    coco-translate: error: --gemm-tiles: runtime/inputs/gemm-tiles/four-numbers.toml:10: not a GEMM tile table: `tile` has 4 number(s), [12, 16, 7, 64]; it takes 3: rows, cols, depth
// ABSENT:  coco-translate: error: --gemm-tiles: runtime/inputs/gemm-tiles/absent.toml:
// FOLDER:  coco-run: error: --gemm-tiles: runtime/inputs/gemm-tiles:
func.func @tiles(%a: tensor<37x29xf32, #coco.replicated>, %b: tensor<29x45xf32, #coco.replicated>,
                 %f: tensor<4x9x5xbf16, #coco.replicated>, %g: tensor<4x5x7xbf16, #coco.replicated>)
    -> (tensor<37x45xf32, #coco.replicated>, tensor<37x45xf32, #coco.replicated>, tensor<4x9x7xbf16, #coco.replicated>) {
  %r0 = coco.matmul %a, %b : tensor<37x29xf32, #coco.replicated>, tensor<29x45xf32, #coco.replicated> -> tensor<37x45xf32, #coco.replicated>
  %r1 = coco.matmul %a, %b {coco.tile = array<i64: 30, 32, 29>} : tensor<37x29xf32, #coco.replicated>, tensor<29x45xf32, #coco.replicated> -> tensor<37x45xf32, #coco.replicated>
  %r2 = coco.matmul %f, %g : tensor<4x9x5xbf16, #coco.replicated>, tensor<4x5x7xbf16, #coco.replicated> -> tensor<4x9x7xbf16, #coco.replicated>
  return %r0, %r1, %r2 : tensor<37x45xf32, #coco.replicated>, tensor<37x45xf32, #coco.replicated>, tensor<4x9x7xbf16, #coco.replicated>
}
