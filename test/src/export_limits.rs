//! What `coco-translate --emit=pyspark` exports at the edges of Python and
//! PySpark: a UDF nested as deep as a Python function may be (99 levels of
//! indentation, 20 loops inside each other) and a chain of 100 operators
//! that Spark pipelines into one task; one step further is refused with an
//! error at the op that crosses the limit, never a job that cannot run.

use std::path::Path;

use crate::{repo_root, spark::venv_python};

/// `loops` nested `scf.for`s around `ifs` nested `scf.if`s, yielding `%{value}`.
fn nest(loops: usize, ifs: usize, value: &str, depth: usize) -> String {
    if loops > 0 {
        let inner = nest(loops - 1, ifs, &format!("a{depth}"), depth + 1);
        return format!(
            "%r{depth} = scf.for %i{depth} = %c0 to %c1 step %c1 iter_args(%a{depth} = %{value}) -> (i64) : i64 {{\n{inner}scf.yield %r{} : i64\n}}\n",
            depth + 1
        );
    }
    if ifs > 0 {
        let inner = nest(0, ifs - 1, value, depth + 1);
        return format!(
            "%r{depth} = scf.if %t -> (i64) {{\n{inner}scf.yield %r{} : i64\n}} else {{\nscf.yield %c1 : i64\n}}\n",
            depth + 1
        );
    }
    format!("%r{depth} = arith.addi %{value}, %c1 : i64\n")
}

/// A UDF of `ifs` nested `scf.if`s inside `loops` nested `scf.for`s, and
/// a program of `maps` chained maps over it.
fn program(loops: usize, ifs: usize, maps: usize) -> String {
    let mut text = String::from("module attributes {df.host = \"python\"} {\n");
    text.push_str("func.func @deep(%x: i64) -> i64 {\n");
    text.push_str("%c0 = arith.constant 0 : i64\n%c1 = arith.constant 1 : i64\n");
    text.push_str("%t = arith.cmpi sgt, %x, %c0 : i64\n");
    text.push_str(&nest(loops, ifs, "x", 0));
    text.push_str("return %r0 : i64\n}\n");
    text.push_str("func.func @chain() {\n");
    text.push_str(
        "%d0 = df.source \"numbers\" inline [\"1\", \"2\"] delimiter \",\" : !df.dataset<i64>\n",
    );
    for i in 0..maps {
        text.push_str(&format!(
            "%d{} = df.map %d{i} @deep : !df.dataset<i64> -> !df.dataset<i64>\n",
            i + 1
        ));
    }
    text.push_str(&format!(
        "df.sink \"out\" %d{maps} : !df.dataset<i64>\nreturn\n}}\n}}\n"
    ));
    text
}

/// Exports `text`; the job on success, the error text on failure.
fn export(text: &str, dir: &Path, name: &str) -> Result<String, String> {
    let source = dir.join(format!("{name}.mlir"));
    std::fs::write(&source, text).map_err(|e| format!("{}: {e}", source.display()))?;
    let output = coco_tools::translate::run(
        &[
            "coco-translate".to_string(),
            source.to_string_lossy().into_owned(),
            "--emit=pyspark".into(),
        ],
        None,
    );
    if output.code == 0 {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

pub fn check() -> Result<(), String> {
    let dir = repo_root().join("target/export-limits");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // (loops, ifs, maps, the error expected or None).
    let cases: [(usize, usize, usize, Option<&str>); 6] = [
        (0, 98, 1, None),
        (0, 99, 1, Some("nested 100 levels deep with 0 loops: a Python function allows at most 99 levels and 20 loops inside each other")),
        (20, 0, 1, None),
        (21, 0, 1, Some("nested 22 levels deep with 21 loops")),
        (0, 0, 98, None),
        (0, 0, 99, Some("101 chained operators without a shuffle between them")),
    ];
    let mut jobs = Vec::new();
    for (index, (loops, ifs, maps, expected)) in cases.into_iter().enumerate() {
        let name = format!("case{index}");
        let what = format!("{loops} loops, {ifs} ifs, {maps} maps");
        match (export(&program(loops, ifs, maps), &dir, &name), expected) {
            (Ok(job), None) => {
                let path = dir.join(format!("{name}.py"));
                std::fs::write(&path, job).map_err(|e| format!("{}: {e}", path.display()))?;
                jobs.push(path);
            }
            (Ok(_), Some(error)) => return Err(format!("{what}: exported, expected {error:?}")),
            (Err(error), None) => return Err(format!("{what}: refused: {error}")),
            (Err(error), Some(expected)) => {
                // A located error: file:line:col at the op that crosses.
                let located = error.contains(&format!("{name}.mlir:"));
                if !error.contains(expected) || !located {
                    return Err(format!(
                        "{what}: expected a located {expected:?}, got {error}"
                    ));
                }
            }
        }
    }
    // What is exported compiles in Python.
    let output = std::process::Command::new(venv_python()?)
        .arg("-m")
        .arg("py_compile")
        .args(&jobs)
        .output()
        .map_err(|e| format!("py_compile: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "exported jobs do not compile:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(())
}
