//! The `coco`, `df` and `bigtest` MLIR dialects.
//!
//! ODS (`td/`) defines their structure and assembly formats; build.rs turns it
//! into C++ registered with MLIR. Everything semantic is here, in Rust:
//! layouts (`coco::layout`), record types (`df::types`) and the verifiers
//! (`verify_module`). [`context`] is the one initializer every tool uses.

pub mod bigtest;
pub mod coco;
mod context;
pub mod df;
pub mod diagnostics;
pub mod docs;
pub mod error;
mod ffi;
pub mod ir;
pub mod lifetime;
pub mod nesting;
mod parse;
mod parse_guard;
pub mod rewrite;
pub mod upstream;
pub mod verify;

pub use context::{context, register_coco_dialects};
pub use error::{Error, Result};
pub use parse::{load_module, parse_module};
pub use verify::verify_module;
