//! The `coco` dialect: layouts, semantic verifier, op names and the op facts
//! table.

pub mod build;
pub mod facts;
pub mod layout;
pub mod mesh;
pub mod ops;
pub mod rules;
pub mod summation;
pub mod verify;
pub mod world;

pub use build::{CocoBuilder, OnAxis};
pub use facts::{facts, OpFacts};
pub use layout::{DistTensor, Layout, LocalShapeError};
pub use mesh::{Mesh, MeshDecl, Placement};
pub use ops::Reduction;
pub use rules::{infer_result_layout, LayoutPattern};
