//! CoCoNet's semantics-preserving transformations.

pub mod as_slice;
pub mod fuse;
pub mod overlap;
pub mod partial_reduce;
pub mod reorder;
pub mod split;
pub mod tile;
