//! The reference interpreter. Not built yet.
//!
//! It will execute coco programs (before or after any pass) on N simulated
//! ranks in one process with true collective semantics and faithful
//! f32/f16/bf16 rounding, and df programs with Spark's operator semantics. It
//! is the oracle of every differential test, so it shares no code with
//! `coco-lowering`: a lowering bug cannot hide in shared code.
