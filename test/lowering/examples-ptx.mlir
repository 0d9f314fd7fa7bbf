// PTX for every example (as written, 2 ranks): one module, the requested
// target, an entry per outlined loop nest, and the math: sqrt is always
// sqrt.rn (a definition of __nv_sqrtf that wins over libdevice's
// sqrt.approx); exp and tanh are coco's ex2-based fallback without
// libdevice, and NVIDIA's libdevice with --cuda-path (%cuda is the
// nvidia-cuda-nvcc-cu12 wheel in .venv). Every PTX of every example and
// schedule is assembled by ptxas in the compiled:: trials; execution on a
// GPU is scripts/gpu-check.sh; here the text is pinned.
// RUN: coco-translate ../examples/coco/sgd.mlir --emit=ptx --ranks 2 | FileCheck %s --check-prefix=SGD
// RUN: coco-translate ../examples/coco/adamw.mlir --emit=ptx --ranks 2 --chip sm_80 --ptx-version 78 | FileCheck %s --check-prefix=ADAMW
// RUN: coco-translate ../examples/coco/lamb.mlir --emit=ptx --ranks 2 | FileCheck %s --check-prefix=LAMB
// RUN: coco-translate ../examples/coco/lamb.mlir --emit=plan --ranks 2 | FileCheck %s --check-prefix=LAMBPLAN
// RUN: coco-translate ../examples/coco/megatron_mlp.mlir --emit=plan --ranks 2 | FileCheck %s --check-prefix=MLPPLAN
// RUN: coco-translate ../examples/coco/megatron_mlp.mlir --emit=ptx --ranks 2 | FileCheck %s --check-prefix=MLP
// RUN: coco-translate ../examples/coco/megatron_attention.mlir --emit=ptx --ranks 2 | FileCheck %s --check-prefix=ATTN
// RUN: coco-translate ../examples/coco/adamw.mlir --emit=ptx --ranks 2 --cuda-path %cuda | FileCheck %s --check-prefix=ADAMWLIB
// RUN: coco-translate ../examples/coco/megatron_mlp.mlir --emit=ptx --ranks 2 --cuda-path %cuda | FileCheck %s --check-prefix=MLPLIB
// RUN: coco-translate ../examples/coco/megatron_attention.mlir --emit=ptx --ranks 2 --cuda-path %cuda | FileCheck %s --check-prefix=ATTNLIB
// RUN: coco-translate ../examples/coco/megatron_attention.mlir --emit=plan --ranks 2 --cuda-path %cuda | FileCheck %s --check-prefix=PLANLIB
// RUN: coco-translate ../examples/coco/megatron_attention.mlir --emit=plan --ranks 2 | FileCheck %s --check-prefix=PLANFALLBACK

// SGD: .version 8.0
// SGD-NEXT: .target sm_90
// SGD-NOT: .extern
// SGD: .visible .entry sgd_k0_kernel(
// SGD-NEXT: .param .u64 sgd_k0_kernel_param_0,
// SGD-NEXT: .param .u64 sgd_k0_kernel_param_1
// SGD-NEXT: )
// SGD-NEXT: .maxntid 64, 1, 1
// SGD: mul.rn.f32

// ADAMW: .version 7.8
// ADAMW-NEXT: .target sm_80
// ADAMW-NOT: __nv_sqrtf
// ADAMW: .visible .entry adamw_k0_kernel(
// ADAMW: .visible .entry adamw_k9_kernel(
// ADAMW: sqrt.rn.f32
// ADAMW: div.rn.f32

// The norms are trees (kernel/tree_reduction.rs): a fill, 4096 partial sums
// of squares (16 elements per thread, coalesced), and one 1024-thread
// block that folds the partials and meets in gpu.all_reduce: warp
// shuffles, then the warps' sums through shared memory; thread 0 takes
// the correctly rounded square root.
// LAMB: .target sm_90
// LAMB-NOT: .extern
// LAMB: .visible .entry lamb_k0_kernel(
// LAMB: mul.rn.f32
// LAMB: .visible .entry lamb_k14_kernel_1(
// LAMB: .shared .align 4 .b8 __wg_lamb_k14_kernel_1_0[128];
// LAMB: shfl.sync.bfly.b32
// LAMB: bar.sync 0;
// LAMB: sqrt.rn.f32
// LAMB: .visible .entry lamb_k16_kernel(
// LAMBPLAN: name = "lamb_k14"
// LAMBPLAN-NEXT: buffers = [{ dtype = "f32", shape = [65536] }, { dtype = "f32", shape = [] }]
// LAMBPLAN-NEXT: computes = ["coco.norm"]
// LAMBPLAN-NEXT: gpu_scratch = [16384]
// LAMBPLAN: entry = "lamb_k14_kernel"
// LAMBPLAN-NEXT: grid = [64, 1, 1]
// LAMBPLAN-NEXT: block = [64, 1, 1]
// LAMBPLAN: entry = "lamb_k14_kernel_0"
// LAMBPLAN-NEXT: grid = [64, 1, 1]
// LAMBPLAN-NEXT: block = [64, 1, 1]
// LAMBPLAN-NEXT: params = [{ kind = "scratch", index = 0 }, { kind = "buffer", index = 0 }]
// LAMBPLAN: entry = "lamb_k14_kernel_1"
// LAMBPLAN-NEXT: grid = [1, 1, 1]
// LAMBPLAN-NEXT: block = [1024, 1, 1]
// LAMBPLAN-NEXT: params = [{ kind = "scratch", index = 0 }, { kind = "buffer", index = 1 }]

// Layer norm's row sums are trees too: partial sums of 256 threads per row
// (the thread index on x, so a warp reads 32 neighbouring elements), then
// a block per row (16 rows) meeting in gpu.all_reduce.
// MLPPLAN: computes = ["coco.layer_norm"]
// MLPPLAN: entry = "megatron_mlp_k17_kernel_{{[0-9]+}}"
// MLPPLAN-NEXT: grid = [4, 4, 1]
// MLPPLAN-NEXT: block = [64, 4, 1]
// MLPPLAN: entry = "megatron_mlp_k17_kernel_{{[0-9]+}}"
// MLPPLAN-NEXT: grid = [16, 1, 1]
// MLPPLAN-NEXT: block = [256, 1, 1]

// f16 storage, f32 arithmetic, tanh from coco's PTX.
// MLP: .target sm_90
// MLP-NOT: .extern
// MLP: .func {{.*}} __nv_tanhf(
// MLP: ex2.approx.f32
// MLP: copysign.f32
// MLP: .visible .entry megatron_mlp_k0_kernel(
// MLP: cvt.f32.f16
// MLP: cvt.rn.f16.f32

// ATTN: .target sm_90
// ATTN-NOT: .extern
// ATTN: .func {{.*}} __nv_expf(
// ATTN: ex2.approx.f32
// ATTN: .visible .entry megatron_attention_k0_kernel(

// With libdevice, sqrt stays sqrt.rn, and libdevice's exp and tanh are
// inlined: no function is left, and ex2 is the .ftz form libdevice uses
// after its own range reduction (the fallback's is plain ex2.approx.f32).
// ADAMWLIB-NOT: sqrt.approx
// ADAMWLIB: sqrt.rn.f32
// ADAMWLIB-NOT: sqrt.approx
// MLPLIB-NOT: .func
// MLPLIB-NOT: .extern
// MLPLIB: ex2.approx.ftz.f32
// ATTNLIB-NOT: .func
// ATTNLIB-NOT: .extern
// ATTNLIB: ex2.approx.ftz.f32

// The plan says which math the PTX has (the GPU check's tolerance).
// PLANLIB: [ptx]
// PLANLIB: libdevice = true
// PLANFALLBACK: [ptx]
// PLANFALLBACK-NOT: libdevice
