//! coco's tools as library entry points, so the filetest harness runs them
//! in-process (one test binary links MLIR once). The binaries in `src/bin`
//! only call [`main`] with their entry point.

pub mod bigtest;
pub mod check;
pub mod execute;
pub mod opt;
pub mod output;
pub mod passes;
pub mod run;
pub mod source;
pub mod translate;
mod tune;
mod values;

pub use output::{main, write_output_atomically};

/// What a tool run produced.
#[derive(Debug, Default)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: i32,
}

/// Parses `args` with clap; `Err` is the output to return as is (usage
/// errors exit 1, as mlir-opt's do; `--help` and `--version` exit 0).
pub fn parse_args<T: clap::Parser>(args: &[String]) -> Result<T, Output> {
    T::try_parse_from(args).map_err(|e| {
        let text = e.render().to_string().into_bytes();
        if e.use_stderr() {
            Output {
                stdout: Vec::new(),
                stderr: text,
                code: 1,
            }
        } else {
            Output {
                stdout: text,
                stderr: Vec::new(),
                code: 0,
            }
        }
    })
}

/// Runs a tool body, turning an unexpected Rust panic into a one-line
/// internal error and exit code 2 instead of a backtrace: bad input must
/// never crash a tool, and if a bug does, the user still gets a clean exit.
pub fn guarded(tool: &str, body: impl FnOnce() -> Output) -> Output {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(output) => output,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Output {
                stdout: Vec::new(),
                stderr: format!(
                    "{tool}: internal error (a bug in {tool}, please report it): {message}\n"
                )
                .into_bytes(),
                code: 2,
            }
        }
    }
}
