//! Errors of the reference interpreter. Each names the tensor, op or
//! parameter at fault.

use thiserror::Error;

use crate::tensor::Scalar;

#[derive(Debug, Error)]
pub enum Error {
    #[error("{location}: '{op}' is not supported by the reference interpreter{detail}")]
    Unsupported {
        location: String,
        op: String,
        detail: String,
    },
    /// `what` leads with its location where it has one, so the message
    /// reads as the compiled backends' does.
    #[error("{what}: dimension {dim} of size {size} is sliced over {world} ranks, which does not divide it")]
    NotDivisible {
        world: usize,
        dim: usize,
        size: usize,
        what: String,
    },
    /// The world size does not split into the program's pipeline stages.
    #[error("{location}: {message}")]
    NotDivisibleByStages { location: String, message: String },
    #[error("{0}")]
    Program(String),
    #[error("missing input '{0}'")]
    MissingInput(String),
    #[error("input '{name}': expected {expected}, found {found}")]
    BadInput {
        name: String,
        expected: String,
        found: String,
    },
    #[error("{location}: the ranks hold different values for a #coco.replicated {what} (rank {rank} differs from rank 0 at element {index}: {a} vs {b})")]
    ReplicaMismatch {
        location: String,
        what: String,
        rank: usize,
        index: usize,
        a: Scalar,
        b: Scalar,
    },
    #[error("{what} needs {bytes} bytes in the reference interpreter, bringing its values to {total} bytes, over the limit of {limit} bytes ({set_by})")]
    OverMemory {
        what: String,
        bytes: u64,
        total: u64,
        limit: u64,
        set_by: String,
    },
    #[error("the reference interpreter would need about {total} element operations for this program, over the limit of {limit} ({set_by}); the costliest op is {op} with {work}")]
    OverWork {
        total: u64,
        op: String,
        work: u64,
        limit: u64,
        set_by: String,
    },
    #[error("{path}: {message}")]
    Npy { path: String, message: String },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
