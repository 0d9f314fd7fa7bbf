// RUN: coco-opt %s --split-input-file | FileCheck %s
// RUN: coco-opt %s --split-input-file | coco-opt --split-input-file | FileCheck %s
// RUN: coco-opt %s --split-input-file --mlir-print-op-generic | coco-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @collectives
func.func @collectives(%g: tensor<1024xf32, #coco.local>) {
  // CHECK: coco.all_reduce sum %{{.*}} : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.replicated>
  %0 = coco.all_reduce sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.replicated>
  // CHECK: coco.reduce_scatter avg
  %1 = coco.reduce_scatter avg %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>
  // CHECK: coco.all_gather %{{.*}} : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
  %2 = coco.all_gather %1 : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
  // CHECK: coco.broadcast %{{.*}} root 3
  %3 = coco.broadcast %g root 3 : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.replicated>
  // CHECK: coco.reduce max %{{.*}} root 0
  %4 = coco.reduce max %g root 0 : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.local>
  return
}

// -----

// CHECK-LABEL: func.func @all_to_all
func.func @all_to_all(%x: tensor<8x16xf32, #coco.sliced<1>>) -> tensor<8x16xf32, #coco.sliced<0>> {
  // CHECK: coco.all_to_all %{{.*}} : tensor<8x16xf32, #coco.sliced<1>> -> tensor<8x16xf32, #coco.sliced<0>>
  %0 = coco.all_to_all %x : tensor<8x16xf32, #coco.sliced<1>> -> tensor<8x16xf32, #coco.sliced<0>>
  return %0 : tensor<8x16xf32, #coco.sliced<0>>
}

// -----

// CHECK: coco.process_group @stage0 stage 0 of 2
coco.process_group @stage0 stage 0 of 2
coco.process_group @stage1 stage 1 of 2

// CHECK-LABEL: func.func @first
// CHECK: coco.send %{{.*}} to @stage1 : tensor<4x8xf32, #coco.replicated>
func.func @first(%h: tensor<4x8xf32, #coco.replicated>) attributes {coco.group = @stage0} {
  coco.send %h to @stage1 : tensor<4x8xf32, #coco.replicated>
  return
}

// CHECK-LABEL: func.func @second
// CHECK: coco.recv from @stage0 : tensor<4x8xf32, #coco.replicated>
func.func @second() -> tensor<4x8xf32, #coco.replicated> attributes {coco.group = @stage1} {
  %h = coco.recv from @stage0 : tensor<4x8xf32, #coco.replicated>
  return %h : tensor<4x8xf32, #coco.replicated>
}

// -----

// CHECK-LABEL: func.func @computations
func.func @computations(%x: tensor<8x16xf32, #coco.replicated>, %w1: tensor<16x32xf32, #coco.sliced<1>>,
                        %w2: tensor<32x16xf32, #coco.sliced<0>>, %g: tensor<16xf32, #coco.replicated>,
                        %b: tensor<16xf32, #coco.replicated>) {
  // CHECK: coco.matmul %{{.*}}, %{{.*}} : tensor<8x16xf32, #coco.replicated>, tensor<16x32xf32, #coco.sliced<1>> -> tensor<8x32xf32, #coco.sliced<1>>
  %h = coco.matmul %x, %w1 : tensor<8x16xf32, #coco.replicated>, tensor<16x32xf32, #coco.sliced<1>> -> tensor<8x32xf32, #coco.sliced<1>>
  // CHECK: coco.matmul {{.*}} -> tensor<8x16xf32, #coco.local>
  %p = coco.matmul %h, %w2 : tensor<8x32xf32, #coco.sliced<1>>, tensor<32x16xf32, #coco.sliced<0>> -> tensor<8x16xf32, #coco.local>
  %r = coco.all_reduce sum %p : tensor<8x16xf32, #coco.local> -> tensor<8x16xf32, #coco.replicated>
  // CHECK: coco.dropout %{{.*}} prob 1.000000e-01 seed 42 : tensor<8x16xf32, #coco.replicated>
  %d = coco.dropout %r prob 0.1 seed 42 : tensor<8x16xf32, #coco.replicated>
  // CHECK: coco.layer_norm %{{.*}}, %{{.*}}, %{{.*}} eps 1.000000e-05
  %n = coco.layer_norm %d, %g, %b eps 1.0e-5 : tensor<8x16xf32, #coco.replicated>, tensor<16xf32, #coco.replicated>, tensor<16xf32, #coco.replicated> -> tensor<8x16xf32, #coco.replicated>
  // CHECK: coco.norm %{{.*}} : tensor<8x16xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  %l2 = coco.norm %n : tensor<8x16xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
  // CHECK: coco.reduce_elements sum %{{.*}} : tensor<8x32xf32, #coco.sliced<1>> -> tensor<f32, #coco.local>
  %s = coco.reduce_elements sum %h : tensor<8x32xf32, #coco.sliced<1>> -> tensor<f32, #coco.local>
  // CHECK: coco.cast %{{.*}} : tensor<8x16xf32, #coco.replicated> -> tensor<8x16xbf16, #coco.replicated>
  %c = coco.cast %n : tensor<8x16xf32, #coco.replicated> -> tensor<8x16xbf16, #coco.replicated>
  // CHECK: coco.slice %{{.*}} : tensor<16xf32, #coco.replicated> -> tensor<16xf32, #coco.sliced<0>>
  %sl = coco.slice %g : tensor<16xf32, #coco.replicated> -> tensor<16xf32, #coco.sliced<0>>
  // CHECK: coco.update %{{.*}}, %{{.*}} : tensor<16xf32, #coco.replicated>
  coco.update %g, %b : tensor<16xf32, #coco.replicated>
  return
}

// -----

// CHECK-LABEL: func.func @structural
func.func @structural(%g: tensor<1024xf32, #coco.local>, %p: tensor<1024xf32, #coco.replicated>,
                      %x: tensor<8x16xf32, #coco.sliced<1>>, %w: tensor<16x32xf32, #coco.sliced<0>>) {
  // CHECK: coco.fused_kernel -> tensor<1024xf32, #coco.replicated> {
  // CHECK: coco.yield %{{.*}} : tensor<1024xf32, #coco.replicated>
  %k = coco.fused_kernel -> tensor<1024xf32, #coco.replicated> {
    %a = arith.mulf %p, %p : tensor<1024xf32, #coco.replicated>
    coco.yield %a : tensor<1024xf32, #coco.replicated>
  }
  // CHECK: coco.fused_collective -> tensor<1024xf32, #coco.replicated> {
  %f = coco.fused_collective -> tensor<1024xf32, #coco.replicated> {
    %s = coco.reduce_scatter sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>
    %t = arith.mulf %s, %s : tensor<1024xf32, #coco.sliced<0>>
    %r = coco.all_gather %t : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
    coco.yield %r : tensor<1024xf32, #coco.replicated>
  }
  // CHECK: coco.overlap chunks 4 -> tensor<8x32xf32, #coco.replicated> {
  %o = coco.overlap chunks 4 -> tensor<8x32xf32, #coco.replicated> {
    %m = coco.matmul %x, %w : tensor<8x16xf32, #coco.sliced<1>>, tensor<16x32xf32, #coco.sliced<0>> -> tensor<8x32xf32, #coco.local>
    %r = coco.all_reduce sum %m : tensor<8x32xf32, #coco.local> -> tensor<8x32xf32, #coco.replicated>
    coco.yield %r : tensor<8x32xf32, #coco.replicated>
  }
  return
}

// -----

// CHECK-LABEL: func.func @transpose_and_softmax
func.func @transpose_and_softmax(%k: tensor<64x32xf32, #coco.sliced<1>>, %s: tensor<8x8xf32, #coco.local>) {
  // CHECK: coco.transpose %{{.*}} : tensor<64x32xf32, #coco.sliced<1>> -> tensor<32x64xf32, #coco.sliced<0>>
  %kt = coco.transpose %k : tensor<64x32xf32, #coco.sliced<1>> -> tensor<32x64xf32, #coco.sliced<0>>
  // CHECK: coco.softmax %{{.*}} : tensor<8x8xf32, #coco.local>
  %p = coco.softmax %s : tensor<8x8xf32, #coco.local>
  return
}

// -----

// CHECK-LABEL: func.func @attention_heads
func.func @attention_heads(%q: tensor<64x256xf32, #coco.sliced<1>>, %k: tensor<8x32x64xf32, #coco.sliced<0>>) {
  // CHECK: coco.split_heads %{{.*}} : tensor<64x256xf32, #coco.sliced<1>> -> tensor<8x64x32xf32, #coco.sliced<0>>
  %qh = coco.split_heads %q : tensor<64x256xf32, #coco.sliced<1>> -> tensor<8x64x32xf32, #coco.sliced<0>>
  // CHECK: coco.matmul {{.*}} -> tensor<8x64x64xf32, #coco.sliced<0>>
  %s = coco.matmul %qh, %k : tensor<8x64x32xf32, #coco.sliced<0>>, tensor<8x32x64xf32, #coco.sliced<0>> -> tensor<8x64x64xf32, #coco.sliced<0>>
  // CHECK: coco.transpose %{{.*}} : tensor<8x32x64xf32, #coco.sliced<0>> -> tensor<8x64x32xf32, #coco.sliced<0>>
  %kt = coco.transpose %k : tensor<8x32x64xf32, #coco.sliced<0>> -> tensor<8x64x32xf32, #coco.sliced<0>>
  // CHECK: coco.merge_heads %{{.*}} : tensor<8x64x32xf32, #coco.sliced<0>> -> tensor<64x256xf32, #coco.sliced<1>>
  %m = coco.merge_heads %kt : tensor<8x64x32xf32, #coco.sliced<0>> -> tensor<64x256xf32, #coco.sliced<1>>
  return
}

// -----

// Routing ops (an MoE layer): argmax, reductions along dimensions, and
// broadcasts into any dimensions.
// CHECK-LABEL: func.func @routing
func.func @routing(%p: tensor<48x24xf32, #coco.sliced<0>>, %x: tensor<48x16xf32, #coco.sliced<0>>, %o: tensor<24x48x16xf32, #coco.sliced<1>>) {
  // CHECK: coco.argmax %{{.*}} {dim = 1 : i64} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<48xi64, #coco.sliced<0>>
  %e = coco.argmax %p {dim = 1 : i64} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<48xi64, #coco.sliced<0>>
  // CHECK: coco.reduce_elements max %{{.*}} {dims = array<i64: 1>} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<48xf32, #coco.sliced<0>>
  %g = coco.reduce_elements max %p {dims = array<i64: 1>} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<48xf32, #coco.sliced<0>>
  // A reduced sliced dimension leaves per-rank partial results.
  // CHECK: coco.reduce_elements sum %{{.*}} {dims = array<i64: 0>} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<24xf32, #coco.local>
  %load = coco.reduce_elements sum %p {dims = array<i64: 0>} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<24xf32, #coco.local>
  // CHECK: coco.reduce_elements sum %{{.*}} {dims = array<i64: 0>} : tensor<24x48x16xf32, #coco.sliced<1>> -> tensor<48x16xf32, #coco.sliced<0>>
  %c = coco.reduce_elements sum %o {dims = array<i64: 0>} : tensor<24x48x16xf32, #coco.sliced<1>> -> tensor<48x16xf32, #coco.sliced<0>>
  // CHECK: coco.expand %{{.*}} {dims = array<i64: 1, 2>} : tensor<48x16xf32, #coco.sliced<0>> -> tensor<24x48x16xf32, #coco.sliced<1>>
  %d = coco.expand %x {dims = array<i64: 1, 2>} : tensor<48x16xf32, #coco.sliced<0>> -> tensor<24x48x16xf32, #coco.sliced<1>>
  // CHECK: coco.expand %{{.*}} {dims = array<i64: 0>} : tensor<48xf32, #coco.sliced<0>> -> tensor<48x16xf32, #coco.sliced<0>>
  %gt = coco.expand %g {dims = array<i64: 0>} : tensor<48xf32, #coco.sliced<0>> -> tensor<48x16xf32, #coco.sliced<0>>
  return
}

// -----

// CHECK-LABEL: func.func @indexed
func.func @indexed(%x: tensor<48x16xf32, #coco.replicated>, %i: tensor<48xi64, #coco.sliced<0>>, %d: tensor<8x16xf32, #coco.local>, %j: tensor<48xi64, #coco.local>, %u: tensor<48x16xf32, #coco.local>) {
  // CHECK: coco.gather %{{.*}}[%{{.*}}] : tensor<48x16xf32, #coco.replicated>, tensor<48xi64, #coco.sliced<0>> -> tensor<48x16xf32, #coco.sliced<0>>
  %g = coco.gather %x[%i] : tensor<48x16xf32, #coco.replicated>, tensor<48xi64, #coco.sliced<0>> -> tensor<48x16xf32, #coco.sliced<0>>
  // CHECK: coco.scatter_add %{{.*}}[%{{.*}}], %{{.*}} : tensor<8x16xf32, #coco.local>, tensor<48xi64, #coco.local>, tensor<48x16xf32, #coco.local> -> tensor<8x16xf32, #coco.local>
  %s = coco.scatter_add %d[%j], %u : tensor<8x16xf32, #coco.local>, tensor<48xi64, #coco.local>, tensor<48x16xf32, #coco.local> -> tensor<8x16xf32, #coco.local>
  // Along dimension 1: `dim` comes before `drop`.
  // CHECK: coco.gather %{{.*}}[%{{.*}}] dim 1 drop : tensor<8x16xf32, #coco.local>, tensor<48xi64, #coco.local> -> tensor<8x48xf32, #coco.local>
  %gc = coco.gather %d[%j] dim 1 drop : tensor<8x16xf32, #coco.local>, tensor<48xi64, #coco.local> -> tensor<8x48xf32, #coco.local>
  // CHECK: coco.scatter_add %{{.*}}[%{{.*}}], %{{.*}} dim 1 : tensor<8x16xf32, #coco.local>, tensor<48xi64, #coco.local>, tensor<8x48xf32, #coco.local> -> tensor<8x16xf32, #coco.local>
  %sc = coco.scatter_add %d[%j], %gc dim 1 : tensor<8x16xf32, #coco.local>, tensor<48xi64, #coco.local>, tensor<8x48xf32, #coco.local> -> tensor<8x16xf32, #coco.local>
  // A source sliced along another dimension than the gathered one.
  // CHECK: coco.gather %{{.*}}[%{{.*}}] dim 1 : tensor<48x16xf32, #coco.sliced<0>>, tensor<4xi64, #coco.replicated> -> tensor<48x4xf32, #coco.sliced<0>>
  %xs = coco.slice %x : tensor<48x16xf32, #coco.replicated> -> tensor<48x16xf32, #coco.sliced<0>>
  %k = arith.constant dense<[3, 1, 4, 1]> : tensor<4xi64, #coco.replicated>
  %gs = coco.gather %xs[%k] dim 1 : tensor<48x16xf32, #coco.sliced<0>>, tensor<4xi64, #coco.replicated> -> tensor<48x4xf32, #coco.sliced<0>>
  return
}

// -----

// A scalar read out of a replicated tensor is the same on every rank; one
// read out of a local tensor may go back into a local tensor.
// CHECK-LABEL: func.func @uniform_scalars
func.func @uniform_scalars(%r: tensor<f32, #coco.replicated>, %l: tensor<f32, #coco.local>) -> (tensor<8xf32, #coco.replicated>, tensor<8xf32, #coco.local>) {
  // CHECK: tensor.extract
  %a = tensor.extract %r[] : tensor<f32, #coco.replicated>
  %as = tensor.splat %a : tensor<8xf32, #coco.replicated>
  %b = tensor.extract %l[] : tensor<f32, #coco.local>
  %c = arith.mulf %a, %b : f32
  %bs = tensor.splat %c : tensor<8xf32, #coco.local>
  return %as, %bs : tensor<8xf32, #coco.replicated>, tensor<8xf32, #coco.local>
}

// -----

// CHECK-LABEL: func.func @scan
func.func @scan(%m: tensor<64x8xi64, #coco.local>) -> tensor<64x8xi64, #coco.local> {
  // CHECK: coco.cumsum %{{.*}} dim 0 : tensor<64x8xi64, #coco.local> -> tensor<64x8xi64, #coco.local>
  %s = coco.cumsum %m dim 0 : tensor<64x8xi64, #coco.local> -> tensor<64x8xi64, #coco.local>
  return %s : tensor<64x8xi64, #coco.local>
}
