//! Mangled IR through every tool: the examples and test inputs, cut at
//! `// -----`, edited by `mangle` (typos, swapped lines, extreme numbers,
//! swapped types, deep nesting), then given to coco-opt (with and without
//! passes), coco-translate, coco-run on the reference backend and
//! coco-bigtest. Every run must end, with output or a diagnostic.

use std::path::Path;

use super::{keep, Category, Env, Outcome};
use crate::mangle::{hostile, mutate};

pub struct Ir {
    corpus: Vec<String>,
}

/// Pass flags that reach the transformations, not only the verifier.
const PASSES: &[&[&str]] = &[
    &["--coco-verify"],
    &["--canonicalize"],
    &["--cse"],
    &["--coco-split"],
    &["--coco-split=via=reduce-broadcast"],
    &["--coco-reorder"],
    &["--coco-as-slice"],
    &["--coco-fuse"],
    &["--coco-overlap"],
    &["--coco-tile"],
    &["--coco-autotune=v100-cluster"],
    &["--coco-autotune=cpu-host", "--autotune-ranks", "3"],
    &["--bigtest-jdu-paths"],
    &["--bigtest-jdu-paths", "--bigtest-solve=timeout-ms=2000"],
];

impl Ir {
    pub fn new(repo: &Path) -> Ir {
        let mut corpus = Vec::new();
        for dir in ["examples", "test"] {
            collect(&repo.join(dir), &mut corpus);
        }
        corpus.sort();
        Ir { corpus }
    }
}

fn collect(dir: &Path, corpus: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            if !path.ends_with("snapshots") {
                collect(&path, corpus);
            }
        } else if path.extension().is_some_and(|e| e == "mlir") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for chunk in text.split("// -----") {
                if chunk.contains("func.func") && chunk.len() < 20_000 {
                    corpus.push(chunk.to_string());
                }
            }
        }
    }
}

impl Category for Ir {
    fn name(&self) -> &'static str {
        "mangled IR"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let mut rng = env.rng(self.name(), index);
        let mut text = self.corpus[rng.below(self.corpus.len())].clone();
        for _ in 0..1 + rng.below(3) {
            text = if rng.below(3) == 0 {
                hostile(&text, &mut rng)
            } else {
                mutate(&text, &mut rng)
            };
        }
        let sandbox = env.sandbox("ir", index);
        let _ = sandbox.write("input.mlir", text.as_bytes());
        let mut args: Vec<&str> = Vec::new();
        let tool = match rng.below(20) {
            0..=8 => {
                args.push("input.mlir");
                "coco-opt"
            }
            9..=13 => {
                args.push("input.mlir");
                args.extend_from_slice(PASSES[rng.below(PASSES.len())]);
                "coco-opt"
            }
            14 | 15 => {
                let emit = ["--emit=plan", "--emit=kernels", "--emit=plan"][rng.below(3)];
                let ranks = ["1", "2", "3"][rng.below(3)];
                args.extend_from_slice(&["input.mlir", emit, "--ranks", ranks]);
                "coco-translate"
            }
            16..=18 => {
                let ranks = ["1", "2", "4"][rng.below(3)];
                args.extend_from_slice(&["input.mlir", "--backend", "reference", "--ranks", ranks]);
                "coco-run"
            }
            _ => {
                args.extend_from_slice(&["run", "input.mlir"]);
                "coco-bigtest"
            }
        };
        let (job, invocation) = env.invoke(tool, &args, &sandbox);
        let command = format!("{tool} {}", args.join(" "));
        let run = match invocation.run() {
            Ok(run) => run,
            Err(e) => {
                return Outcome {
                    case: command,
                    verdict: crate::process::Verdict::Crash(format!("cannot start: {e}")),
                    detail: String::new(),
                }
            }
        };
        let verdict = env.judge(&job, &run, |v| v);
        let case = if matches!(
            verdict,
            crate::process::Verdict::Ok | crate::process::Verdict::CleanError
        ) {
            command
        } else {
            let kept = keep(env, "ir", index, "input.mlir", text.as_bytes());
            format!("{command}  (input: {kept})")
        };
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
