//! Errors of the lowering. A construct the lowering cannot compile is an
//! error located at the op, never a silently wrong kernel.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The program uses something the lowering does not compile (yet).
    #[error("{location}: {message}")]
    Unsupported { location: String, message: String },
    /// An upstream pipeline rejected a generated kernel module: a lowering
    /// bug, reported with MLIR's diagnostics and the pipeline.
    #[error(
        "internal error: the {stage} pipeline failed on the generated kernels:\n{diagnostics}"
    )]
    Upstream { stage: String, diagnostics: String },
    /// LLVM code generation or linking failed.
    #[error("{0}")]
    Codegen(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn unsupported(location: impl Into<String>, message: impl Into<String>) -> Error {
        Error::Unsupported {
            location: location.into(),
            message: message.into(),
        }
    }

    pub fn io(path: &std::path::Path, error: std::io::Error) -> Error {
        Error::Io {
            path: path.display().to_string(),
            message: error.to_string(),
        }
    }
}
