//! coco's pass framework, shared by every wing that has passes (the CoCoNet
//! passes in `coco-passes`, the BigTest passes in `coco-bigtest-passes`).
//!
//! * [`PassInfo`]: a pass's argument, summary, contract, typed options and
//!   constructor; a wing exports a table of them.
//! * [`options`]: typed options (integer with a default and a range, bool,
//!   choice, text), declared once and read back by type.
//! * [`module_pass`]: the glue that makes a Rust [`module_pass::ModulePass`]
//!   an MLIR pass.
//! * [`registry`]: the passes a tool offers, composed from the wings' tables
//!   plus the upstream MLIR list (as circt-opt registers its dialects' passes).
//! * [`pipeline`]: parses `builtin.module(coco-verify, func.func(cse))`.
//! * [`manager`]: fills a pass manager from a parsed pipeline, creating Rust
//!   passes from the registry and handing the rest to MLIR's own parser.
//! * [`docs`]: `docs/passes.md` from a registry.

pub mod docs;
pub mod error;
pub mod manager;
pub mod module_pass;
pub mod options;
pub mod pipeline;
pub mod registry;

pub use error::{Error, Result};
pub use registry::{PassInfo, Registry};
