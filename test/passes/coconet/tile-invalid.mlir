// RUN: coco-opt %s --split-input-file --verify-diagnostics
// RUN: not coco-opt %s --coco-tile="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not coco-opt %s --coco-tile="block=-4" 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not coco-opt %s --coco-tile="matmul-rows=65537" 2>&1 | FileCheck %s --check-prefix=ROWS

// TARGET: coco-opt: error: coco-tile: option 'target' expects gpu or cpu, found 'tpu'
// BLOCK: coco-opt: error: coco-tile: option 'block' must be between 0 and 65536, found -4
// ROWS: coco-opt: error: coco-tile: option 'matmul-rows' must be between 0 and 65536, found 65537

func.func @bad_matmul_tile(%x: tensor<8x16xf32, #coco.replicated>, %w: tensor<16x4xf32, #coco.replicated>) -> tensor<8x4xf32, #coco.replicated> {
  // expected-error@+1 {{'coco.tile' must hold 2 or 3 positive size(s), found [128]}}
  %y = coco.matmul %x, %w {coco.tile = array<i64: 128>} : tensor<8x16xf32, #coco.replicated>, tensor<16x4xf32, #coco.replicated> -> tensor<8x4xf32, #coco.replicated>
  return %y : tensor<8x4xf32, #coco.replicated>
}

// -----

func.func @bad_tile_kind(%x: tensor<8xf32, #coco.replicated>) -> tensor<8xf32, #coco.replicated> {
  // expected-error@+1 {{'coco.tile' must be a dense i64 array}}
  %y = math.tanh %x {coco.tile = 3 : i64} : tensor<8xf32, #coco.replicated>
  return %y : tensor<8xf32, #coco.replicated>
}
