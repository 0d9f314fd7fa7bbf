//! The executor's errors. Every message is meant to be read on its own, on
//! one line, prefixed with the tool and the rank (`coco-exec: rank 3:
//! error: ...`), so each variant names what it is about: the input and the
//! file, the step and the buffer, the kernel, the MPI call.

use std::path::Path;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// The plan could not be read (the message names the file).
    #[error("{0}")]
    Bundle(#[from] coco_bundle::Error),
    /// An `.npy` file could not be read or written (the message names it).
    #[error("{0}")]
    Array(#[from] coco_base::Error),

    #[error("{path}: {message}")]
    Io { path: String, message: String },

    /// The job does not match the plan: world size, `--ranks`.
    #[error("{0}")]
    World(String),

    /// The plan is valid for `coco_bundle` but cannot run here (a shape that
    /// does not fit a collective, a wait on an event never recorded...).
    #[error("{0}")]
    Plan(String),

    #[error("input '{input}': no file {path}")]
    MissingInput { input: String, path: String },

    /// An input file that does not fit the buffer it fills.
    #[error("input '{input}': {message}")]
    Input { input: String, message: String },

    #[error("{0}")]
    Kernel(String),

    /// Two ranks that hold the same block of an output (replicas along a
    /// mesh axis) hold different values: a miscompiled step, never valid.
    #[error("output '{output}': positions {first} and {second} of stage @{function} hold the same block with different values (element {element} of the block)")]
    ReplicaMismatch {
        output: String,
        function: String,
        first: usize,
        second: usize,
        element: usize,
    },

    /// A step failed; `at` names the stage and the step.
    #[error("{at}: {source}")]
    Step { at: String, source: Box<Error> },

    #[error("MPI: {call} failed: {message}")]
    Mpi { call: &'static str, message: String },

    /// A wait longer than the watchdog's limit (`crate::watchdog`).
    #[error(
        "{call} made no progress for {seconds} s: another rank is stopped, hung or far \
         behind (the limit is set by --watchdog-s or {env}; 0: no limit)",
        env = crate::watchdog::WATCHDOG_ENV
    )]
    Stalled { call: &'static str, seconds: u64 },

    #[error("{0}")]
    Launch(String),

    /// coco-exec's command line does not parse, or asks for `--help` or
    /// `--version` (`Invocation::from_args`); `clap::Error::exit` prints it
    /// and exits as clap does.
    #[error("{0}")]
    Usage(clap::Error),

    /// Too little room for shared memory (`/dev/shm`, or the folder Open
    /// MPI's shared-memory windows are backed by).
    #[error("{0}")]
    SharedMemory(String),

    /// A panic, caught and turned into an error so that the job still ends
    /// with one line and `MPI_Abort`.
    #[error("internal error: {0}")]
    Internal(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: &Path, error: std::io::Error) -> Error {
        Error::Io {
            path: path.display().to_string(),
            message: error.to_string(),
        }
    }
}
