//! The bundle executor: runs a compiled coco bundle (`coco-translate
//! --emit=bundle`) on CPUs, one MPI rank per rank of the plan, with the
//! native kernels of `kernels.so` and MPI collectives.
//!
//! It must never depend on MLIR or LLVM (the layering test, `test/src/layers.rs`, checks), so that
//! it ships to clusters as a small binary: the bundle format (`coco-bundle`)
//! is its only interface with the compiler.
//!
//! # Usage
//!
//! ```text
//! coco-exec BUNDLE --inputs DIR [--outputs DIR] [--ranks N] [--timing] [--exact-reductions]
//! ```
//!
//! Run without a launcher, `coco-exec` starts itself under `mpirun` with
//! the number of ranks the bundle was compiled for (as `torchrun` does) and
//! exits with the job's status; started by a launcher (`mpirun -n N
//! coco-exec ...`, `srun`), each process runs its rank. Inputs are read from
//! `DIR/<name>.npy`, outputs written to `DIR/<name>.npy`, with the names and
//! layouts in the plan (see [`io`] for how files map to ranks; they follow
//! the reference interpreter's convention, so its files can be fed in and
//! its outputs compared). On any error, the failing rank prints one line,
//! `coco-exec: rank R: error: ...`, and the whole job is aborted with exit
//! status 1; no rank is left waiting in a collective.
//!
//! From Rust (what `coco-run` does to run a bundle it compiled): one
//! [`Invocation`], run in this process or written as coco-exec's command
//! line (the same one coco-exec parses):
//!
//! ```ignore
//! use coco_runtime::{launch, Invocation, Options};
//! let invocation = Invocation { bundle, inputs, outputs: Some(outputs), watchdog_s: None,
//!                               max_ranks: None, options: Options::default() };
//! if launch::under_mpi() {
//!     // One rank: returns on success, aborts the job on error.
//!     let report = invocation.run_rank("coco-run");
//! } else {
//!     let status = launch::mpirun(ranks, &coco_exec, &invocation.to_args())?.status()?;
//! }
//! ```
//!
//! # Numerics
//!
//! Results follow the reference interpreter (`runtime/interp`, see
//! `docs/interpreter.md`): kernels are the compiled code, and collectives
//! reduce in rank order, rounding after each step. By default f32 and f64
//! sums, products and averages use MPI's native reductions for speed, which
//! associate differently on three or more ranks (last-bit differences);
//! `--exact-reductions` ([`Reductions::Exact`]) folds them in rank order,
//! bitwise equal to the interpreter. f16, bf16 and i1 are always folded in
//! rank order (MPI has no arithmetic for them); integer reductions are
//! exact either way.
//!
//! # Layout of the crate
//!
//! - [`Invocation`]: coco-exec's command line, parsed by coco-exec and
//!   written by coco-run;
//! - [`launch`]: launcher detection, the `mpirun` command line and the
//!   checks before a launch (world-size limit, inputs); [`job`]: the
//!   launcher's ownership of its job (signals, death of the launcher,
//!   temporary folders); [`watchdog`]: waits that back off and give up;
//! - `exec`: one rank's run, independent of the backend; `check`: plan
//!   checks that must pass before any communication;
//! - `cpu`: the CPU backend (host memory, `dlopen`ed kernels); `cuda`: the
//!   CUDA backend (cudarc's driver API and NCCL, loaded at run time);
//! - `collective`: the plan's collectives on host memory over MPI, with the
//!   interpreter's rank-order semantics; `layout`: the byte reshuffles and
//!   the fold they need; `comm`: the raw MPI calls;
//! - [`io`]: inputs and outputs as `.npy` files; [`limits`]: the memory a
//!   rank may allocate (`COCO_MAX_MEMORY_BYTES`) and allocations that fail
//!   with an error.

mod check;
mod collective;
mod comm;
mod cpu;
pub mod cuda;
mod error;
mod exec;
mod invocation;
pub mod io;
pub use coco_base::job;
pub mod launch;
mod layout;
pub mod limits;
mod report;
pub mod watchdog;

use std::{
    io::Write,
    panic::{self, AssertUnwindSafe},
    path::Path,
    sync::Mutex,
};

pub use collective::Reductions;
pub use cpu::{time_kernels, MAX_BUFFERS};
pub use error::{Error, Result};
pub use invocation::Invocation;
pub use report::{KindTime, Report, STEP_KINDS};

/// The bundle format version this executor reads.
pub const BUNDLE_FORMAT_VERSION: u32 = coco_bundle::FORMAT_VERSION;

/// How to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The world size the user asked for (`--ranks`): an error unless it is
    /// the plan's.
    pub ranks: Option<usize>,
    /// Native MPI reductions, or rank-order folding everywhere.
    pub reductions: Reductions,
    /// [`run_rank`] prints a timing summary (world rank 0, stderr).
    pub timing: bool,
    /// Run the steps this many times (0 counts as 1), for timing: state
    /// the program updates carries over, as in training.
    pub repeat: usize,
    pub backend: BackendKind,
    /// Peer launches treat every this many consecutive ranks of a stage as
    /// one node (shared memory inside, MPI between), to exercise the
    /// multi-node path on one machine; `None`: the machine's real nodes.
    pub ranks_per_node: Option<usize>,
}

impl Default for Options {
    /// Every flag at coco-exec's default: one run of the steps, native
    /// reductions, the cpu backend.
    fn default() -> Options {
        Options {
            ranks: None,
            reductions: Reductions::default(),
            timing: false,
            repeat: 1,
            backend: BackendKind::default(),
            ranks_per_node: None,
        }
    }
}

/// Where kernels and collectives run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendKind {
    /// Native kernels (`kernels.so`) and MPI.
    #[default]
    Cpu,
    /// PTX kernels and NCCL, one GPU per process ([`cuda`]).
    Cuda,
}

/// Runs this process's rank of `bundle`: initialises MPI (once per
/// process), checks the job against the plan, reads the inputs from
/// `inputs`, runs the rank's stage and writes the outputs to `outputs`.
/// Collective: every rank of the job must call it.
///
/// An `Err` is this rank's alone: other ranks may be waiting for it in a
/// collective, so the caller must end the job, with [`abort`] (which
/// [`run_rank`] does). MPI stays initialised; call [`finalize`] before
/// exiting.
pub fn run_bundle(
    bundle: &Path,
    inputs: &Path,
    outputs: Option<&Path>,
    options: &Options,
) -> Result<Report> {
    let world = comm::init()?;
    exec::run(&world, bundle, inputs, outputs, options)
}

/// The job-wide timing summary, on world rank 0 (`None` elsewhere).
/// Collective: every rank must call it, after [`run_bundle`].
pub fn timing_summary(report: &Report) -> Result<Option<String>> {
    report::summarize(&comm::init()?, report)
}

/// Finalises MPI if this crate initialised it. Every rank must call it
/// before exiting normally: OpenMPI reports a rank that exits without it as
/// a failure of the job.
pub fn finalize() {
    comm::finalize()
}

/// This process's world rank, once MPI is initialised.
pub fn world_rank() -> Option<usize> {
    comm::is_active()
        .then(|| comm::init().ok().map(|w| w.rank()))
        .flatten()
}

/// Prints `{program}: rank R: error: {error}` on one line and ends the whole
/// job with exit status 1 (`MPI_Abort`), or this process when MPI is not
/// running.
pub fn abort(program: &str, error: &Error) -> ! {
    let message = error.to_string().replace('\n', " ");
    let line = match world_rank() {
        Some(rank) => format!("{program}: rank {rank}: error: {message}\n"),
        None => format!("{program}: error: {message}\n"),
    };
    // One write, so that lines from ranks failing together do not mix.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    comm::abort(1)
}

/// The message of the last panic, saved by the hook [`catch_panics`] sets.
static PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Runs `f`, turning a panic into [`Error::Internal`] (with its message and
/// location) instead of Rust's multi-line report: a rank that panics must
/// still print one line and abort the job.
pub fn catch_panics<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        *PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{message}{at}"));
    }));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(previous);
    result.unwrap_or_else(|_| {
        let message = PANIC
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| "panic".into());
        Err(Error::Internal(message))
    })
}

/// One rank's whole life: [`run_bundle`], the timing summary when
/// `options.timing`, then [`finalize`]. Returns only on success: on any
/// error or panic it prints one line prefixed with `program` and the rank,
/// and aborts the job (every rank stops, exit status 1).
pub fn run_rank(
    program: &str,
    bundle: &Path,
    inputs: &Path,
    outputs: Option<&Path>,
    options: &Options,
) -> Report {
    let result = catch_panics(|| {
        let report = run_bundle(bundle, inputs, outputs, options)?;
        if options.timing {
            if let Some(text) = timing_summary(&report)? {
                eprintln!("{program}: {text}");
            }
        }
        Ok(report)
    });
    match result {
        Ok(report) => {
            finalize();
            report
        }
        Err(error) => abort(program, &error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_errors() {
        let error = catch_panics::<()>(|| panic!("boom {}", 7)).unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("internal error: boom 7 at "), "{text}");
        assert!(text.contains("lib.rs"), "{text}");
        assert_eq!(catch_panics(|| Ok(3)).unwrap(), 3);
    }
}
