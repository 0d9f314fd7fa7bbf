//! Errors building or running pass pipelines. Problems in the IR itself are
//! diagnostics emitted by the passes.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error("invalid pass pipeline '{pipeline}': {message}")]
    Pipeline { pipeline: String, message: String },
    #[error("{pass}: {message}")]
    PassOption { pass: String, message: String },
    /// A pass failed after emitting diagnostics that say why.
    #[error("a pass failed (see its diagnostics)")]
    Failed,
    #[error(transparent)]
    Melior(#[from] melior::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
