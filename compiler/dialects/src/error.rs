//! Errors of this crate. Problems in a user's IR are diagnostics, not errors;
//! these are for plumbing.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// Parsing failed; the diagnostics say why.
    #[error("{0}: could not parse the input")]
    Parse(String),
    /// Semantic verification found errors; the diagnostics say which.
    #[error("{file}: {count} verification error(s)")]
    Verify { file: String, count: usize },
    /// A builder was asked for an op its inputs do not allow.
    #[error("cannot build {op}: {message}")]
    Build { op: String, message: String },
    #[error(transparent)]
    Melior(#[from] melior::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
