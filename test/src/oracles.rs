//! Examples checked against numpy: `examples/coco/oracles/<name>.py`
//! recomputes `examples/coco/<name>.mlir` on one device from the inputs the
//! reference interpreter ran it with, and exits non-zero naming any output
//! that differs. The script says the worlds to check (`RANKS = 8`, or
//! `RANKS = [1, 2, 4, 8]`); it runs
//! with the project's `.venv` python (scripts/setup.sh installs numpy).

use std::path::{Path, PathBuf};

use crate::{repo_root, run_reference};

/// Every oracle script, with the example it checks.
pub fn oracles() -> Vec<(PathBuf, PathBuf)> {
    let dir = repo_root().join("examples/coco/oracles");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .map(|script| {
            let stem = script.file_stem().unwrap_or_default().to_owned();
            let example = repo_root()
                .join("examples/coco")
                .join(stem)
                .with_extension("mlir");
            (script, example)
        })
        .collect();
    found.sort();
    found
}

/// Runs `example` on the reference interpreter with seeded inputs and
/// `script` on what it read and wrote.
pub fn check(script: &Path, example: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(script).map_err(|e| format!("{}: {e}", script.display()))?;
    // `RANKS = 8` or `RANKS = [1, 2, 4, 8]`.
    let worlds: Vec<usize> = text
        .lines()
        .find_map(|line| line.strip_prefix("RANKS = "))
        .map(|rest| {
            rest.split('#')
                .next()
                .unwrap_or_default()
                .trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect()
        })
        .unwrap_or_default();
    if worlds.is_empty() {
        return Err(format!(
            "{}: no `RANKS = N` or `RANKS = [N, ...]` line",
            script.display()
        ));
    }
    let mut reports = String::new();
    for ranks in worlds {
        let report = check_on(script, example, ranks).map_err(|e| format!("{ranks} ranks: {e}"))?;
        reports.push_str(&format!("{ranks} ranks: {report}"));
    }
    Ok(reports)
}

/// [`check`] on one world of `ranks`.
fn check_on(script: &Path, example: &Path, ranks: usize) -> Result<String, String> {
    let scratch = std::env::temp_dir()
        .join("coco-filetests")
        .join("oracles")
        .join(format!(
            "{}-{}",
            std::process::id(),
            script.file_stem().unwrap_or_default().to_string_lossy()
        ));
    let _ = std::fs::remove_dir_all(&scratch);
    let (inputs, outputs) = (scratch.join("inputs"), scratch.join("outputs"));
    let run = run_reference(
        &example.to_string_lossy(),
        ranks,
        &[
            "--save-inputs",
            &inputs.to_string_lossy(),
            "--outputs",
            &outputs.to_string_lossy(),
        ],
    );
    if run.code != 0 {
        return Err(format!(
            "coco-run failed:\n{}",
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    let python = repo_root().join(".venv/bin/python");
    let oracle = std::process::Command::new(&python)
        .arg(script)
        .arg(&inputs)
        .arg(&outputs)
        .output()
        .map_err(|e| {
            format!(
                "cannot run {} (scripts/setup.sh makes it): {e}",
                python.display()
            )
        })?;
    let report = String::from_utf8_lossy(&oracle.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&scratch);
    if oracle.status.success() {
        Ok(report)
    } else {
        Err(format!(
            "the numpy oracle disagrees:\n{report}{}",
            String::from_utf8_lossy(&oracle.stderr)
        ))
    }
}

/// The world a program on a `coco.mesh` needs (its stages times the mesh's
/// ranks); `None` for other programs.
pub fn mesh_world(source: &str) -> Option<usize> {
    let context = coco_dialects::context();
    let module = coco_dialects::parse_module(&context, source, "example.mlir")?;
    let top = module.as_operation();
    let mesh = coco_dialects::coco::Mesh::declared(&top)?.mesh.size();
    let stages = coco_dialects::ir::body_ops(&top)
        .iter()
        .find_map(|op| coco_dialects::ir::int_attr(coco_dialects::ir::as_op(op), "num_stages"))
        .unwrap_or(1)
        .max(1) as usize;
    Some(mesh * stages)
}
