//! coco → upstream dialects → PTX / native code. Not built yet.
//!
//! This crate will hold, one module per op family (as Triton's
//! `TritonGPUToLLVM` does): coco computations to linalg/tensor/arith/math,
//! bufferization, GPU outlining and NVVM lowering to PTX (via
//! `gpu-module-to-binary{format=isa}` or inkwell's NVPTX target machine),
//! LLVM lowering to native objects, the runtime-call emission for
//! collectives, and the versioned bundle format the executor reads.
//!
//! It depends on `coco-dialects` (never on passes or tools) and on inkwell,
//! which shares LLVM 19 with MLIR in one binary.
