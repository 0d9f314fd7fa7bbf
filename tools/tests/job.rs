//! `coco-run` owns the job it starts: a signal to it, while compiling or
//! while the ranks run, ends mpirun and every rank and removes its
//! temporary folders; after SIGKILL (which it cannot catch) the ranks still
//! end, and the next `coco-run` removes the folders left.
//!
//! Each test points `TMPDIR` at a folder of its own, so that the job's
//! processes are the ones whose command line names it (the bundle and
//! inputs live there), and waits at most [`BOUND`] for them to end: a
//! limit on a hang, not on speed. Needs `coco-exec` built beside
//! `coco-run` (`cargo build --workspace`).

use std::{
    os::unix::process::{CommandExt, ExitStatusExt},
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Stdio},
    time::{Duration, Instant},
};

const RUN: &str = env!("CARGO_BIN_EXE_coco-run");
const BOUND: Duration = Duration::from_secs(30);

fn program() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/coco/sgd.mlir")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("coco-run-jobs")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn coco_run(tmp: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(RUN);
    command
        .arg(program())
        .args(args)
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    for var in [
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_RANK",
        "PMI_SIZE",
        "PMIX_RANK",
    ] {
        command.env_remove(var);
    }
    command
}

/// A 2-rank job that would run for hours.
fn start(tmp: &Path) -> Child {
    coco_run(tmp, &["--ranks", "2", "--repeat", "1000000000"])
        .spawn()
        .expect("spawning coco-run")
}

/// The `coco-run-*` folders under `tmp`.
fn leftovers(tmp: &Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("coco-run-"))
        .collect()
}

/// mpirun and the ranks: the job's processes with `coco-exec` in their
/// command line (the linker of the bundle's kernels names `tmp` too).
fn job_started(tmp: &Path) -> bool {
    processes(tmp)
        .iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("coco-exec"))
        })
        .count()
        >= 3
}

/// Live processes (not zombies) whose command line names `tmp`.
fn processes(tmp: &Path) -> Vec<u32> {
    // With the separator: one test's folder name may begin another's.
    let key = format!("{}/", tmp.display());
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != std::process::id())
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&key))
        })
        .filter(|&pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                !s[s.rfind(')').unwrap_or(0) + 1..]
                    .trim_start()
                    .starts_with('Z')
            })
        })
        .collect()
}

fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < BOUND, "waited {BOUND:?} for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn signal(child: &Child, signal: i32) {
    // SAFETY: kill(2) on the test's own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

/// The exit status and stderr, once no process of the job is left.
fn end(child: Child, tmp: &Path) -> (ExitStatus, String) {
    let output = child.wait_with_output().unwrap();
    wait_for("every process of the job to end", || {
        processes(tmp).is_empty()
    });
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn sigterm_ends_the_job_and_removes_its_folders() {
    let tmp = temp_dir("sigterm");
    let child = start(&tmp);
    wait_for("the job to start", || job_started(&tmp));
    signal(&child, libc::SIGTERM);
    let (status, stderr) = end(child, &tmp);
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{stderr}");
    assert!(
        stderr.contains("coco-run: error: stopped by SIGTERM; the job was ended"),
        "{stderr}"
    );
    assert_eq!(leftovers(&tmp), Vec::<String>::new());
}

#[test]
fn sigterm_while_compiling_removes_the_folders() {
    let tmp = temp_dir("sigterm-compiling");
    let child = start(&tmp);
    // The bundle's folder is made before compiling starts.
    wait_for("a temporary folder", || !leftovers(&tmp).is_empty());
    signal(&child, libc::SIGTERM);
    let (status, stderr) = end(child, &tmp);
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{stderr}");
    assert_eq!(leftovers(&tmp), Vec::<String>::new());
}

#[test]
fn sigkill_ends_the_job_and_the_next_run_removes_the_folders() {
    let tmp = temp_dir("sigkill");
    let child = start(&tmp);
    wait_for("the job to start", || job_started(&tmp));
    signal(&child, libc::SIGKILL);
    let (status, _) = end(child, &tmp);
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    // SIGKILL cannot be caught: the detached reaper removes the folders
    // once the launcher is gone (or, failing that, the next run does).
    let output = coco_run(&tmp, &["--ranks", "1"]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(leftovers(&tmp), Vec::<String>::new());
}
