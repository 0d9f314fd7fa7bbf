//! Errors of the analysis outside the IR (those have a location:
//! [`crate::extract::ExtractError`], [`crate::enumerate::EnumError`]):
//! the solver, the interpreter runs that check test data, and the output
//! folder of `coco-bigtest generate`. Paths and owners in them are shown
//! escaped (`coco_dataflow::text::escape`), as the tool prints them.

use thiserror::Error;

use crate::output::MANIFEST;

#[derive(Debug, Error)]
pub enum Error {
    /// A value the symbolic encoding has no equality for.
    #[error("comparing lists split from input text is not modelled")]
    SplitListComparison,

    /// A script the solver cannot read, or a model it cannot give.
    #[error(transparent)]
    Smt(#[from] coco_smt::Error),
    /// A solver query whose answer never came back.
    #[error("no answer")]
    NoAnswer,
    /// Z3 gave up on a path `bigtest-solve` had found satisfiable
    /// (`reason`: "timeout", or Z3's own).
    #[error("solver gave up ({reason})")]
    SolverGaveUp { reason: String },
    /// The program failed to run on the data (not a UDF failure, which is
    /// part of a run).
    #[error(transparent)]
    Run(#[from] coco_dataflow::interp::Error),

    /// A source whose data file name is not a plain file name.
    #[error("{owner}: data file {problem}")]
    DataFileName { owner: String, problem: String },

    // The output folder, `-o OUTPUT`.
    #[error("-o {output}: exists and is not a folder")]
    OutputNotFolder { output: String },
    #[error("-o {output}: not a folder name")]
    NotFolderName { output: String },
    #[error("-o {output}: {source}")]
    OutputUnreadable {
        output: String,
        source: std::io::Error,
    },
    /// A non-empty folder that no earlier run wrote.
    #[error("-o {output}: the folder is not empty and holds no {MANIFEST}, so it is not an earlier coco-bigtest output; refusing to write into it (choose a new or empty folder)")]
    ForeignFolder { output: String },
    #[error("-o {output}: {manifest} is not a coco-bigtest manifest; refusing to write into a folder coco-bigtest did not create")]
    NotManifest { output: String, manifest: String },
    #[error("cannot read {manifest}: {source}")]
    ReadManifest {
        manifest: String,
        source: std::io::Error,
    },
    /// A manifest line naming a path outside the output.
    #[error("{manifest}:{line}: \"{path}\" is not a path inside the output folder")]
    ManifestOutside {
        manifest: String,
        line: usize,
        path: String,
    },
    /// A file claimed outside the output.
    #[error("{owner}: \"{path}\" is not a path inside the output folder")]
    ClaimOutside { owner: String, path: String },
    /// Two owners of one file (or of a file and a folder on its way).
    #[error("{owner} and {other} would both write {path}; give one of them another name (a source's data file is the base name of its path, or <name>.txt for inline records)")]
    SharedFile {
        owner: String,
        other: String,
        path: String,
    },
    /// A file in the output that the new output would replace and the old
    /// manifest does not list.
    #[error("{path} exists and was not written by coco-bigtest (it is not in {MANIFEST}); move it away or choose another -o")]
    NotWrittenByUs { path: String },
    #[error("{path} is a symbolic link; coco-bigtest writes only inside -o {output}")]
    SymbolicLink { path: String, output: String },
    #[error("-o {output}: cannot create {folder}: {source}")]
    CreateParent {
        output: String,
        folder: String,
        source: std::io::Error,
    },
    #[error("cannot create a staging folder beside the output, {folder}: {source}")]
    CreateStaging {
        folder: String,
        source: std::io::Error,
    },
    #[error("cannot create {folder}: {source}")]
    CreateFolder {
        folder: String,
        source: std::io::Error,
    },
    #[error("cannot write {file}: {source}")]
    Write {
        file: String,
        source: std::io::Error,
    },
    #[error("cannot write the manifest: {source}")]
    WriteManifest { source: std::io::Error },
    #[error("cannot move the output into {output}: {source}")]
    MoveOutput {
        output: String,
        source: std::io::Error,
    },
    #[error("cannot move {file} into place: {source}")]
    MoveIntoPlace {
        file: String,
        source: std::io::Error,
    },
    #[error("cannot remove {file}: {source}")]
    Remove {
        file: String,
        source: std::io::Error,
    },
    #[error("cannot lock {folder} to put -o {output} in place: {source}")]
    Lock {
        folder: String,
        output: String,
        source: std::io::Error,
    },
    #[error("-o {output}: another process has held the lock on {folder} for more than {seconds} s (another coco-bigtest generate into it?); try again later")]
    LockHeld {
        output: String,
        folder: String,
        seconds: u64,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
