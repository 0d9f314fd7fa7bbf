//! The `coco` dialect: layouts, semantic verifier and op names.

pub mod layout;
pub mod ops;
pub mod verify;

pub use layout::{DistTensor, Layout};
