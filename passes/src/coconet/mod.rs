//! CoCoNet's semantics-preserving transformations.

pub mod as_slice;
pub mod fuse;
pub mod reorder;
pub mod split;
