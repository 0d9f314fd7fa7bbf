//! A launching `coco-exec` owns its job: a signal to it, SIGKILL of it or
//! of mpirun, or a stopped rank or mpirun ends every process of the job,
//! and the checks that need no rank (world size, inputs) come before any
//! is started.
//!
//! Each test runs a job that would go on for hours (`--repeat` of an
//! all-reduce), acts on one of its processes, and waits (at most
//! [`BOUND`]) until no process whose command line names the test's inputs
//! folder is left. The bound is a limit on a hang, not on speed.

mod common;

use std::{
    os::unix::process::{CommandExt, ExitStatusExt},
    path::Path,
    process::{Child, Command, ExitStatus, Stdio},
    time::{Duration, Instant},
};

use coco_bundle::{DType, IoLayout, Reduction, Step};
use common::*;

const F32: DType = DType::F32;

/// How long a job may take to end.
const BOUND: Duration = Duration::from_secs(30);

const FOREVER: &str = "1000000000";

/// A 2-rank job of `--repeat` all-reduces of 8 floats.
fn all_reduce_bundle(name: &str) -> Bundle {
    let plan = plan(
        2,
        vec![
            buffer("x", F32, &[8]).input(IoLayout::Replicated),
            buffer("y", F32, &[8]).output(IoLayout::Replicated),
        ],
        vec![Step::AllReduce {
            reduction: Reduction::Sum,
            input: "x".into(),
            output: "y".into(),
            stream: 0,
            axis: None,
        }],
    );
    let bundle = Bundle::new(name, &plan);
    bundle.input("x", F32, &T::new(&[8], |i| i as f64));
    bundle
}

/// A running launcher and where its stderr goes.
struct Job {
    child: Child,
    key: String,
    stderr: std::path::PathBuf,
}

fn start(bundle: &Bundle, args: &[&str]) -> Job {
    let stderr = bundle.dir.join("stderr");
    let mut command = Command::new(EXEC);
    command
        .arg(&bundle.dir)
        .arg("--inputs")
        .arg(bundle.inputs())
        .arg("--outputs")
        .arg(bundle.outputs())
        .args(["--repeat", FOREVER])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .process_group(0);
    for var in [
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_RANK",
        "PMI_SIZE",
        "PMIX_RANK",
    ] {
        command.env_remove(var);
    }
    Job {
        child: command.spawn().expect("spawning coco-exec"),
        // Not the folder alone: one test's name may begin another's.
        key: bundle.inputs().display().to_string(),
        stderr,
    }
}

/// `/proc/PID/stat` fields after the command: state, ppid, ..., utime
/// (index 11), stime (12).
fn stat(pid: u32) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(String::from).collect())
}

fn parent(pid: u32) -> Option<u32> {
    stat(pid)?.get(1)?.parse().ok()
}

/// Live processes (not zombies) whose command line contains `key`.
fn processes(key: &str) -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != me)
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(key))
        })
        .filter(|&pid| stat(pid).is_some_and(|s| s[0] != "Z"))
        .collect()
}

/// Polls `ready` until it returns something, at most [`BOUND`].
fn wait_for<T>(what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = ready() {
            return value;
        }
        assert!(start.elapsed() < BOUND, "waited {BOUND:?} for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Job {
    /// mpirun's pid and the ranks', once both ranks exist (`in_steps`: and
    /// have run for half a second of CPU, which is past MPI_Init).
    fn running(&self, in_steps: bool) -> (u32, Vec<u32>) {
        let launcher = self.child.id();
        wait_for("the ranks to run their steps", || {
            let all = processes(&self.key);
            let mpirun = *all.iter().find(|&&p| parent(p) == Some(launcher))?;
            let ranks: Vec<u32> = all
                .iter()
                .copied()
                .filter(|&p| parent(p) == Some(mpirun))
                .collect();
            let busy = |pid: u32| {
                stat(pid).is_some_and(|s| {
                    !in_steps
                        || s[11].parse::<u64>().unwrap_or(0) + s[12].parse::<u64>().unwrap_or(0)
                            >= 50
                })
            };
            (ranks.len() == 2 && ranks.iter().all(|&p| busy(p))).then_some((mpirun, ranks))
        })
    }

    /// The launcher's exit status and stderr, once every process of the job
    /// is gone.
    fn end(mut self) -> (ExitStatus, String) {
        let status = wait_for("the launcher to exit", || self.child.try_wait().unwrap());
        wait_for("every process of the job to end", || {
            processes(&self.key).is_empty().then_some(())
        });
        (status, std::fs::read_to_string(&self.stderr).unwrap())
    }
}

fn signal(pid: u32, signal: i32) {
    // SAFETY: kill(2) on a process of the test's own job.
    assert_eq!(unsafe { libc::kill(pid as i32, signal) }, 0);
}

#[test]
fn sigterm_to_the_launcher_ends_the_job() {
    let bundle = all_reduce_bundle("job-sigterm");
    let job = start(&bundle, &[]);
    job.running(false);
    signal(job.child.id(), libc::SIGTERM);
    let (status, stderr) = job.end();
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{stderr}");
    assert!(
        stderr.contains("coco-exec: error: stopped by SIGTERM; the job was ended"),
        "{stderr}"
    );
    bundle.remove();
}

#[test]
fn sigkill_to_the_launcher_ends_the_job() {
    let bundle = all_reduce_bundle("job-sigkill");
    let job = start(&bundle, &[]);
    job.running(false);
    signal(job.child.id(), libc::SIGKILL);
    let (status, _) = job.end();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    bundle.remove();
}

#[test]
fn sigkill_to_mpirun_ends_the_ranks() {
    let bundle = all_reduce_bundle("job-sigkill-mpirun");
    let job = start(&bundle, &[]);
    let (mpirun, _) = job.running(false);
    signal(mpirun, libc::SIGKILL);
    let (status, stderr) = job.end();
    assert!(!status.success());
    assert!(
        stderr.contains("coco-exec: error: mpirun was killed by signal 9"),
        "{stderr}"
    );
    bundle.remove();
}

#[test]
fn a_stopped_rank_fails_the_job_by_the_watchdog() {
    let bundle = all_reduce_bundle("job-stopped-rank");
    let job = start(&bundle, &["--watchdog-s", "1"]);
    let (_, ranks) = job.running(true);
    signal(ranks[0], libc::SIGSTOP);
    let (status, stderr) = job.end();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.lines().any(|line| line.contains("coco-exec: rank ")
            && line.contains("step 0 (all_reduce): MPI_Allreduce made no progress for 1 s")
            && line.contains("--watchdog-s or COCO_WATCHDOG_S")),
        "{stderr}"
    );
    bundle.remove();
}

#[test]
fn a_stopped_mpirun_is_killed() {
    let bundle = all_reduce_bundle("job-stopped-mpirun");
    let job = start(&bundle, &["--watchdog-s", "1"]);
    let (mpirun, _) = job.running(false);
    signal(mpirun, libc::SIGSTOP);
    let (status, stderr) = job.end();
    assert!(!status.success());
    assert!(
        stderr.contains(&format!(
            "coco-exec: error: mpirun (pid {mpirun}) has been stopped for 2 s; ending the job"
        )),
        "{stderr}"
    );
    bundle.remove();
}

#[test]
fn the_world_size_limit_is_checked_before_launching() {
    let bundle = all_reduce_bundle("job-world-limit");
    let outcome = bundle.run(&["--max-ranks", "1"]);
    outcome.assert_error(&[
        "coco-exec: error: ",
        "job-world-limit: 2 ranks: more than the world-size limit of 1 ranks on this machine \
         (raise it with --max-ranks N or COCO_MAX_RANKS=N)",
    ]);
    bundle.remove();
}

#[test]
fn missing_inputs_are_found_before_launching() {
    let bundle = all_reduce_bundle("job-missing-input");
    let path = bundle.inputs().join("x.npy");
    std::fs::remove_file(&path).unwrap();
    let outcome = bundle.run(&[]);
    outcome.assert_error(&[
        "coco-exec: error: missing input 'x': expected",
        &path.display().to_string(),
        "(f32 [8] per rank, replicated)",
    ]);
    assert!(!outcome.stderr.contains("rank 0"), "{}", outcome.stderr);
    bundle.remove();
}

#[test]
fn repeat_zero_is_refused() {
    let bundle = all_reduce_bundle("job-repeat-zero");
    let outcome = bundle.run(&["--repeat", "0"]);
    outcome.assert_error(&["invalid value '0' for '--repeat <N>'"]);
    assert!(!Path::new(&bundle.outputs()).exists());
    bundle.remove();
}
