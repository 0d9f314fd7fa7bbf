// NVIDIA's ptxas as the judge of coco's PTX: --resource-usage assembles
// the PTX with the CUDA path's ptxas (-v --warning-as-error) and prints
// each kernel's registers, spills, shared memory and stack on stderr, in
// kernel order. (FileCheck reads runs of spaces as one.) %cuda is the nvidia-cuda-nvcc-cu12 wheel in .venv.
// RUN: coco-translate ../examples/coco/lamb.mlir --emit=ptx --ranks 2 --cuda-path %cuda --resource-usage -o %t 2>&1 | FileCheck %s --check-prefix=LAMB
// RUN: coco-translate ../examples/coco/adam.mlir --emit=bundle --ranks 2 --chip sm_80 --cuda-path %cuda --resource-usage -o %t.bundle 2>&1 | FileCheck %s --check-prefix=ADAM80
// RUN: not coco-translate ../examples/coco/adam.mlir --emit=plan --cuda-path %cuda --resource-usage 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: not coco-translate ../examples/coco/adam.mlir --emit=ptx --cuda-path lowering/kernels --resource-usage 2>&1 | FileCheck %s --check-prefix=NOLIB

// LAMB: resource usage on sm_90 (ptxas -v):
// LAMB-NEXT: kernel registers spill stores spill loads shared bytes stack bytes
// LAMB-NEXT: lamb_k0_kernel {{[0-9]+}} 0 0 {{[0-9]+}} 0
// LAMB-NEXT: lamb_k1_kernel {{[0-9]+}} 0 0
// LAMB-NEXT: lamb_k2_kernel

// ADAM80: resource usage on sm_80 (ptxas -v):
// ADAM80: adam_k0_kernel {{[0-9]+}} 0 0 0 0

// PLAN: coco-translate: error: --resource-usage reports on PTX: use it with --emit=ptx or --emit=bundle

// NOLIB: coco-translate: error: --cuda-path: lowering/kernels has no nvvm/libdevice/libdevice.10.bc: name a CUDA toolkit, or the nvidia-cuda-nvcc-cu12 wheel's nvidia/cuda_nvcc folder (scripts/setup.sh installs it into .venv)
