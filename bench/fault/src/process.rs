//! Running one tool invocation from outside: in its own process group, with
//! a deadline, its peak memory read from `wait4`, and its ending classified.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Set in every process the harness starts (and so inherited by mpirun and
/// every rank): processes of one job are found by it in /proc.
pub const JOB_ENV: &str = "COCO_FAULT_JOB";

/// How a run ended, before any case-specific oracle looks at its outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Exit 0.
    Ok,
    /// A non-zero exit with a `<tool>: error:` (or `file:line:col: error:`) line.
    CleanError,
    /// A signal, a panic, an abort, an LLVM fatal error, or a non-zero exit
    /// without any diagnostic.
    Crash(String),
    /// Still running at the deadline (then killed with its process group),
    /// or processes of the job left running after it ended.
    Hang(String),
    /// Ended, but an oracle found its effect wrong: outputs that differ from
    /// the known answer, a file written or deleted outside the output
    /// directory, a process or a temporary folder left behind.
    Wrong(String),
}

/// What a finished run left.
#[derive(Debug)]
pub struct Run {
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
    /// Peak resident memory in bytes.
    pub peak_rss: u64,
}

impl Run {
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    pub fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    /// The verdict from the exit status and the diagnostics alone.
    pub fn verdict(&self) -> Verdict {
        if self.timed_out {
            return Verdict::Hang("still running at the deadline".into());
        }
        let Some(status) = self.status else {
            return Verdict::Crash("no exit status".into());
        };
        if let Some(signal) = status.signal() {
            return Verdict::Crash(format!("killed by signal {signal}"));
        }
        let stderr = self.stderr_text();
        if let Some(marker) = CRASH_MARKERS.iter().find(|m| stderr.contains(*m)) {
            return Verdict::Crash(format!("stderr says '{marker}'"));
        }
        if status.success() {
            return Verdict::Ok;
        }
        if stderr.lines().any(is_diagnostic) {
            Verdict::CleanError
        } else {
            Verdict::Crash(format!(
                "exit {} without a diagnostic",
                status.code().unwrap_or(-1)
            ))
        }
    }
}

/// Text that only a crash prints: Rust panics (and coco's catch-all
/// "internal error"), glibc's heap checks, LLVM's fatal errors and
/// assertions, MPI's report of a rank that died on a signal.
const CRASH_MARKERS: &[&str] = &[
    "panicked at",
    "internal error",
    "LLVM ERROR",
    "Assertion `",
    "free(): ",
    "double free",
    "corrupted size",
    "malloc(): ",
    "Segmentation fault",
    "stack overflow",
    "core dumped",
    "terminate called",
    "killed by signal",
    "exited on signal",
    "Stack dump:",
];

/// `coco-run: error: ...` or `file.mlir:3:7: error: ...`.
fn is_diagnostic(line: &str) -> bool {
    line.contains(": error: ") || line.starts_with("error: ")
}

/// A command about to run: the tool's path, its arguments, and the job tag.
pub struct Invocation {
    pub command: Command,
    pub stdin: Option<Vec<u8>>,
    pub timeout: Duration,
    /// Kill the process group once the process ends. Off where the case
    /// checks that the tool itself ended everything it started.
    pub reap_group: bool,
}

impl Invocation {
    pub fn new(bin: &Path, args: &[&str], job: &str, timeout: Duration) -> Invocation {
        Invocation::wrapped(&[], bin, args, job, timeout)
    }

    /// [`Invocation::new`] run through `wrapper` (`["unshare", "--pid",
    /// ...]`): the wrapper's command line, then the tool's.
    pub fn wrapped(
        wrapper: &[&str],
        bin: &Path,
        args: &[&str],
        job: &str,
        timeout: Duration,
    ) -> Invocation {
        let mut command = match wrapper.split_first() {
            Some((program, wrapper_args)) => {
                let mut command = Command::new(program);
                command.args(wrapper_args).arg(bin);
                command
            }
            None => Command::new(bin),
        };
        command.args(args).env(JOB_ENV, job);
        // The interpreter's work bound scaled to the deadline, as a user
        // with a deadline would set it: a legal but huge program is then
        // refused at once, where the default bound (minutes) would run it
        // past the deadline and read as a hang.
        let work = timeout
            .as_secs()
            .saturating_mul(INTERP_OPERATIONS_PER_SECOND);
        command.env("COCO_MAX_INTERP_WORK", work.to_string());
        // A bound on address space, so that a runaway allocation fails in
        // the tool (as it would under a cluster's memory limit) instead of
        // taking the machine down.
        // SAFETY: setrlimit is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                let limit = libc::rlimit {
                    rlim_cur: ADDRESS_SPACE_LIMIT,
                    rlim_max: ADDRESS_SPACE_LIMIT,
                };
                libc::setrlimit(libc::RLIMIT_AS, &limit);
                Ok(())
            });
        }
        Invocation {
            command,
            stdin: None,
            timeout,
            reap_group: true,
        }
    }

    /// Starts the process in its own process group (so that a deadline
    /// kills all it started), without waiting.
    pub fn spawn(mut self) -> std::io::Result<Started> {
        self.command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let child = self.command.spawn()?;
        Ok(Started {
            child,
            stdin: self.stdin,
            timeout: self.timeout,
            reap_group: self.reap_group,
        })
    }

    /// Runs to the end or the deadline.
    pub fn run(self) -> std::io::Result<Run> {
        Ok(self.spawn()?.finish())
    }
}

/// The interpreter's element operations a second assumed for the work
/// bound: a third of what it does alone on one core of the CI machine
/// (1.3e8), as two cases run at once beside other work.
pub const INTERP_OPERATIONS_PER_SECOND: u64 = 40_000_000;

/// Per process started by the harness (8 GiB).
pub const ADDRESS_SPACE_LIMIT: u64 = 8 << 30;

/// A started process.
pub struct Started {
    pub child: Child,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
    reap_group: bool,
}

/// Output kept per stream: enough for any diagnostic, bounded for tools
/// that print without end.
const KEEP: usize = 1 << 20;

/// Reads `stream` on a thread into a shared buffer; the receiver says when
/// it reached the end (a grandchild may hold the pipe open for ever).
fn drain(mut stream: impl Read + Send + 'static) -> (Arc<Mutex<Vec<u8>>>, mpsc::Receiver<()>) {
    let kept = Arc::new(Mutex::new(Vec::new()));
    let (done, finished) = mpsc::channel();
    let sink = kept.clone();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 65536];
        while let Ok(n) = stream.read(&mut buffer) {
            if n == 0 {
                break;
            }
            let mut kept = sink.lock().unwrap_or_else(|e| e.into_inner());
            let room = KEEP.saturating_sub(kept.len());
            kept.extend_from_slice(&buffer[..n.min(room)]);
        }
        let _ = done.send(());
    });
    (kept, finished)
}

fn collect((kept, finished): (Arc<Mutex<Vec<u8>>>, mpsc::Receiver<()>)) -> Vec<u8> {
    let _ = finished.recv_timeout(Duration::from_secs(2));
    let bytes = kept.lock().unwrap_or_else(|e| e.into_inner()).clone();
    bytes
}

impl Started {
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits until the process ends or its deadline, then kills its process
    /// group; reads its outputs and its peak memory.
    pub fn finish(self) -> Run {
        finish(self.child, self.stdin, self.timeout, self.reap_group)
    }
}

fn finish(mut child: Child, stdin: Option<Vec<u8>>, timeout: Duration, reap_group: bool) -> Run {
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = pipe.write_all(&bytes);
        });
    }
    let out = drain(child.stdout.take().expect("piped"));
    let err = drain(child.stderr.take().expect("piped"));
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let mut deadline = start + timeout;
    // A run that is still computing at its deadline is slow (a loaded
    // machine), not hung: it gets a third of the deadline more while its
    // processes keep using CPU, up to four deadlines in all. One that
    // waits without computing is a hang.
    let cap = start + timeout * 4;
    let mut cpu_at_last_check = 0.0;
    let mut timed_out = false;
    let (status, peak_rss) = loop {
        if let Some(done) = wait4(pid, libc::WNOHANG) {
            break done;
        }
        let now = Instant::now();
        if now >= deadline {
            let cpu = group_cpu_seconds(pid);
            if now < cap && cpu - cpu_at_last_check >= 1.0 {
                cpu_at_last_check = cpu;
                deadline = now + timeout / 3;
                continue;
            }
            timed_out = true;
            kill_group(pid, libc::SIGKILL);
            break wait4(pid, 0).unwrap_or((None, 0));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if reap_group {
        kill_group(pid, libc::SIGKILL);
    }
    Run {
        status,
        stdout: collect(out),
        stderr: collect(err),
        timed_out,
        peak_rss,
    }
}

/// CPU seconds (user and system) used so far by the live processes of the
/// process group `pid` leads, from /proc.
fn group_cpu_seconds(pid: libc::pid_t) -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    let mut total = 0u64;
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // After the command's closing parenthesis: state, ppid, pgrp, ...,
        // utime (14th field of the line) and stime (15th).
        let Some(rest) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
        if number(2) == Some(pid as u64) {
            total += number(11).unwrap_or(0) + number(12).unwrap_or(0);
        }
    }
    total as f64 / ticks
}

/// `wait4(pid)`: `None` while it runs (with WNOHANG), else its status and
/// peak resident memory.
fn wait4(pid: libc::pid_t, flags: libc::c_int) -> Option<(Option<ExitStatus>, u64)> {
    let mut status = 0;
    // SAFETY: plain system call on our own child; `usage` is written by it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
    match got {
        0 => None,
        p if p == pid => Some((
            Some(ExitStatus::from_raw(status)),
            usage.ru_maxrss as u64 * 1024,
        )),
        _ => Some((None, 0)),
    }
}

/// Sends `signal` to every process in the group led by `pid`.
pub fn kill_group(pid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill(2) with a negative pid targets the group; harmless if gone.
    unsafe {
        libc::kill(-pid, signal);
    }
}

/// Sends `signal` to one process.
pub fn kill(pid: u32, signal: libc::c_int) {
    // SAFETY: kill(2); harmless if the process is gone.
    unsafe {
        libc::kill(pid as libc::pid_t, signal);
    }
}

/// A process of a job, found in /proc by its [`JOB_ENV`] tag.
#[derive(Clone, Debug)]
pub struct JobProcess {
    pub pid: u32,
    /// The executable's file name (`coco-run`, `mpirun`, `coco-exec`, ...).
    pub name: String,
    /// Zombies are finished: only their parent's wait is missing.
    pub zombie: bool,
}

/// Every live process whose environment carries `JOB_ENV=job`.
pub fn job_processes(job: &str) -> Vec<JobProcess> {
    let tag = format!("{JOB_ENV}={job}");
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !environ.split(|b| *b == 0).any(|v| v == tag.as_bytes()) {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // stat is `pid (comm) S ...`; comm may contain spaces, so split at the last ')'.
        let (name, state) = match (stat.find('('), stat.rfind(')')) {
            (Some(a), Some(b)) => (
                stat[a + 1..b].to_string(),
                stat[b + 1..].trim_start().chars().next(),
            ),
            _ => (String::new(), None),
        };
        found.push(JobProcess {
            pid,
            name,
            zombie: state == Some('Z'),
        });
    }
    found
}

/// Kills every process of `job` (after a run that left some behind).
pub fn kill_job(job: &str) {
    for process in job_processes(job) {
        kill(process.pid, libc::SIGCONT);
        kill(process.pid, libc::SIGKILL);
    }
}
