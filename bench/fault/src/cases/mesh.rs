//! Mesh plan edits: a bundle compiled for a 2x2 mesh with one line of its
//! plan.toml deleted, each in turn: a collective's `axis` or an output's
//! `axes`. Run by coco-run: a clean error naming the plan, or the pristine
//! outputs; never a crash, a hang, or outputs of another placement.

use super::{copy_dir, must, read_outputs, Category, Env, Outcome};
use crate::process::Verdict;
use crate::sandbox::Sandbox;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// An all_reduce over one axis of a 2x2 mesh, sliced along the other.
const PROGRAM: &str = r#"coco.mesh @grid ["dp" = 2, "tp" = 2]
func.func @step(%g: tensor<8x4xf32, #coco.mesh<{"dp" = #coco.local, "tp" = #coco.sliced<1>}>> {coco.input = "normal(0,1)"}) -> tensor<8x4xf32, #coco.mesh<{"dp" = #coco.replicated, "tp" = #coco.sliced<1>}>> {
  %r = coco.all_reduce sum %g over "dp" : tensor<8x4xf32, #coco.mesh<{"dp" = #coco.local, "tp" = #coco.sliced<1>}>> -> tensor<8x4xf32, #coco.mesh<{"dp" = #coco.replicated, "tp" = #coco.sliced<1>}>>
  return %r : tensor<8x4xf32, #coco.mesh<{"dp" = #coco.replicated, "tp" = #coco.sliced<1>}>>
}
"#;

pub struct Mesh {
    bundle: PathBuf,
    inputs: PathBuf,
    outputs: BTreeMap<String, Vec<u8>>,
    /// The plan's lines that name an axis (`axis = ...`, `axes = ...`).
    lines: Vec<usize>,
}

impl Mesh {
    pub fn new(env: &Env) -> Result<Mesh, String> {
        let sandbox = Sandbox::new(&env.out, "mesh-fixture").map_err(|e| e.to_string())?;
        sandbox
            .write("mesh.mlir", PROGRAM.as_bytes())
            .map_err(|e| e.to_string())?;
        must(
            env,
            "coco-opt",
            &["mesh.mlir", "--coco-split", "-o", "split.mlir"],
            &sandbox,
        )?;
        must(
            env,
            "coco-run",
            &["split.mlir", "--ranks", "4", "--save-inputs", "in"],
            &sandbox,
        )?;
        must(
            env,
            "coco-translate",
            &[
                "split.mlir",
                "--emit=bundle",
                "--ranks",
                "4",
                "-o",
                "mesh.bundle",
            ],
            &sandbox,
        )?;
        must(
            env,
            "coco-run",
            &[
                "mesh.bundle",
                "--ranks",
                "4",
                "--inputs",
                "in",
                "--outputs",
                "out",
            ],
            &sandbox,
        )?;
        let plan = std::fs::read_to_string(sandbox.path("mesh.bundle/plan.toml"))
            .map_err(|e| format!("the fixture's plan.toml: {e}"))?;
        let lines: Vec<usize> = plan
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                let l = l.trim_start();
                l.starts_with("axis =") || l.starts_with("axes =")
            })
            .map(|(i, _)| i)
            .collect();
        if lines.is_empty() {
            return Err("the mesh bundle's plan.toml names no axis".into());
        }
        Ok(Mesh {
            bundle: sandbox.path("mesh.bundle"),
            inputs: sandbox.path("in"),
            outputs: read_outputs(&sandbox.path("out")),
            lines,
        })
    }
}

impl Category for Mesh {
    fn name(&self) -> &'static str {
        "mesh plan edits"
    }

    fn case(&self, env: &Env, index: usize) -> Outcome {
        let sandbox = env.sandbox("mesh", index);
        let bundle = sandbox.path("bundle");
        let _ = copy_dir(&self.bundle, &bundle);
        let plan_path = bundle.join("plan.toml");
        let text = std::fs::read_to_string(&plan_path).unwrap_or_default();
        let at = self.lines[index % self.lines.len()];
        let deleted = text.lines().nth(at).unwrap_or_default().trim().to_string();
        let edited: Vec<&str> = text
            .lines()
            .enumerate()
            .filter(|(i, _)| *i != at)
            .map(|(_, l)| l)
            .collect();
        let _ = std::fs::write(&plan_path, edited.join("\n") + "\n");
        let case = format!(
            "coco-run on a mesh bundle without plan.toml line {} ({deleted})",
            at + 1
        );
        let inputs = self.inputs.display().to_string();
        let args = [
            "bundle",
            "--ranks",
            "4",
            "--inputs",
            &inputs,
            "--outputs",
            "out",
        ];
        let before = sandbox.snapshot();
        let (job, invocation) = env.invoke("coco-run", &args, &sandbox);
        let Ok(run) = invocation.run() else {
            return Outcome::not_run(case, "cannot start coco-run");
        };
        let verdict = env.judge(&job, &run, |v| {
            let outside = sandbox.changes_outside(&before, &["out"]);
            if !outside.is_empty() {
                return Verdict::Wrong(format!(
                    "outside the output folder: {}",
                    outside.join(", ")
                ));
            }
            if v == Verdict::Ok && read_outputs(&sandbox.path("out")) != self.outputs {
                return Verdict::Wrong(format!(
                    "ran the plan without `{deleted}` and computed other outputs"
                ));
            }
            v
        });
        let _ = crate::sandbox::remove_all(&sandbox.root);
        Outcome::of(case, &run, verdict)
    }
}
