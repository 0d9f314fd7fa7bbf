//! coco-run's sweep of stale temporary folders against folders it must not
//! touch: a user's own `coco-run-999999-thesis/` and `coco-run-1-notes/`,
//! and the folders of a live job in another PID namespace that shares
//! TMPDIR (a container; `unshare --pid --fork --mount-proc`, as root), in
//! either direction. The live job must keep its folders and finish; the
//! user's folders must survive every run.

use std::time::{Duration, Instant};

use super::{must, Category, Env, Outcome};
use crate::process::{job_processes, kill_job, Verdict};
use crate::sandbox::Sandbox;

pub struct Sweep {
    program: String,
}

impl Sweep {
    pub fn new(env: &Env) -> Result<Sweep, String> {
        let sandbox = Sandbox::new(&env.out, "sweep-fixture").map_err(|e| e.to_string())?;
        let program = env.example("coco/adam.mlir");
        must(env, "coco-run", &[&program, "--ranks", "1"], &sandbox)?;
        Ok(Sweep { program })
    }
}

/// Whether this process may make PID namespaces.
fn can_unshare() -> bool {
    std::process::Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc", "true"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The user's folders, made in `tmp`, that no run may delete.
const USER_FOLDERS: &[&str] = &["coco-run-999999-thesis", "coco-run-1-notes"];

impl Category for Sweep {
    fn name(&self) -> &'static str {
        "temporary-folder sweeps"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let sandbox = env.sandbox("sweep", index);
        // 0: user folders only; 1: the live job outside, the sweeping run
        // in a PID namespace; 2: the other way round.
        let scenario = index % 3;
        let case = match scenario {
            0 => "coco-run beside the user's coco-run-999999-thesis/ and coco-run-1-notes/",
            1 => "a live coco-run, and coco-run in another PID namespace sharing TMPDIR",
            _ => "a live coco-run in a PID namespace, and coco-run outside sharing TMPDIR",
        }
        .to_string();
        if scenario > 0 && !can_unshare() {
            return Outcome {
                case: format!("{case} (skipped: cannot make PID namespaces here)"),
                verdict: Verdict::Ok,
                detail: String::new(),
            };
        }
        const UNSHARE: &[&str] = &["unshare", "--pid", "--fork", "--mount-proc"];
        let (live, mut live_run) = env.invoke_wrapped(
            if scenario == 2 { UNSHARE } else { &[] },
            "coco-run",
            &[&self.program, "--ranks", "2", "--repeat", "100000000"],
            &sandbox,
        );
        for folder in USER_FOLDERS {
            let _ = std::fs::create_dir_all(live.tmp.join(folder));
            let _ = std::fs::write(live.tmp.join(folder).join("chapter1.tex"), "mine");
        }
        live_run.reap_group = false;
        live_run.timeout = Duration::from_secs(300);
        let started = match (scenario > 0).then(|| live_run.spawn()) {
            Some(Ok(started)) => Some(started),
            Some(Err(e)) => return Outcome::not_run(case, format!("cannot start: {e}")),
            None => None,
        };
        let waiter = started.map(|s| std::thread::spawn(move || s.finish()));
        if waiter.is_some() {
            let ready = Instant::now() + Duration::from_secs(180).mul_f64(super::load_factor());
            while Instant::now() < ready
                && job_processes(&live.tag)
                    .iter()
                    .filter(|p| p.name.starts_with("coco-exec") && !p.zombie)
                    .count()
                    < 2
            {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let live_folders_before = folders(&live.tmp);
        // The sweeping run: a short job sharing the live job's TMPDIR.
        let (sweeper, mut sweep_run) = env.invoke_wrapped(
            if scenario == 1 { UNSHARE } else { &[] },
            "coco-run",
            &[&self.program, "--ranks", "1"],
            &sandbox,
        );
        sweep_run.command.env("TMPDIR", &live.tmp);
        let swept = sweep_run.run();
        sweeper.wait_gone(Duration::from_secs(30));
        let live_folders_after = folders(&live.tmp);
        let still_alive = waiter.as_ref().is_some_and(|w| !w.is_finished());
        kill_job(&live.tag);
        let run = match waiter.map(|w| w.join().expect("waiter")) {
            Some(run) => run,
            None => match swept {
                Ok(run) => run,
                Err(e) => return Outcome::not_run(case, format!("cannot start: {e}")),
            },
        };
        let lost_user: Vec<_> = USER_FOLDERS
            .iter()
            .filter(|f| !live.tmp.join(f).join("chapter1.tex").exists())
            .collect();
        let lost_live: Vec<_> = live_folders_before
            .iter()
            .filter(|f| !live_folders_after.contains(f))
            .collect();
        let verdict = if !lost_user.is_empty() {
            Verdict::Wrong(format!("deleted the user's folders: {lost_user:?}"))
        } else if !lost_live.is_empty() {
            Verdict::Wrong(format!("deleted the live job's folders: {lost_live:?}"))
        } else if scenario > 0 && !still_alive {
            Verdict::Wrong("the live job ended while the other run swept".into())
        } else {
            Verdict::Ok
        };
        live.clean();
        sweeper.clean();
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}

/// The coco folders in `tmp`.
fn folders(tmp: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("coco") && !USER_FOLDERS.contains(&n.as_str()))
                .collect()
        })
        .unwrap_or_default()
}
