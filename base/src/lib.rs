//! The leaf of coco's crate graph: what the compiler, the runtime and the
//! tools all share and that needs neither MLIR nor LLVM.
//!
//! * [`class_pattern`]: Python regular expressions of one character
//!   class (`\W+`, `[,;]`), with Python's meaning, for `re.split` and
//!   `re.findall` in df programs.
//! * [`dtype`]: element types ([`DType`]), their MLIR spelling, sizes and
//!   `.npy` descriptors; every layer names element types through it.
//! * [`file`]: opening untrusted input files (regular files only).
//! * [`host`]: the host language of a df program (`df.host`), named for
//!   the df dialect and the dataflow model alike.
//! * [`job`]: a launcher's ownership of its job: the processes it starts
//!   and its temporary folders end with it, on a signal or a kill.
//! * [`memory`]: the memory limit (`COCO_MAX_MEMORY_BYTES`) the executor
//!   and the interpreter check before allocating.
//! * [`npy`]: reading and writing `.npy` arrays (program inputs, outputs
//!   and reference results).
//! * [`sha256`]: the digests a bundle's plan records of its kernels.
//! * [`staged`]: outputs written to a temporary sibling and renamed into
//!   place, whole or not at all.

pub mod class_pattern;
pub mod dtype;
pub mod error;
pub mod file;
pub mod host;
pub mod job;
pub mod memory;
pub mod npy;
pub mod sha256;
pub mod staged;

pub use dtype::DType;
pub use error::{Error, Result};
