//! Signals to a whole job's process group, as `timeout` (SIGTERM to the
//! group), Ctrl-C in a terminal (SIGINT to the group), a closed terminal
//! (SIGHUP) and a scheduler's hard kill (SIGKILL to the group) send them, to
//! a running `coco-run` on 4 MPI ranks. Every process must end, and nothing
//! may be left in the job's TMPDIR (coco's folders, Open MPI's `ompi.*`
//! session folders) or in /dev/shm (Open MPI's shared-memory segments,
//! 4 MiB a rank). After a SIGKILL nobody of the job is left to clean, so
//! the next coco-run on the machine must reclaim what the dead job left.

use std::collections::BTreeSet;
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

/// The entries of /dev/shm that Open MPI or coco make.
fn shared_memory() -> BTreeSet<String> {
    std::fs::read_dir("/dev/shm")
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| {
                    ["vader", "sm_segment", "ompi", "coco", "mpi"]
                        .iter()
                        .any(|p| name.contains(p))
                })
                .collect()
        })
        .unwrap_or_default()
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
        let shm_before = shared_memory();
        let args = [
            self.program.as_str(),
            "--ranks",
            ranks,
            "--repeat",
            "100000000",
        ];
        let (job, mut invocation) = env.invoke("coco-run", &args, &sandbox);
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
            let _ = next_run.run();
            next_job.wait_gone(Duration::from_secs(30));
            let _ = crate::sandbox::remove_all(&next.root);
        }
        let in_tmp = temp_left(&job.tmp);
        let shm_after = shared_memory();
        let new_shm: Vec<_> = shm_after.difference(&shm_before).cloned().collect();
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
        for name in &new_shm {
            let _ = std::fs::remove_file(std::path::Path::new("/dev/shm").join(name));
            let _ = crate::sandbox::remove_all(&std::path::Path::new("/dev/shm").join(name));
        }
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
