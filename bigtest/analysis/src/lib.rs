//! BigTest (ESEC/FSE'19) over df programs, as plain Rust on top of the df
//! program model (`coco-dataflow`) and the SMT layer (`coco-smt`).
//!
//! The passes `bigtest-jdu-paths`, `bigtest-solve` and `bigtest-emit`
//! (in `coco-passes`) are thin wrappers over this crate, and `coco-bigtest`
//! is a thin tool over both; everything that decides a result lives here:
//!
//! * [`extract`]: df IR → [`coco_dataflow::model::Program`].
//! * [`symbolic`] and [`term`]: symbolic execution of UDFs into SMT terms.
//! * [`enumerate`]: JDU paths (dataflow classes × UDF paths, bounded by k).
//! * [`feasibility`]: one solver query per path, on all cores.
//! * [`generate`]: concrete records per path, verified by the interpreter;
//!   coverage of any dataset. [`natural`]: the values it prefers;
//!   [`distinguish`]: the records it adds to tell faults apart.
//! * [`results`]: reading the `bigtest` ops the passes leave in a module.
//! * [`bounds`]: the analysis's options (k, solver timeout), defined once.
//! * [`coverage`], [`mutation`], [`report`], [`testdata`] and [`output`]:
//!   what `coco-bigtest` measures, writes and prints.
//! * [`error`]: what goes wrong outside the IR (solver, interpreter runs,
//!   the output folder).

pub use error::{Error, Result};

pub mod bounds;
pub mod coverage;
pub mod distinguish;
pub mod enumerate;
pub mod error;
pub mod extract;
pub mod feasibility;
pub mod generate;
pub mod mutation;
pub mod natural;
pub mod output;
pub mod report;
pub mod results;
pub mod symbolic;
pub mod term;
pub mod testdata;
