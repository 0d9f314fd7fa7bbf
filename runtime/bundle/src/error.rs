use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error(transparent)]
    Base(#[from] coco_base::Error),
    #[error("{path}: {message}")]
    Plan { path: String, message: String },
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
