//! The reference interpreter: the oracle of every differential test.
//!
//! It runs a coco program (before or after any pass) on N simulated ranks in
//! one process with true collective semantics ([`collective`]), emulates
//! f32/f16/bf16 by rounding after every operation ([`tensor`]), computes
//! integers exactly, wrapping at their width ([`integer`]), and draws
//! dropout masks from a counter-based generator keyed by (seed, global element
//! index), so masks do not depend on schedule or rank count. It shares no code
//! with the lowering, so a lowering bug cannot hide in shared code.

pub mod budget;
pub mod collective;
pub mod compute;
pub mod elementwise;
pub mod error;
pub mod exec;
pub mod integer;
pub mod npy;
pub mod program;
pub mod rng;
pub mod seeded;
pub mod tensor;

pub use budget::{Limits, WorkLimit};
pub use error::{Error, Result};
pub use program::{
    check_program, input_source_names, input_specs, output_specs, run, HostValue, Spec,
};
pub use seeded::{random_inputs, resolve_choices, seeded_inputs, Distribution, Number};
pub use tensor::{DType, Data, Scalar, Tensor};
