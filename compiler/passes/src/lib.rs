//! coco's passes and how pipelines are built from text.
//!
//! * [`registry`]: every coco pass's [`registry::PassInfo`] (argument,
//!   summary, options, constructor) and the upstream pass list.
//! * [`pipeline`]: parses `builtin.module(coco-verify, func.func(cse))` and
//!   fills a melior pass manager, creating Rust passes for coco arguments and
//!   handing everything else to MLIR's own pipeline parser.
//! * [`driver`]: runs a parsed pipeline on a module, `coco-optimize` steps
//!   (the autotuner's choice) included; the tools' one way to run passes.
//! * One module per pass: [`verify`] (`coco-verify`); test-only passes that
//!   expose analyses to lit tests live in [`testing`] (`test-coco-layouts`).

pub mod autotune;
pub mod bigtest;
pub mod coconet;
pub mod driver;
pub mod error;
pub mod module_pass;
pub mod options;
pub mod pipeline;
pub mod registry;
pub mod testing;
pub mod verify;

pub use error::{Error, Result};
