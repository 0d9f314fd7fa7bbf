// The native half: SGD's kernels for 2 ranks, compiled at -O3 for a pinned
// CPU (x86-64-v3, AVX2) so the output is the same on every machine. Each
// kernel takes bare pointers and the rank (the bundle's native ABI), its
// buffers are noalias (they never overlap), and the element-wise loop is
// vectorised 8 floats wide.
// RUN: coco-translate ../examples/coco/sgd.mlir --emit=llvm-ir --ranks 2 --mcpu x86-64-v3 | FileCheck %s

// CHECK: define void @sgd_k0(ptr noalias {{.*}}%0, ptr noalias {{.*}}%1, i64 {{.*}}%2)
// CHECK: load <8 x float>
// CHECK: fmul <8 x float>
// CHECK: store <8 x float>
// CHECK: define void @sgd_k1(
// CHECK: fsub <8 x float>
