//! CoCoNet's semantics-preserving transformations.

pub mod split;
