//! The bundle format: what `coco-translate --emit=bundle` writes and the
//! executor reads. It is the API boundary between the compiler (which links
//! MLIR and LLVM) and the runtime (which must not), so it lives in a crate
//! that depends on neither.
//!
//! A bundle is a directory:
//!
//! ```text
//! plan.toml      the execution plan (this crate's `Plan`), versioned
//! program.mlir   the coco program compiled (for reference runs and checks)
//! kernels.ptx    every kernel for the CUDA backend (absent with --no-ptx)
//! kernels.so     every kernel for the CPU backend, as a shared library
//! kernels.o      the same kernels as a relocatable object, for linking
//! kernels.ll     the LLVM IR the native code was compiled from
//! ```
//!
//! The format is documented in `docs/bundle.md`.

pub mod artifact;
pub mod error;
pub mod mesh;
pub mod plan;
mod validate;

pub use artifact::{read_verified, Digest};
/// The plan's schema names element types; they are defined once, in coco-base.
pub use coco_base::DType;
pub use error::{Error, Result};
pub use mesh::{Blocks, MeshAxis};
pub use plan::{
    Buffer, BufferType, GpuLaunch, Io, IoLayout, Kernel, LaunchParam, Plan, Reduction, Scalar,
    Stage, Step, View, FORMAT_NAME, FORMAT_VERSION, PLAN_FILE,
};
pub use validate::check_file_name;
