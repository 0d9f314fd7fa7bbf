//! Killed and stopped processes of a running job: SIGTERM, SIGINT or
//! SIGKILL to the launcher (coco-run, or coco-exec starting itself under
//! mpirun), to mpirun, or to a rank, and SIGSTOP to a rank. Within 30 s
//! (a stopped rank: the watchdog's time plus 30 s), stretched by the
//! machine's load ([`super::load_factor`]), every process of the job must
//! be gone, no coco temporary folder may remain, and a job that lost a rank
//! must not report success.

use std::time::{Duration, Instant};

use super::{must, Category, Env, Outcome};
use crate::process::{job_processes, kill, kill_job, Verdict};
use crate::sandbox::Sandbox;

pub struct Ranks {
    bundle: String,
    inputs: String,
    program: String,
}

/// The watchdog the harness sets for stopped ranks (seconds).
pub const WATCHDOG_S: u64 = 10;

#[derive(Clone, Copy, Debug)]
enum Target {
    Launcher,
    Mpirun,
    FirstRank,
    LastRank,
}

const FAULTS: &[(Target, libc::c_int, &str)] = &[
    (Target::Launcher, libc::SIGTERM, "SIGTERM"),
    (Target::Launcher, libc::SIGINT, "SIGINT"),
    (Target::Launcher, libc::SIGKILL, "SIGKILL"),
    (Target::Mpirun, libc::SIGTERM, "SIGTERM"),
    (Target::Mpirun, libc::SIGKILL, "SIGKILL"),
    (Target::FirstRank, libc::SIGKILL, "SIGKILL"),
    (Target::LastRank, libc::SIGTERM, "SIGTERM"),
    (Target::LastRank, libc::SIGSTOP, "SIGSTOP"),
];

const MODES: usize = 3;

impl Ranks {
    pub fn new(env: &Env) -> Result<Ranks, String> {
        let sandbox = Sandbox::new(&env.out, "ranks-fixture").map_err(|e| e.to_string())?;
        let program = env.example("coco/adam.mlir");
        must(
            env,
            "coco-translate",
            &[
                &program,
                "--emit=bundle",
                "--ranks",
                "4",
                "-o",
                "adam.bundle",
            ],
            &sandbox,
        )?;
        must(
            env,
            "coco-run",
            &[&program, "--ranks", "4", "--save-inputs", "in"],
            &sandbox,
        )?;
        Ok(Ranks {
            bundle: sandbox.path("adam.bundle").display().to_string(),
            inputs: sandbox.path("in").display().to_string(),
            program,
        })
    }
}

impl Category for Ranks {
    fn name(&self) -> &'static str {
        "killed and stopped ranks"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let sandbox = env.sandbox("ranks", index);
        let (target, signal, signal_name) = FAULTS[index % FAULTS.len()];
        let mode = (index / FAULTS.len()) % MODES;
        let repeat = "100000000";
        let (tool, args): (&str, Vec<&str>) = match mode {
            0 => (
                "coco-run",
                vec![&self.program, "--ranks", "4", "--repeat", repeat],
            ),
            1 => (
                "coco-run",
                vec![
                    &self.bundle,
                    "--ranks",
                    "4",
                    "--inputs",
                    &self.inputs,
                    "--repeat",
                    repeat,
                ],
            ),
            _ => (
                "coco-exec",
                vec![&self.bundle, "--inputs", &self.inputs, "--repeat", repeat],
            ),
        };
        let case = format!(
            "{signal_name} to {target:?} of `{tool} {}`",
            if mode == 0 {
                "adam.mlir"
            } else {
                "adam.bundle"
            }
        );
        let (job, mut invocation) = env.invoke(tool, &args, &sandbox);
        invocation.reap_group = false;
        invocation.timeout = Duration::from_secs(300);
        invocation
            .command
            .env("COCO_WATCHDOG_S", WATCHDOG_S.to_string());
        let started = match invocation.spawn() {
            Ok(started) => started,
            Err(e) => {
                return Outcome {
                    case,
                    verdict: Verdict::Crash(format!("cannot start: {e}")),
                    detail: String::new(),
                }
            }
        };
        let launcher = started.pid();
        let waiter = std::thread::spawn(move || started.finish());
        // Wait for the four ranks (coco-run compiles first).
        let ready = Instant::now() + Duration::from_secs(180).mul_f64(super::load_factor());
        let ranks = loop {
            let ranks: Vec<_> = job_processes(&job.tag)
                .into_iter()
                .filter(|p| p.name.starts_with("coco-exec") && p.pid != launcher && !p.zombie)
                .collect();
            if ranks.len() >= 4 || waiter.is_finished() || Instant::now() > ready {
                break ranks;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        if ranks.len() < 4 {
            let run = waiter.join().expect("waiter");
            kill_job(&job.tag);
            job.clean();
            return Outcome::of(
                case,
                &run,
                Verdict::Wrong(format!(
                    "the job did not start its 4 ranks (saw {})",
                    ranks.len()
                )),
            );
        }
        std::thread::sleep(Duration::from_millis(500));
        let victim = match target {
            Target::Launcher => Some(launcher),
            Target::Mpirun => job_processes(&job.tag)
                .into_iter()
                .find(|p| {
                    p.name.contains("mpirun")
                        || p.name.contains("prte")
                        || p.name.contains("mpiexec")
                })
                .map(|p| p.pid),
            Target::FirstRank => ranks.iter().map(|p| p.pid).min(),
            Target::LastRank => ranks.iter().map(|p| p.pid).max(),
        };
        let Some(victim) = victim else {
            kill_job(&job.tag);
            let run = waiter.join().expect("waiter");
            job.clean();
            return Outcome::of(case, &run, Verdict::Wrong("no process to signal".into()));
        };
        kill(victim, signal);
        let limit = if signal == libc::SIGSTOP {
            WATCHDOG_S + 30
        } else {
            30
        };
        let left = job.wait_gone(Duration::from_secs(limit));
        let run = waiter.join().expect("waiter");
        let leaked = job.coco_temp();
        job.clean();
        let verdict = if !left.is_empty() {
            Verdict::Hang(format!(
                "still running after the {signal_name} ({limit} s on a quiet machine, \
                 stretched by the load): {}",
                left.join(", ")
            ))
        } else if let Some(folder) = leaked {
            Verdict::Wrong(format!("temporary folder left behind: {folder}"))
        } else {
            let stderr = run.stderr_text();
            let success = run.status.is_some_and(|s| s.success());
            if success {
                Verdict::Wrong("the job reported success after losing a process".into())
            } else if stderr.contains("panicked at") || stderr.contains("internal error") {
                Verdict::Crash("the launcher panicked".into())
            } else if matches!(target, Target::Launcher) || stderr.contains("error:") {
                Verdict::CleanError
            } else {
                Verdict::Crash("the job failed without a diagnostic".into())
            }
        };
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
