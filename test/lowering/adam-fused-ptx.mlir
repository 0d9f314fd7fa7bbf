// The flagship's autotuned schedule, fuse(RS_C_AG) with sliced moments,
// compiled for 4 ranks. As the cuda backend runs it (collective steps,
// `--fused-collectives=steps`): the whole optimizer is one PTX kernel over a
// quarter of the parameters, sqrt is PTX's correctly rounded sqrt.rn.f32
// (no libdevice), and the plan is reduce_scatter -> kernel -> all_gather,
// writing the moments in place and gathering straight into the parameters.
// As a peer launch (the default): the same code generation gives one PTX
// kernel whose peer parts are plain pointer parameters (part `rank` of the
// gradient on each of the 4 ranks, the parameters' part on the 3 others),
// the GPU form of the one-kernel fused collective.
// RUN: coco-opt ../examples/coco/adam.mlir --coco-autotune=v100-cluster | coco-translate - --emit=ptx --ranks 4 --fused-collectives=steps | FileCheck %s --check-prefix=PTX
// RUN: coco-opt ../examples/coco/adam.mlir --coco-autotune=v100-cluster | coco-translate - --emit=plan --ranks 4 --fused-collectives=steps | FileCheck %s --check-prefix=PLAN
// RUN: coco-opt ../examples/coco/adam.mlir --coco-autotune=v100-cluster | coco-translate - --emit=ptx --ranks 4 --chip sm_70 --ptx-version 70 --fused-collectives=steps | FileCheck %s --check-prefix=SM70
// RUN: coco-opt ../examples/coco/adam.mlir --coco-autotune=v100-cluster | coco-translate - --emit=ptx --ranks 4 | FileCheck %s --check-prefix=PEER
// RUN: coco-opt ../examples/coco/adam.mlir --coco-autotune=v100-cluster | coco-translate - --emit=plan --ranks 4 | FileCheck %s --check-prefix=PEERPLAN

// PEER: .visible .entry adam_k0_kernel(
// PEER-COUNT-13: .param .u64 adam_k0_kernel_param_{{[0-9]+}}
// PEER-NEXT: )
// PEER: ld.global.f32
// PEER: add.rn.f32
// PEER: st.global.f32
// PEER-NOT: .entry

// PEERPLAN: name = "adam_k0"
// PEERPLAN-NEXT: buffers = [{ dtype = "f32", shape = [65536] }, {{.*}}]
// PEERPLAN: op = "peer_launch"
// PEERPLAN-NEXT: kernel = "adam_k0"
// PEERPLAN-NEXT: buffers = ["arg2", "arg3", "arg5", "arg6", "arg4", "{{.*}}_part"]
// PEERPLAN-NEXT: peer_reads = ["arg0"]
// PEERPLAN-NEXT: peer_writes = ["arg1"]
// PEERPLAN-NOT: op =

// PTX: .version 8.0
// PTX-NEXT: .target sm_90
// PTX-NEXT: .address_size 64
// PTX-NOT: .extern
// PTX: .visible .entry adam_k0_kernel(
// PTX-COUNT-8: .param .u64 adam_k0_kernel_param_{{[0-9]+}}
// PTX-NEXT: )
// PTX-NEXT: .maxntid 64, 1, 1
// PTX: ld.global.f32
// PTX: sqrt.rn.f32
// PTX: div.rn.f32
// PTX: st.global.f32
// PTX-NOT: .entry

// PLAN: format = "coco-bundle"
// PLAN: version = 4
// PLAN: ranks = 4
// PLAN: {{\[\[}}kernels]]
// PLAN-NEXT: name = "adam_k0"
// PLAN-NEXT: buffers = [{ dtype = "f32", shape = [65536] }, { dtype = "f32", shape = [65536] }, { dtype = "f32", shape = [65536] }, { dtype = "f32", shape = [] }, { dtype = "f32", shape = [] }, { dtype = "f32", shape = [] }, { dtype = "f32", shape = [65536] }, { dtype = "f32", shape = [65536] }]
// PLAN: {{\[\[}}kernels.gpu_launches]]
// PLAN-NEXT: entry = "adam_k0_kernel"
// PLAN-NEXT: grid = [1024, 1, 1]
// PLAN-NEXT: block = [64, 1, 1]
// PLAN-NOT: {{\[\[}}kernels]]
// PLAN: name = "arg2"
// PLAN-NEXT: dtype = "f32"
// PLAN-NEXT: shape = [65536]
// PLAN: layout = "sliced-0"
// PLAN: [stages.buffers.view]
// PLAN-NEXT: of = "arg1"
// PLAN-NEXT: offset = 0
// PLAN-NEXT: rank_stride = 65536
// PLAN: op = "reduce_scatter"
// PLAN-NEXT: reduction = "avg"
// PLAN-NEXT: input = "arg0"
// PLAN: op = "launch"
// PLAN-NEXT: kernel = "adam_k0"
// PLAN-NEXT: buffers = ["reduce_scatter_0", "arg2", "arg3", "arg5", "arg6", "arg4", "slice1", "t4"]
// PLAN: op = "all_gather"
// PLAN-NEXT: input = "t4"
// PLAN-NEXT: output = "arg1"
// PLAN-NOT: op = "copy"

// SM70: .version 7.0
// SM70-NEXT: .target sm_70
// SM70: .visible .entry adam_k0_kernel(
