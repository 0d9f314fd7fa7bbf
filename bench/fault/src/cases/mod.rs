//! The categories of hostile input. Each makes its `i`-th case from the
//! seed alone (so a failure replays with `--category C --first i --count 1`),
//! runs it, and judges it; [`Env::judge`] adds the checks every case shares:
//! no process of the job and no coco temporary folder left behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::mangle::Rng;
use crate::process::{job_processes, kill_job, Invocation, Run, Verdict};
use crate::sandbox::{remove_all, Sandbox};

pub mod data;
pub mod export;
pub mod groups;
pub mod ints;
pub mod ir;
pub mod kernels;
pub mod mesh;
pub mod npy;
pub mod paths;
pub mod plan;
pub mod planted;
pub mod ranks;
pub mod sizes;
pub mod sweep;
pub mod values;

/// What the harness runs against.
pub struct Env {
    /// Where coco-opt, coco-translate, coco-run, coco-bigtest and coco-exec are.
    pub bin: PathBuf,
    /// The repository (for examples/ and test/).
    pub repo: PathBuf,
    /// The harness's own directory: sandboxes and failing inputs.
    pub out: PathBuf,
    /// The deadline of one run.
    pub timeout: Duration,
    pub seed: u64,
    jobs: AtomicUsize,
}

/// What a case's input deserves, judged on a run's verdict.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Expect {
    /// Valid input the machine can run: exit 0.
    Success,
    /// Invalid input: a clean error.
    Error,
    /// Either a clean error or a success.
    Either,
}

impl Expect {
    /// `verdict` (an `Ok` or a `CleanError`) against the expectation.
    pub fn judge(self, verdict: Verdict) -> Verdict {
        match (verdict, self) {
            (Verdict::Ok, Expect::Error) => {
                Verdict::Wrong("accepted an input it must refuse".into())
            }
            (Verdict::CleanError, Expect::Success) => {
                Verdict::Wrong("refused a valid input".into())
            }
            (v, _) => v,
        }
    }
}

/// One judged case.
pub struct Outcome {
    /// What to replay: a file kept under the output directory, or a command.
    pub case: String,
    pub verdict: Verdict,
    pub detail: String,
}

impl Outcome {
    /// A case the harness could not run: its set-up or the tool's start
    /// failed (counted as a crash, so that it is seen).
    pub fn not_run(case: String, why: impl std::fmt::Display) -> Outcome {
        Outcome {
            case,
            verdict: Verdict::Crash(why.to_string()),
            detail: String::new(),
        }
    }

    pub fn of(case: String, run: &Run, verdict: Verdict) -> Outcome {
        Outcome {
            case,
            verdict,
            detail: run.stderr_text(),
        }
    }
}

/// A category of cases; `setup` runs once (compiling the bundles and the
/// pristine outputs cases compare with).
pub trait Category: Sync {
    fn name(&self) -> &'static str;
    fn case(&self, env: &Env, index: usize) -> Outcome;
}

impl Env {
    pub fn new(bin: PathBuf, repo: PathBuf, out: PathBuf, timeout: Duration, seed: u64) -> Env {
        Env {
            bin,
            repo,
            out,
            timeout,
            seed,
            jobs: AtomicUsize::new(0),
        }
    }

    pub fn tool(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }

    /// The path of `examples/<relative>` as text, for arguments.
    pub fn example(&self, relative: &str) -> String {
        self.repo
            .join("examples")
            .join(relative)
            .display()
            .to_string()
    }

    /// The deterministic generator of case `index` of `category`.
    pub fn rng(&self, category: &str, index: usize) -> Rng {
        let mut h = self.seed ^ 0x9e37_79b9_7f4a_7c15;
        for b in category.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x1000_0000_01b3);
        }
        Rng::new(h ^ (index as u64).wrapping_mul(0xff51_afd7_ed55_8ccd))
    }

    /// A fresh sandbox for case `index` of `category`.
    pub fn sandbox(&self, category: &str, index: usize) -> Sandbox {
        Sandbox::new(&self.out.join("cases"), &format!("{category}-{index}"))
            .expect("the harness's output directory is writable")
    }

    /// A job tag and an invocation of `tool` tagged with it, whose
    /// temporary folders go to a private directory (checked by `judge`).
    pub fn invoke(&self, tool: &str, args: &[&str], sandbox: &Sandbox) -> (Job, Invocation) {
        self.invoke_wrapped(&[], tool, args, sandbox)
    }

    /// [`Env::invoke`] through `wrapper` (see [`Invocation::wrapped`]).
    pub fn invoke_wrapped(
        &self,
        wrapper: &[&str],
        tool: &str,
        args: &[&str],
        sandbox: &Sandbox,
    ) -> (Job, Invocation) {
        let id = self.jobs.fetch_add(1, Ordering::Relaxed);
        let job = Job {
            tag: format!("{}-{id}", std::process::id()),
            // Short: OpenMPI puts its sockets under TMPDIR (108-byte limit).
            tmp: std::env::temp_dir().join(format!("cf{}-{id}", std::process::id())),
        };
        let _ = std::fs::create_dir_all(&job.tmp);
        let mut invocation =
            Invocation::wrapped(wrapper, &self.tool(tool), args, &job.tag, self.timeout);
        invocation
            .command
            .env("TMPDIR", &job.tmp)
            .current_dir(&sandbox.root);
        (job, invocation)
    }

    /// The verdict of a finished run after the shared checks; `oracle`
    /// refines an `Ok` or a `CleanError` (returns the verdict to keep).
    pub fn judge(&self, job: &Job, run: &Run, oracle: impl FnOnce(Verdict) -> Verdict) -> Verdict {
        let verdict = run.verdict();
        let left = job.wait_gone(Duration::from_secs(30));
        let leaked = job.coco_temp();
        job.clean();
        if !left.is_empty() {
            return Verdict::Hang(format!("left running: {}", left.join(", ")));
        }
        if let Some(folder) = leaked {
            return Verdict::Wrong(format!("temporary folder left behind: {folder}"));
        }
        match verdict {
            Verdict::Ok | Verdict::CleanError => oracle(verdict),
            other => other,
        }
    }
}

/// The processes and temporary directory of one run.
pub struct Job {
    pub tag: String,
    pub tmp: PathBuf,
}

impl Job {
    /// Waits for every process of the job to end, up to `limit` on a quiet
    /// machine; the names of those still alive at the end (then killed).
    ///
    /// A fixed wall-clock deadline would be a timed assertion: on a machine
    /// whose cores other work keeps busy, a job that is ending properly
    /// takes longer. So the deadline stretches by the machine's load while
    /// it waits ([`load_factor`], the most seen), and a job still running
    /// at the stretched deadline is a hang.
    pub fn wait_gone(&self, limit: Duration) -> Vec<String> {
        let start = std::time::Instant::now();
        let mut stretch = load_factor();
        loop {
            let alive: Vec<_> = job_processes(&self.tag)
                .into_iter()
                .filter(|p| !p.zombie)
                .collect();
            if alive.is_empty() {
                return Vec::new();
            }
            stretch = stretch.max(load_factor());
            if start.elapsed() >= limit.mul_f64(stretch) {
                kill_job(&self.tag);
                return alive
                    .iter()
                    .map(|p| format!("{} (pid {})", p.name, p.pid))
                    .collect();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A coco temporary folder left in the job's TMPDIR (MPI's own session
    /// folders are not coco's to clean).
    pub fn coco_temp(&self) -> Option<String> {
        std::fs::read_dir(&self.tmp)
            .ok()?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|name| name.starts_with("coco"))
    }

    pub fn clean(&self) {
        let _ = remove_all(&self.tmp);
    }
}

/// How much slower than quiet this machine is now: the runnable processes
/// per core (the 1-minute load average over the cores), at least 1 and at
/// most 20.
pub fn load_factor() -> f64 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    stretch(
        &std::fs::read_to_string("/proc/loadavg").unwrap_or_default(),
        cores,
    )
}

/// [`load_factor`] of a `/proc/loadavg` text on `cores` cores.
fn stretch(loadavg: &str, cores: usize) -> f64 {
    let load = loadavg
        .split_whitespace()
        .next()
        .and_then(|l| l.parse::<f64>().ok())
        .unwrap_or(0.0);
    (load / cores.max(1) as f64).clamp(1.0, 20.0)
}

/// Keeps a failing input under `out/failures/` and returns its path.
pub fn keep(env: &Env, category: &str, index: usize, name: &str, bytes: &[u8]) -> String {
    let dir = env.out.join("failures").join(format!("{category}-{index}"));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(name);
    let _ = std::fs::write(&path, bytes);
    path.display().to_string()
}

/// Every `.npy` file of `dir`, by name, as bytes.
pub fn read_outputs(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut outputs = std::collections::BTreeMap::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Ok(bytes) = std::fs::read(entry.path()) {
                outputs.insert(name, bytes);
            }
        }
    }
    outputs
}

/// Copies the files of `from` into a new directory `to` (one level).
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)?.flatten() {
        if entry.file_type()?.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// Runs `setup` steps: a command that must succeed before cases can run.
pub fn must(env: &Env, tool: &str, args: &[&str], sandbox: &Sandbox) -> Result<Run, String> {
    let (job, invocation) = env.invoke(tool, args, sandbox);
    let run = invocation
        .run()
        .map_err(|e| format!("cannot start {tool}: {e}"))?;
    job.wait_gone(Duration::from_secs(30));
    job.clean();
    if run.success() {
        Ok(run)
    } else {
        Err(format!(
            "set-up step failed: {tool} {}\n{}",
            args.join(" "),
            run.stderr_text()
        ))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn deadlines_stretch_with_the_load() {
        // A quiet machine keeps the deadline; load 8 to 19 on 2 cores (the
        // machine whose CI slice reported a false hang) stretches 30 s to
        // 120-285 s; an unreadable load keeps it.
        assert_eq!(super::stretch("0.52 0.40 0.33 1/200 7", 2), 1.0);
        assert_eq!(super::stretch("8.00 6.10 5.00 9/400 77", 2), 4.0);
        assert_eq!(super::stretch("19.00 12.0 9.0 21/500 99", 2), 9.5);
        assert_eq!(super::stretch("", 2), 1.0);
        assert_eq!(super::stretch("900.0 1 1 1/1 1", 2), 20.0);
    }
}
