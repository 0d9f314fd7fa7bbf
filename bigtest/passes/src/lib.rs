//! The BigTest wing's passes over df programs: JDU path enumeration
//! ([`jdu_paths`]), feasibility ([`solve`]) and verified test data
//! ([`emit`]). Results are `bigtest` dialect ops, so each step can be
//! printed and FileCheck-tested on its own. Each pass is a thin wrapper:
//! the analysis itself is the `coco-bigtest` crate.
//!
//! A tool offers these passes by adding [`PASSES`] to its registry
//! (tools/src/passes.rs); `coco-bigtest` builds its pipeline from values
//! with the typed constructors ([`jdu_paths::pass`], [`solve::pass`],
//! [`emit::pass`]) instead of pipeline text.

pub mod emit;
pub mod jdu_paths;
pub mod solve;

use coco_pass::PassInfo;

/// This wing's pass table, in the order `--list-passes` shows them.
pub const PASSES: &[PassInfo] = &[jdu_paths::INFO, solve::INFO, emit::INFO];
