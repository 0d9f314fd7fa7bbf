//! The BigTest passes over df programs: JDU path enumeration
//! ([`jdu_paths`]), feasibility ([`solve`]) and verified test data
//! ([`emit`]). Results are `bigtest` dialect ops, so each step can be
//! printed and FileCheck-tested on its own. Each pass is a thin wrapper:
//! the analysis itself is the `coco-bigtest` crate.

pub mod emit;
pub mod jdu_paths;
pub mod solve;
