//! Signals to a whole job's process group, as `timeout` (SIGTERM to the
//! group), Ctrl-C in a terminal (SIGINT to the group), a closed terminal
//! (SIGHUP) and a scheduler's hard kill (SIGKILL to the group) send them, to
//! a running `coco-run` on 4 MPI ranks. Every process must end, and nothing
//! may be left in the job's TMPDIR (coco's folders, Open MPI's `ompi.*`
//! session folders) or in /dev/shm (Open MPI's shared-memory segments,
//! 4 MiB a rank). After a SIGKILL nobody of the job is left to clean, so
//! the next coco-run on the machine must reclaim what the dead job left.
//!
//! /dev/shm is shared with every other job on the machine, so only what
//! the case's own job made is judged, and only the folder the harness made
//! is removed: the job gets a folder of its own there (`COCO_SHM_DIR`,
//! where coco-run puts Open MPI's segments), and an entry outside it counts
//! only if it appeared during the job and carries the launcher's pid in the
//! name, as coco's folders do (`coco-run-PID-TOKEN-N-shm`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{must, Category, Env, Outcome};
use crate::process::{job_processes, kill_group, kill_job, Verdict};
use crate::sandbox::Sandbox;

pub struct Groups {
    program: String,
}

const SIGNALS: &[(libc::c_int, &str)] = &[
    (libc::SIGTERM, "SIGTERM"),
    (libc::SIGINT, "SIGINT"),
    (libc::SIGHUP, "SIGHUP"),
    (libc::SIGKILL, "SIGKILL"),
];

impl Groups {
    pub fn new(env: &Env) -> Result<Groups, String> {
        let sandbox = Sandbox::new(&env.out, "groups-fixture").map_err(|e| e.to_string())?;
        let program = env.example("coco/adam.mlir");
        // Compiles once, so that every case reaches its ranks quickly.
        must(env, "coco-run", &[&program, "--ranks", "2"], &sandbox)?;
        Ok(Groups { program })
    }
}

/// The machine's shared-memory folder.
const SHM: &str = "/dev/shm";

/// The variable that tells coco-run where to put Open MPI's shared memory
/// (`coco_runtime::launch::SHM_DIR_ENV`).
const SHM_DIR_ENV: &str = "COCO_SHM_DIR";

/// The names in `root` now.
fn entries(root: &Path) -> BTreeSet<String> {
    std::fs::read_dir(root)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The job's own folder in `root`, named as its TMPDIR is (`cfPID-N`, the
/// harness's pid and the job's number): nobody else makes such a name.
fn own_shm(root: &Path, job: &super::Job) -> PathBuf {
    root.join(job.tmp.file_name().unwrap_or_default())
}

/// What the job with launcher `launcher` left in shared memory: whatever
/// is still in its own folder `mine`, and the entries of `root` that were
/// not there `before` and name the launcher as coco's folders do
/// (`PREFIX-PID-...`). Other jobs' entries are no concern of the case.
fn shm_left(root: &Path, mine: &Path, before: &BTreeSet<String>, launcher: u32) -> Vec<String> {
    let own = mine.file_name().map(|n| n.to_string_lossy().into_owned());
    let marker = format!("-{launcher}-");
    let mut left: Vec<String> = entries(mine)
        .into_iter()
        .map(|name| format!("{}/{name}", own.as_deref().unwrap_or_default()))
        .collect();
    left.extend(entries(root).into_iter().filter(|name| {
        !before.contains(name) && Some(name) != own.as_ref() && name.contains(&marker)
    }));
    left.into_iter()
        .map(|name| root.join(name).display().to_string())
        .collect()
}

/// What a job left in its TMPDIR: coco's folders and Open MPI's.
fn temp_left(tmp: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.starts_with("coco") || name.starts_with("ompi"))
                .collect()
        })
        .unwrap_or_default()
}

impl Category for Groups {
    fn name(&self) -> &'static str {
        "signals to the whole job"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let sandbox = env.sandbox("groups", index);
        let (signal, signal_name) = SIGNALS[index % SIGNALS.len()];
        let ranks = ["4", "2"][(index / SIGNALS.len()) % 2];
        let case =
            format!("{signal_name} to the process group of `coco-run adam.mlir --ranks {ranks}`");
        let shm_root = Path::new(SHM);
        let shm_before = entries(shm_root);
        let args = [
            self.program.as_str(),
            "--ranks",
            ranks,
            "--repeat",
            "100000000",
        ];
        let (job, mut invocation) = env.invoke("coco-run", &args, &sandbox);
        let shm = own_shm(shm_root, &job);
        if let Err(e) = std::fs::create_dir_all(&shm) {
            return Outcome::not_run(case, format!("cannot create {}: {e}", shm.display()));
        }
        invocation.command.env(SHM_DIR_ENV, &shm);
        invocation.reap_group = false;
        invocation.timeout = Duration::from_secs(300);
        let started = match invocation.spawn() {
            Ok(started) => started,
            Err(e) => return Outcome::not_run(case, format!("cannot start: {e}")),
        };
        let leader = started.pid() as libc::pid_t;
        let waiter = std::thread::spawn(move || started.finish());
        let wanted: usize = ranks.parse().unwrap_or(1);
        let ready = Instant::now() + Duration::from_secs(180).mul_f64(super::load_factor());
        loop {
            let running = job_processes(&job.tag)
                .into_iter()
                .filter(|p| p.name.starts_with("coco-exec") && !p.zombie)
                .count();
            if running >= wanted || waiter.is_finished() || Instant::now() > ready {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // The ranks have opened their shared memory once they step.
        std::thread::sleep(Duration::from_millis(1500));
        kill_group(leader, signal);
        let left = job.wait_gone(Duration::from_secs(30));
        let run = waiter.join().expect("waiter");
        if signal == libc::SIGKILL {
            // Nobody of the job could clean up: the next run must.
            let next = env.sandbox("groups-next", index);
            let (next_job, next_run) =
                env.invoke("coco-run", &[self.program.as_str(), "--ranks", "1"], &next);
            // The next run shares the killed job's TMPDIR, as a user's next
            // run shares theirs.
            let mut next_run = next_run;
            next_run.command.env("TMPDIR", &job.tmp);
            next_run.command.env(SHM_DIR_ENV, &shm);
            let _ = next_run.run();
            next_job.wait_gone(Duration::from_secs(30));
            let _ = crate::sandbox::remove_all(&next.root);
        }
        let in_tmp = temp_left(&job.tmp);
        let new_shm = shm_left(shm_root, &shm, &shm_before, leader as u32);
        job.clean();
        kill_job(&job.tag);
        let verdict = if !left.is_empty() {
            Verdict::Hang(format!(
                "still running after the {signal_name} to the group: {}",
                left.join(", ")
            ))
        } else if !in_tmp.is_empty() {
            Verdict::Wrong(format!("left in TMPDIR: {}", in_tmp.join(", ")))
        } else if !new_shm.is_empty() {
            Verdict::Wrong(format!("left in /dev/shm: {}", new_shm.join(", ")))
        } else if run.success() {
            Verdict::Wrong("the job reported success after being signalled".into())
        } else {
            Verdict::CleanError
        };
        // Only the folder the harness made: an entry outside it may be
        // another user's live job.
        let _ = crate::sandbox::remove_all(&shm);
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_jobs_own_shared_memory_is_judged_and_removed() {
        let root = std::env::temp_dir().join(format!("coco-fault-shm-{}", std::process::id()));
        let _ = crate::sandbox::remove_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        // Another user's job, running before and during the case, and one
        // that starts during it: Open MPI and coco names alike.
        std::fs::write(root.join("vader_segment.host.1f.0"), "").unwrap();
        let before = entries(&root);
        std::fs::write(root.join("vader_segment.host.2a.1"), "").unwrap();
        std::fs::create_dir(root.join("coco-run-4242-0123abcd-0-shm")).unwrap();
        // The case's job: a segment left in its own folder, and a folder
        // of its launcher (pid 777) outside it.
        let job = crate::cases::Job {
            tag: "t".into(),
            tmp: std::env::temp_dir().join("cf1-2"),
        };
        let mine = own_shm(&root, &job);
        std::fs::create_dir(&mine).unwrap();
        std::fs::write(mine.join("vader_segment.host.3b.0"), "").unwrap();
        std::fs::create_dir(root.join("coco-run-777-89abcdef-0-shm")).unwrap();

        let left = shm_left(&root, &mine, &before, 777);
        let shown = |name: &str| root.join(name).display().to_string();
        assert_eq!(
            left,
            [
                shown("cf1-2/vader_segment.host.3b.0"),
                shown("coco-run-777-89abcdef-0-shm")
            ]
        );
        // Nothing else's entries are removed with the job's own folder.
        crate::sandbox::remove_all(&mine).unwrap();
        assert_eq!(
            entries(&root),
            BTreeSet::from([
                "coco-run-4242-0123abcd-0-shm".to_string(),
                "coco-run-777-89abcdef-0-shm".to_string(),
                "vader_segment.host.1f.0".to_string(),
                "vader_segment.host.2a.1".to_string(),
            ])
        );
        crate::sandbox::remove_all(&root).unwrap();
    }
}
