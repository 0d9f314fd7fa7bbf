// RUN: coco-opt %s --split-input-file --coco-tile | FileCheck %s
// RUN: coco-opt %s --split-input-file --coco-tile="target=cpu" | FileCheck %s --check-prefix=CPU
// RUN: coco-opt %s --split-input-file --coco-tile="matmul-rows=32 matmul-cols=16 block=256" | FileCheck %s --check-prefix=SET
// RUN: coco-opt %s --split-input-file --coco-tile="matmul-rows=32 matmul-cols=16 matmul-depth=1000" | FileCheck %s --check-prefix=DEPTH

// CHECK-LABEL: func.func @tile_kernels
// CHECK: coco.matmul %arg0, %arg1 {coco.tile = array<i64: 128, 128>}
// CHECK: math.tanh %{{.*}} {coco.tile = array<i64: 1024>}
// On the CPU the tile blocks the GEMM helpers' caches: rows of A, columns
// of B (clamped to the 512 columns of the global shape) and
// the depth of both.
// CPU: coco.matmul %arg0, %arg1 {coco.tile = array<i64: 192, 512, 256>}
// CPU: math.tanh %{{.*}} {coco.tile = array<i64: 4096>}
// SET: coco.matmul %arg0, %arg1 {coco.tile = array<i64: 32, 16>}
// SET: math.tanh %{{.*}} {coco.tile = array<i64: 256>}
// A depth is clamped to k.
// DEPTH: coco.matmul %arg0, %arg1 {coco.tile = array<i64: 32, 16, 256>}
func.func @tile_kernels(%x: tensor<512x256xf32, #coco.replicated>, %w: tensor<256x512xf32, #coco.sliced<1>>) -> tensor<512x512xf32, #coco.sliced<1>> {
  %y = coco.matmul %x, %w : tensor<512x256xf32, #coco.replicated>, tensor<256x512xf32, #coco.sliced<1>> -> tensor<512x512xf32, #coco.sliced<1>>
  %t = math.tanh %y : tensor<512x512xf32, #coco.sliced<1>>
  return %t : tensor<512x512xf32, #coco.sliced<1>>
}

// -----

// Tiles are clamped to small shapes; collectives get none.
// CHECK-LABEL: func.func @tile_clamped
// CHECK: coco.matmul %arg0, %arg1 {coco.tile = array<i64: 8, 4>}
// CHECK: coco.all_reduce sum %{{[0-9]+}} :
func.func @tile_clamped(%x: tensor<8x16xf32, #coco.sliced<1>>, %w: tensor<16x4xf32, #coco.sliced<0>>) -> tensor<8x4xf32, #coco.replicated> {
  %p = coco.matmul %x, %w : tensor<8x16xf32, #coco.sliced<1>>, tensor<16x4xf32, #coco.sliced<0>> -> tensor<8x4xf32, #coco.local>
  %r = coco.all_reduce sum %p : tensor<8x4xf32, #coco.local> -> tensor<8x4xf32, #coco.replicated>
  return %r : tensor<8x4xf32, #coco.replicated>
}

// -----

// On a mesh the tiles are set as on a flat group (global shapes, clamped).
// CHECK-LABEL: func.func @tile_on_a_mesh
// CHECK: coco.matmul %arg0, %arg1 {coco.tile = array<i64: 8, 128>}
coco.mesh @grid [dp = 2, tp = 2]
func.func @tile_on_a_mesh(%x: tensor<8x64xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>, %w: tensor<64x128xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>) -> tensor<8x128xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>> {
  %y = coco.matmul %x, %w : tensor<8x64xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>, tensor<64x128xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>> -> tensor<8x128xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
  return %y : tensor<8x128xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.sliced<1>}>>
}
