//! CoCoNet's semantics-preserving transformations.

pub mod as_slice;
pub mod reorder;
pub mod split;
