// RUN: coco-opt ../examples/coco/paper/adam_bert_large.mlir --coco-autotune=v100-cluster --autotune-report 2>&1 >/dev/null | FileCheck %s --check-prefix=ADAM
// RUN: coco-opt ../examples/coco/paper/lamb_bert_large.mlir --coco-autotune=v100-cluster --autotune-report 2>&1 >/dev/null | FileCheck %s --check-prefix=LAMB
// RUN: coco-opt ../examples/coco/paper/megatron_mlp_gpt2.mlir --coco-autotune=v100-cluster --autotune-ranks=16 --autotune-report 2>&1 >/dev/null | FileCheck %s --check-prefix=MEGATRON
//
// On CoCoNet's testbed (16 nodes x 16 V100) the autotuner picks the paper's
// winning schedules: fuse(RS_C_AG) with sliced optimizer state for Adam and
// LAMB on 256 ranks (for LAMB with the trust ratio's norms from per-slice
// partial sums and a scalar all_reduce, which saves the all_gather of the
// update: predicted 32.5 ms against 49.8 ms with gathered norms), and
// overlap(MM, fuse(RS_C_AG)) for the Megatron-LM MLP block with 16-way model
// parallelism.

// ADAM: coco-autotune: v100-cluster ({{.*}}), 256 ranks
// ADAM: {{^}}//    1 {{.*}} fuse(RS_C_AG+as-slice)  [
// ADAM: // chosen: fuse(RS_C_AG+as-slice) --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-fuse)'

// LAMB: {{^}}//    1 {{.*}} fuse(RS_C_AG+as-slice+partial-reduce)  [
// LAMB: {{^}}//    4 {{.*}} fuse(RS_C_AG+as-slice)  [
// LAMB: // chosen: fuse(RS_C_AG+as-slice+partial-reduce) --pass-pipeline='builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-partial-reduce,canonicalize,cse,coco-fuse)'


// MEGATRON: coco-autotune: v100-cluster ({{.*}}), 16 ranks
// MEGATRON: {{^}}//    1 {{.*}} overlap(MM, fuse(RS_C_AG)) x{{[0-9]+}}  [
// MEGATRON: // chosen: overlap(MM, fuse(RS_C_AG))
