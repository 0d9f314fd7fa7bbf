//! BigTest (ESEC/FSE'19) over df programs: JDU path enumeration by symbolic
//! execution of UDFs ([`jdu_paths`]), feasibility with Z3 ([`solve`]) and
//! verified test data ([`emit`]). Results are `bigtest` dialect ops, so each
//! step can be printed and FileCheck-tested on its own.

pub mod emit;
pub mod enumerate;
pub mod extract;
pub mod generate;
pub mod jdu_paths;
pub mod results;
pub mod solve;
pub mod symbolic;
pub mod term;
