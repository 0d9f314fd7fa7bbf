//! The CoCoNet wing's passes, built on the pass framework (`coco-pass`).
//!
//! * [`registry`]: this wing's table of [`coco_pass::PassInfo`] ([`PASSES`]).
//! * [`driver`]: runs a parsed pipeline on a module, `coco-optimize` steps
//!   (the autotuner's choice) included; the tools' one way to run passes.
//! * One module per pass: [`verify`] (`coco-verify`), the CoCoNet
//!   transformations in [`coconet`], the autotuner in [`autotune`];
//!   test-only passes that expose analyses to lit tests live in [`testing`]
//!   (`test-coco-layouts`).

pub mod autotune;
pub mod coconet;
pub mod driver;
pub mod error;
pub mod registry;
pub mod testing;
pub mod verify;

pub use error::{Error, Result};
pub use registry::{PASSES, TEST_PASSES};
