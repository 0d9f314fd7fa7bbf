//! A bundle's kernels swapped for others: `kernels.so` of another build of
//! the same program (larger or smaller tensors), `plan.toml`
//! linked from another bundle, and a FIFO, a folder or a link to /dev/zero
//! where `kernels.so` should be. Each must be refused before a kernel runs
//! (larger kernels on smaller buffers once corrupted the heap; smaller ones
//! gave wrong outputs with exit 0); the pristine bundle, and a link to an
//! identical copy of its kernels, must run and give the pristine outputs.

use super::npy::{Fixture, PROGRAM};
use super::{copy_dir, must, read_outputs, Category, Env, Outcome};
use crate::process::Verdict;
use crate::sandbox::Sandbox;

pub struct Kernels {
    pub fixture: Fixture,
    /// The same program with 64x the elements, on 2 ranks.
    larger: std::path::PathBuf,
    /// The same program with a quarter of the elements, on 2 ranks.
    smaller: std::path::PathBuf,
}

impl Kernels {
    pub fn new(env: &Env) -> Result<Kernels, String> {
        let fixture = Fixture::new(env)?;
        let sandbox = Sandbox::new(&env.out, "kernels-fixture").map_err(|e| e.to_string())?;
        for (name, elements) in [("larger", "4096xf32"), ("smaller", "16xf32")] {
            let program = format!("{name}.mlir");
            let _ = sandbox.write(&program, PROGRAM.replace("64xf32", elements).as_bytes());
            let bundle = format!("{name}.bundle");
            must(
                env,
                "coco-translate",
                &[&program, "--emit=bundle", "--ranks", "2", "-o", &bundle],
                &sandbox,
            )?;
        }
        Ok(Kernels {
            fixture,
            larger: sandbox.path("larger.bundle"),
            smaller: sandbox.path("smaller.bundle"),
        })
    }
}

#[derive(Clone, Copy, Debug)]
enum Swap {
    LargerBuild,
    SmallerBuild,
    PlanLinkedFromLarger,
    DevZero,
    Fifo,
    Folder,
    Pristine,
    LinkToIdenticalCopy,
}

const SWAPS: &[Swap] = &[
    Swap::LargerBuild,
    Swap::SmallerBuild,
    Swap::PlanLinkedFromLarger,
    Swap::DevZero,
    Swap::Fifo,
    Swap::Folder,
    Swap::Pristine,
    Swap::LinkToIdenticalCopy,
];

impl Kernels {
    fn apply(
        &self,
        swap: Swap,
        bundle: &std::path::Path,
        spare: &std::path::Path,
    ) -> std::io::Result<()> {
        let so = bundle.join("kernels.so");
        match swap {
            Swap::LargerBuild => std::fs::copy(self.larger.join("kernels.so"), &so).map(drop),
            Swap::SmallerBuild => std::fs::copy(self.smaller.join("kernels.so"), &so).map(drop),
            Swap::PlanLinkedFromLarger => {
                std::fs::remove_file(bundle.join("plan.toml"))?;
                std::os::unix::fs::symlink(self.larger.join("plan.toml"), bundle.join("plan.toml"))
            }
            Swap::DevZero => {
                std::fs::remove_file(&so)?;
                std::os::unix::fs::symlink("/dev/zero", &so)
            }
            Swap::Fifo => {
                std::fs::remove_file(&so)?;
                let made = std::process::Command::new("mkfifo").arg(&so).status()?;
                if made.success() {
                    Ok(())
                } else {
                    Err(std::io::Error::other("mkfifo failed"))
                }
            }
            Swap::Folder => {
                std::fs::remove_file(&so)?;
                std::fs::create_dir(&so)
            }
            Swap::Pristine => Ok(()),
            Swap::LinkToIdenticalCopy => {
                std::fs::create_dir_all(spare)?;
                std::fs::rename(&so, spare.join("kernels.so"))?;
                std::os::unix::fs::symlink(spare.join("kernels.so"), &so)
            }
        }
    }
}

impl Category for Kernels {
    fn name(&self) -> &'static str {
        "swapped kernels"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let swap = SWAPS[index % SWAPS.len()];
        let sandbox = env.sandbox("kernels", index);
        let bundle = sandbox.path("mix.bundle");
        let case = format!("coco-run mix.bundle --ranks 2, {swap:?}");
        let prepared = copy_dir(&self.fixture.bundle, &bundle)
            .and_then(|()| self.apply(swap, &bundle, &sandbox.path("spare")));
        if let Err(e) = prepared {
            return Outcome::not_run(case, format!("cannot prepare the bundle: {e}"));
        }
        let inputs = self.fixture.inputs.display().to_string();
        let args = [
            "mix.bundle",
            "--ranks",
            "2",
            "--inputs",
            inputs.as_str(),
            "--outputs",
            "out",
        ];
        let (job, invocation) = env.invoke("coco-run", &args, &sandbox);
        let run = match invocation.run() {
            Ok(run) => run,
            Err(e) => return Outcome::not_run(case, format!("cannot start: {e}")),
        };
        let must_run = matches!(swap, Swap::Pristine | Swap::LinkToIdenticalCopy);
        let verdict = env.judge(&job, &run, |verdict| match (must_run, verdict) {
            (true, Verdict::Ok) => {
                if read_outputs(&sandbox.path("out")) == self.fixture.cpu_outputs {
                    Verdict::Ok
                } else {
                    Verdict::Wrong("outputs differ from the pristine bundle's".into())
                }
            }
            (true, Verdict::CleanError) => Verdict::Wrong("refused its own kernels".into()),
            (false, Verdict::Ok) => Verdict::Wrong(format!("ran with {swap:?}")),
            (false, Verdict::CleanError) if !run.stderr_text().contains("kernels") => {
                Verdict::Wrong("the refusal does not name the kernels".into())
            }
            (_, other) => other,
        });
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
