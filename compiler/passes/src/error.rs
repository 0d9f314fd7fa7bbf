//! Errors running this wing's pipelines: the framework's (a bad pipeline or
//! option, a failed pass) and the autotuner's. Problems in the IR itself are
//! diagnostics emitted by the passes.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error(transparent)]
    Pass(#[from] coco_pass::Error),
    #[error("coco-autotune: {0}")]
    Autotune(String),
}

impl Error {
    /// A pass failed after emitting diagnostics that say why.
    pub fn is_failed_pass(&self) -> bool {
        matches!(self, Error::Pass(coco_pass::Error::Failed))
    }
}

impl From<melior::Error> for Error {
    fn from(error: melior::Error) -> Error {
        Error::Pass(error.into())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
