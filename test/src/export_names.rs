//! The exported PySpark job treats every name it did not write as data.
//!
//! Random hostile names (newlines, quotes, `"""`, backslashes, `\N`, Python
//! code, Unicode line separators; the generator is coco-fault's export
//! category's) go into a df program's name, its UDF's
//! symbol, the UDF's location, a source and a sink name, and the input
//! file's own name; `coco-translate --emit=pyspark` and
//! `--emit=pyspark-paths` (the coverage job) export each, and
//! test/export/check_names.py then requires of every job that it parses,
//! that its syntax tree is the one of the same program with plain names
//! (so no name became code, a comment or a docstring's end), and that
//! importing it and calling its UDFs runs no command, spawns nothing and
//! deletes nothing (an audit hook refuses those events).

use std::path::{Path, PathBuf};

use coco_fault::{cases::export::Names, mangle::Rng};

use crate::{
    repo_root,
    spark::{self, venv_python},
};

/// The jobs coco-translate writes: the program's, and its paths job.
const EMITS: [&str; 2] = ["pyspark", "pyspark-paths"];

/// Exports `names`'s program from `dir/<names.file>.mlir` as `emit` to `job`.
fn export(names: &Names, dir: &Path, job: &Path, emit: &str) -> Result<(), String> {
    let source = dir.join(format!("{}.mlir", names.file));
    std::fs::write(&source, names.program()).map_err(|e| format!("{}: {e}", source.display()))?;
    spark::export_as(&source.to_string_lossy(), job, emit).map_err(|e| format!("{names:?}: {e}"))
}

/// Exports `count` random programs and their plain twins, and checks them
/// all in one Python process.
pub fn check(count: usize) -> Result<String, String> {
    let scratch: PathBuf = repo_root().join("target/export-names");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let mut rng = Rng::new(7);
    let plain = Names::plain();
    let mut manifest = Vec::new();
    for index in 0..count {
        let names = Names::hostile(&mut rng);
        let dir = scratch.join(index.to_string());
        std::fs::create_dir_all(dir.join("plain"))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        for emit in EMITS {
            let file = format!("{}.py", emit.replace('-', "_"));
            let (job, twin) = (dir.join(&file), dir.join("plain").join(&file));
            export(&names, &dir, &job, emit)?;
            export(&plain, &dir.join("plain"), &twin, emit)?;
            manifest.push(serde_json::json!({
                "job": job,
                "plain": twin,
                "names": format!("{names:?}"),
            }));
        }
    }
    let manifest_path = scratch.join("manifest.json");
    std::fs::write(
        &manifest_path,
        serde_json::Value::Array(manifest).to_string(),
    )
    .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let output = std::process::Command::new(venv_python()?)
        .arg(repo_root().join("test/export/check_names.py"))
        .arg(&manifest_path)
        .current_dir(&scratch)
        .output()
        .map_err(|e| format!("check_names.py: {e}"))?;
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    if output.status.success() {
        Ok(report)
    } else {
        Err(format!(
            "check_names.py failed ({}):\n{report}",
            output.status
        ))
    }
}
