use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{path}: not a valid .npy file: {message}")]
    Npy { path: String, message: String },
    #[error("{path}: holds {found}, expected {expected}")]
    NpyDtype {
        path: String,
        found: String,
        expected: String,
    },
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn io(path: &std::path::Path, error: std::io::Error) -> Error {
        Error::Io {
            path: path.display().to_string(),
            message: error.to_string(),
        }
    }
}
