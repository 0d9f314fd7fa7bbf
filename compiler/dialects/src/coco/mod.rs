//! The `coco` dialect: layouts, semantic verifier and op names.

pub mod build;
pub mod layout;
pub mod ops;
pub mod rules;
pub mod verify;
pub mod world;

pub use build::CocoBuilder;
pub use layout::{DistTensor, Layout, LocalShapeError};
pub use ops::Reduction;
pub use rules::{infer_result_layout, LayoutPattern};
