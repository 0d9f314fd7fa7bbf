//! The `df` dialect: record types, op names and the semantic verifier.

pub mod names;
pub mod ops;
pub mod types;
pub mod verify;

pub use types::FieldType;
