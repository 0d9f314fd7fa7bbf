//! Symbolic links and FIFOs planted at the names a tool writes: `-o` of
//! coco-opt and coco-translate, `coco-translate --tune-gemms FILE`,
//! `coco-bigtest import -o`, `generate --pytest FILE`, and the reports
//! `generate` writes into an earlier output folder it replaces. A link points at a file of
//! the user's beside it; a FIFO has no reader. The tool may refuse the
//! name or write a file of its own in its place, but it must not write
//! through the link (the user's file stays as it was), must not hang on
//! the FIFO, and must not write anywhere else.

use super::{Category, Env, Outcome};
use crate::process::Verdict;

pub struct Planted;

/// The user's file every planted link points at.
const VICTIM: &str = "victim.txt";
const VICTIM_TEXT: &[u8] = b"the user's file: years of work\n";

/// A PySpark job coco-bigtest imports.
const JOB: &str = r#"from pyspark import SparkContext


def positives(lines):
    return lines.map(lambda line: int(line)).filter(lambda x: x > 0)


if __name__ == "__main__":
    sc = SparkContext(appName="positives")
    positives(sc.textFile("numbers.txt")).saveAsTextFile("out")
"#;

/// What is planted at the output name.
#[derive(Clone, Copy, Debug)]
enum Plant {
    /// A symbolic link to [`VICTIM`].
    Link,
    /// A link to a name that does not exist yet (the tool must not create
    /// the user's file through it).
    Dangling,
    /// A FIFO nobody reads.
    Fifo,
}

const PLANTS: [Plant; 3] = [Plant::Link, Plant::Dangling, Plant::Fifo];

/// The outputs, each `(description, tool, args, planted name, allowed)`.
/// `allowed`: what the tool may create or replace besides the name.
fn scenario(
    index: usize,
) -> (
    &'static str,
    &'static str,
    Vec<&'static str>,
    &'static str,
    Vec<&'static str>,
) {
    match index {
        0 => (
            "coco-opt -o",
            "coco-opt",
            vec!["p.mlir", "-o", "o.mlir"],
            "o.mlir",
            vec![],
        ),
        1 => (
            "coco-translate --emit=plan -o",
            "coco-translate",
            vec!["p.mlir", "--emit=plan", "-o", "plan.toml"],
            "plan.toml",
            vec![],
        ),
        2 => (
            "coco-translate --tune-gemms",
            "coco-translate",
            vec!["p.mlir", "--tune-gemms", "tiles.toml"],
            "tiles.toml",
            vec![],
        ),
        3 => (
            "coco-bigtest import -o",
            "coco-bigtest",
            vec!["import", "job.py", "-o", "job.mlir"],
            "job.mlir",
            vec![],
        ),
        4 => (
            "coco-bigtest generate --pytest",
            "coco-bigtest",
            vec!["generate", "job.py", "-o", "out", "--pytest", "test_job.py"],
            "test_job.py",
            vec!["out"],
        ),
        5 => (
            "coco-bigtest generate's report.txt",
            "coco-bigtest",
            vec!["generate", "df.mlir", "-o", "out"],
            "out/report.txt",
            vec!["out"],
        ),
        _ => (
            "coco-bigtest generate's report.json",
            "coco-bigtest",
            vec!["generate", "df.mlir", "-o", "out"],
            "out/report.json",
            vec!["out"],
        ),
    }
}

/// The number of scenarios of [`scenario`].
const SCENARIOS: usize = 7;

impl Category for Planted {
    fn name(&self) -> &'static str {
        "links and FIFOs at output names"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let sandbox = env.sandbox("planted", index);
        let (what, tool, args, name, mut allowed) = scenario(index % SCENARIOS);
        let plant = PLANTS[(index / SCENARIOS) % PLANTS.len()];
        let case = format!("{what} with {plant:?} planted at {name}");
        let set_up = (|| -> std::io::Result<()> {
            sandbox.write("p.mlir", super::npy::PROGRAM.as_bytes())?;
            sandbox.write(
                "df.mlir",
                super::paths::df_program("first.txt", "second.txt").as_bytes(),
            )?;
            sandbox.write("job.py", JOB.as_bytes())?;
            sandbox.write("numbers.txt", b"1\n-2\n3\n")?;
            sandbox.write(VICTIM, VICTIM_TEXT)?;
            let at = sandbox.path(name);
            if name.starts_with("out/") {
                // An earlier output, which generate replaces: the planted
                // report takes the place of its own.
                super::must(env, tool, &args, &sandbox).map_err(std::io::Error::other)?;
                std::fs::remove_file(&at)?;
            }
            if let Some(parent) = at.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let up = "../".repeat(name.matches('/').count());
            match plant {
                Plant::Link => std::os::unix::fs::symlink(format!("{up}{VICTIM}"), &at),
                Plant::Dangling => std::os::unix::fs::symlink(format!("{up}not-yet.txt"), &at),
                Plant::Fifo => {
                    let made = std::process::Command::new("mkfifo").arg(&at).status()?;
                    if made.success() {
                        Ok(())
                    } else {
                        Err(std::io::Error::other("mkfifo failed"))
                    }
                }
            }
        })();
        if let Err(e) = set_up {
            return Outcome::not_run(case, format!("set-up failed: {e}"));
        }
        allowed.push(name);
        let before = sandbox.snapshot();
        let (job, invocation) = env.invoke(tool, &args, &sandbox);
        let Ok(run) = invocation.run() else {
            return Outcome::not_run(case, format!("cannot start {tool}"));
        };
        let verdict = env.judge(&job, &run, |v| {
            let victim = std::fs::read(sandbox.path(VICTIM)).unwrap_or_default();
            if victim != VICTIM_TEXT {
                return Verdict::Wrong(format!("wrote through the link at {name} into {VICTIM}"));
            }
            let changes = sandbox.changes_outside(&before, &allowed);
            if !changes.is_empty() {
                return Verdict::Wrong(changes.join(", "));
            }
            v
        });
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
