//! What every tool does with its output: the one `main` (stdout and stderr
//! written, write errors reported, the exit code), and output files written
//! atomically.

use std::{
    io::{self, Write},
    path::{Path, PathBuf},
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

/// Writes `bytes` to `path` so that the file is either left as it was or
/// replaced whole: into a temporary sibling in the same directory, renamed
/// over `path` once complete. Call it only on success, so a failed run
/// leaves the previous output untouched. A `path` that exists and is not a
/// regular file (`/dev/null`, a pipe) is written in place; a symbolic link
/// is followed, so the link stays. Errors name the file.
pub fn write_output_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let failed = |e: io::Error| {
        format!(
            "could not write output file '{}': {}",
            path.display(),
            reason(&e)
        )
    };
    let target = resolve(path);
    let existing = std::fs::metadata(&target).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        return write_in_place(&target, bytes).map_err(|e| {
            if e.raw_os_error() == Some(libc::ENXIO) {
                format!(
                    "could not write output file '{}': it is a FIFO that no process reads",
                    path.display()
                )
            } else {
                failed(e)
            }
        });
    }
    (|| {
        let staged = coco_base::staged::Staged::file(&target)?;
        let mut file = std::fs::File::create(staged.path())?;
        file.write_all(bytes)?;
        file.flush()?;
        if let Some(metadata) = &existing {
            file.set_permissions(metadata.permissions())?;
        }
        drop(file);
        staged.commit()
    })()
    .map_err(failed)
}

/// Writes `bytes` into `target`, a device or a pipe, as it is. It is
/// opened without blocking, so that a FIFO nobody reads fails at once
/// (ENXIO) instead of waiting forever, and then written with blocking
/// writes (a reader such as `-o >(gzip)` takes them at its pace).
fn write_in_place(target: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::{fd::AsRawFd, unix::fs::OpenOptionsExt};
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(target)?;
    // SAFETY: fcntl(2) on a descriptor `file` owns.
    unsafe {
        let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
        if flags < 0 || libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK) < 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    file.write_all(bytes)?;
    file.flush()
}

/// `path` with its symbolic links followed (as far as they lead to
/// something that exists).
fn resolve(path: &Path) -> PathBuf {
    let mut target = path.to_path_buf();
    // A bounded number of hops: a link cycle stays a path that fails later.
    for _ in 0..40 {
        match std::fs::read_link(&target) {
            Ok(link) => {
                target = match target.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                }
            }
            Err(_) => break,
        }
    }
    target
}
