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
    let _ = std::fs::remove_dir_all(dir.with_extension("shm"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn coco_run(tmp: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(RUN);
    command
        .arg(program())
        .args(args)
        .env("TMPDIR", tmp)
        // The job's shared-memory files: beside TMPDIR, not in /dev/shm,
        // so that a test sees its own job's.
        .env("COCO_SHM_DIR", shm_dir(tmp))
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

/// Where the job started with `TMPDIR=tmp` keeps its shared memory.
fn shm_dir(tmp: &Path) -> PathBuf {
    let dir = tmp.with_extension("shm");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Everything in `dir`.
fn everything(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
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
    // Nor anything of Open MPI's.
    wait_for("the reaper", || {
        everything(&tmp).is_empty() && everything(&shm_dir(&tmp)).is_empty()
    });
}

/// `timeout` and Ctrl-C signal the whole process group: coco-run, mpirun
/// and every rank at once. Open MPI's session folder (`ompi.*`) and
/// shared-memory segments (`vader_segment.*`) are in folders coco-run owns,
/// so nothing is left in TMPDIR or the shared-memory folder.
#[test]
fn a_signal_to_the_process_group_leaves_nothing_behind() {
    for (name, sig) in [
        ("group-sigterm", libc::SIGTERM),
        ("group-sigint", libc::SIGINT),
    ] {
        let tmp = temp_dir(name);
        let child = start(&tmp);
        wait_for("the job to start", || job_started(&tmp));
        // What a job has in the shared-memory folder while it runs.
        wait_for("the job's shared-memory files", || {
            everything(&shm_dir(&tmp)).len() == 1
        });
        // SAFETY: kill(2) on the test's own process group (coco-run leads it).
        assert_eq!(unsafe { libc::kill(-(child.id() as i32), sig) }, 0);
        let (status, stderr) = end(child, &tmp);
        assert!(!status.success(), "{stderr}");
        assert_eq!(everything(&tmp), Vec::<String>::new(), "{name}: {stderr}");
        assert_eq!(everything(&shm_dir(&tmp)), Vec::<String>::new(), "{name}");
    }
}

#[test]
fn sigkill_of_mpirun_leaves_nothing_behind() {
    let tmp = temp_dir("sigkill-mpirun");
    let child = start(&tmp);
    wait_for("the job to start", || job_started(&tmp));
    let mpirun = wait_for_mpirun(child.id());
    // SAFETY: kill(2) on mpirun, a child of the test's coco-run.
    assert_eq!(unsafe { libc::kill(mpirun as i32, libc::SIGKILL) }, 0);
    let (status, stderr) = end(child, &tmp);
    assert!(!status.success(), "{stderr}");
    assert!(stderr.contains("mpirun was killed by signal 9"), "{stderr}");
    assert_eq!(everything(&tmp), Vec::<String>::new());
    assert_eq!(everything(&shm_dir(&tmp)), Vec::<String>::new());
}

/// The pid of the mpirun `launcher` started (a child of one of its
/// threads).
fn wait_for_mpirun(launcher: u32) -> u32 {
    let mut found = None;
    wait_for("mpirun", || {
        let tasks = std::fs::read_dir(format!("/proc/{launcher}/task")).unwrap();
        found = tasks
            .flatten()
            .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
            .flat_map(|text| {
                text.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok())
                    .collect::<Vec<_>>()
            })
            .find(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                    c.split(|&b| b == 0)
                        .next()
                        .is_some_and(|argv0| argv0.ends_with(b"mpirun"))
                })
            });
        found.is_some()
    });
    found.unwrap()
}

/// The sweep of stale folders removes only what coco made and can prove
/// dead: a folder holding coco's owner file whose lock nobody holds. A
/// pid says nothing in another PID namespace (a container sharing TMPDIR),
/// and a name says nothing about who made a folder.
#[test]
fn the_sweep_removes_only_folders_of_jobs_that_are_gone() {
    use std::io::Write;
    let tmp = temp_dir("sweep");
    // A user's folder with a job-like name.
    let thesis = tmp.join("coco-run-999999-thesis");
    std::fs::create_dir_all(&thesis).unwrap();
    std::fs::write(thesis.join("chapter1.tex"), "...").unwrap();
    // A live job of another PID namespace: its pid does not exist here,
    // but it holds the lock on its owner file.
    let live = tmp.join("coco-run-4194306-0123abcd-0-inputs");
    std::fs::create_dir_all(&live).unwrap();
    let owner = live.join(".coco-owner");
    let mut file = std::fs::File::create(&owner).unwrap();
    file.write_all(b"coco temporary folder\n").unwrap();
    // SAFETY: flock(2) on a file this test owns.
    assert_eq!(
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&file), libc::LOCK_EX) },
        0
    );
    std::fs::write(live.join("x.npy"), "inputs").unwrap();
    // A job that was SIGKILLed: the same, with the lock free.
    let dead = tmp.join("coco-run-4194305-89abcdef-0-inputs");
    std::fs::create_dir_all(&dead).unwrap();
    std::fs::write(dead.join(".coco-owner"), "coco temporary folder\n").unwrap();

    let output = coco_run(&tmp, &["--ranks", "1"]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(thesis.join("chapter1.tex").exists());
    assert!(live.join("x.npy").exists());
    assert!(!dead.exists());
    drop(file);
}
