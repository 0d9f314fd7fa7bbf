//! Front-end errors: each points at the Python source (`job.py:12:9`).

use std::fmt;

/// A position in the Python file: 1-based line and column (characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl Loc {
    /// The MLIR location of this position: `loc("job.py":12:9)`.
    pub fn mlir(&self) -> String {
        format!(
            "loc({}:{}:{})",
            crate::ir::string_literal(&self.file),
            self.line,
            self.column
        )
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Python the front end does not translate: `construct` names it
    /// ("dict literals are not supported in a UDF").
    #[error("{loc}: {message}")]
    Unsupported { loc: Loc, message: String },
    /// The file is not Python (CPython's own parser rejects it).
    #[error("{loc}: invalid Python: {message}")]
    Syntax { loc: Loc, message: String },
    /// Python itself could not be run.
    #[error("cannot run the Python parser ({python}): {reason}")]
    Python { python: String, reason: String },
}

impl ImportError {
    pub fn loc(&self) -> Option<&Loc> {
        match self {
            ImportError::Unsupported { loc, .. } | ImportError::Syntax { loc, .. } => Some(loc),
            ImportError::Python { .. } => None,
        }
    }
}

pub type Result<T> = std::result::Result<T, ImportError>;

/// An unsupported-construct error at `loc`.
pub fn unsupported<T>(loc: &Loc, message: impl Into<String>) -> Result<T> {
    Err(ImportError::Unsupported {
        loc: loc.clone(),
        message: message.into(),
    })
}
