//! The fault-and-bad-input harness (`coco-fault`): it runs the built tools
//! as a user or a hostile input would (mangled IR, corrupt `.npy` and
//! `plan.toml` files, path tricks, huge sizes, exact-integer programs with
//! known answers, killed and stopped ranks) and counts how each run ended.
//! Process-level on purpose: a crash, a hang or a process left running is
//! only visible from outside.
//!
//! `mangle` is also the mutator of the in-process fuzz smoke test
//! (test/src/fuzz.rs).

pub mod cases;
pub mod mangle;
pub mod process;
pub mod sandbox;
pub mod tally;
