//! CoCoNet's semantics-preserving transformations.

pub mod reorder;
pub mod split;
