//! The bundle executor. Not built yet.
//!
//! It will read a bundle (kernels as PTX or native objects plus an execution
//! plan) and run it: native kernels and MPI collectives on the CPU backend,
//! cudarc kernel launches and NCCL collectives on the CUDA backend. It must
//! never depend on MLIR or LLVM, so that it ships to clusters as a small
//! binary; the bundle format is its API boundary.

/// The bundle format version this executor reads.
pub const BUNDLE_FORMAT_VERSION: u32 = 0;
