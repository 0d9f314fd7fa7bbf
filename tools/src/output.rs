//! What every tool does with its output: the one `main` (stdout and stderr
//! written, write errors reported, the exit code), and output files written
//! atomically.

use std::{
    io::{self, Write},
    path::Path,
};

use crate::{guarded, Output};

/// The stack the tools run on. MLIR's parser, verifier and printer recurse
/// once per nesting level (about 2 KiB each), so the default 8 MiB of the
/// main thread would bound the depth more tightly than the nesting limit
/// (`COCO_MAX_NESTING`). Only the pages used are ever committed.
const STACK_BYTES: usize = 256 << 20;

/// The exit code after a closed pipe, as a shell reports a Unix tool that
/// `SIGPIPE` ended (Rust ignores the signal, so the write fails instead).
pub const BROKEN_PIPE_EXIT: i32 = 128 + 13;

/// The `main` of every tool: runs `body` on the arguments (on a thread with
/// a large stack, panics turned into one line by [`guarded`]), writes its
/// stdout and stderr, and exits with its code. A failed write to stdout is
/// `<tool>: error: could not write standard output: <reason>` and exit 1; a
/// closed pipe (`| head`) exits [`BROKEN_PIPE_EXIT`] without a message.
pub fn main(tool: &str, body: impl FnOnce(&[String]) -> Output + Send) -> ! {
    std::panic::set_hook(Box::new(|_| {}));
    let output = match arguments() {
        Ok(args) => run_on_large_stack(tool, move || body(&args)),
        Err(message) => Output {
            stderr: format!("{tool}: error: {message}\n").into_bytes(),
            code: 1,
            ..Output::default()
        },
    };
    std::process::exit(emit(tool, &output, &mut io::stdout(), &mut io::stderr()))
}

/// The command line as strings; one that is not UTF-8 is an error, not the
/// panic of `std::env::args`.
fn arguments() -> Result<Vec<String>, String> {
    std::env::args_os()
        .enumerate()
        .map(|(i, arg)| {
            arg.into_string()
                .map_err(|arg| format!("argument {i} is not valid UTF-8: {arg:?}"))
        })
        .collect()
}

fn run_on_large_stack(tool: &str, body: impl FnOnce() -> Output + Send) -> Output {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name(tool.to_string())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || guarded(tool, body));
        match spawned {
            Ok(handle) => handle.join().unwrap_or_else(|_| Output {
                stderr: format!("{tool}: internal error (a bug in {tool}, please report it)\n")
                    .into_bytes(),
                code: 2,
                ..Output::default()
            }),
            Err(e) => Output {
                stderr: format!("{tool}: error: cannot start the main thread: {e}\n").into_bytes(),
                code: 1,
                ..Output::default()
            },
        }
    })
}

/// Writes `output` to `stdout` and `stderr`; returns the exit code.
fn emit(tool: &str, output: &Output, stdout: &mut impl Write, stderr: &mut impl Write) -> i32 {
    let written = stdout
        .write_all(&output.stdout)
        .and_then(|()| stdout.flush());
    // Nothing useful is left to do when stderr itself fails.
    let _ = stderr.write_all(&output.stderr);
    match written {
        Ok(()) => output.code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => BROKEN_PIPE_EXIT,
        Err(e) => {
            let _ = writeln!(
                stderr,
                "{tool}: error: could not write standard output: {}",
                reason(&e)
            );
            output.code.max(1)
        }
    }
}

/// An I/O error as the OS words it, without Rust's `(os error N)`.
pub fn reason(error: &io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

/// Writes `bytes` to the output file `path` with the project's staged
/// writer ([`coco_base::staged::write_file`]): whole or not at all, a
/// symbolic link replaced rather than written through, a FIFO, device or
/// folder refused at once. Call it only on success, so a failed run
/// leaves the previous output untouched. Errors name the file.
pub fn write_output_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    coco_base::staged::write_file(path, bytes).map_err(|e| {
        format!(
            "could not write output file '{}': {}{}",
            path.display(),
            reason(&e),
            if refused_as_special(&e) {
                " (-o - writes to standard output)"
            } else {
                ""
            }
        )
    })
}

/// Whether the staged writer refused the target for what it is.
fn refused_as_special(error: &io::Error) -> bool {
    error
        .get_ref()
        .is_some_and(|e| e.is::<coco_base::staged::NotAFile>())
}
