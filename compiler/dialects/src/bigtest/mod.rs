//! The `bigtest` dialect: analysis results as IR, and their verifier.

pub mod build;
pub mod path;
pub mod verify;

pub use build::{BigtestBuilder, PathStatus};
pub use path::{Guard, PathKey, PathRecord};

pub const JDU_PATH: &str = "bigtest.jdu_path";
pub const TEST_RECORD: &str = "bigtest.test_record";
