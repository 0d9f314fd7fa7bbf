//! The Spark check: every BigTest example's generated test cases, each run
//! as a PySpark job on Apache Spark (`local[2]`, one Spark session for all),
//! must end as coco's interpreter says: the same cases fail, and the others
//! write the same sink lines (as multisets; Spark does not order keyed
//! results). A disagreement is a bug in the export, the interpreter or the
//! generator, never a case to skip.
//!
//! Steps per program: `coco-bigtest generate`, `coco-translate
//! --emit=pyspark`, `coco-bigtest run --json` for the interpreter's
//! outcome per case; then test/spark/check.py runs every job on every case
//! in one Python process. PySpark comes from the project's virtual
//! environment (`.venv`, made by scripts/setup.sh).

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::{json, Value};

use crate::{repo_root, test_dir};

/// The interpreter's or Spark's outcome of one case.
#[derive(Debug, PartialEq)]
struct Outcome {
    failed: bool,
    sinks: BTreeMap<String, Vec<String>>,
}

fn outcome(job: &Value) -> Outcome {
    let sinks = job["sinks"]
        .as_object()
        .map(|sinks| {
            sinks
                .iter()
                .map(|(name, lines)| {
                    let mut lines: Vec<String> = lines
                        .as_array()
                        .map(|l| l.iter().filter_map(|s| s.as_str().map(String::from)).collect())
                        .unwrap_or_default();
                    lines.sort();
                    (name.clone(), lines)
                })
                .collect()
        })
        .unwrap_or_default();
    Outcome {
        failed: job["outcome"] == "failed",
        sinks,
    }
}

/// The Python of the project's virtual environment.
pub fn venv_python() -> Result<PathBuf, String> {
    let python = repo_root().join(".venv/bin/python");
    if python.exists() {
        Ok(python)
    } else {
        Err(format!(
            "{} is missing: run scripts/setup.sh (it installs pyspark and a JRE)",
            python.display()
        ))
    }
}

fn tool(output: coco_tools::Output, what: &str) -> Result<String, String> {
    if output.code != 0 && output.code != coco_tools::bigtest::INCOMPLETE {
        return Err(format!(
            "{what} exited {}:\n{}{}",
            output.code,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn args(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// One program prepared for Spark: its job and the interpreter's outcome
/// per case directory.
struct Prepared {
    program: String,
    job: PathBuf,
    expected: Vec<(String, Outcome)>,
}

fn prepare(program: &Path, scratch: &Path) -> Result<Prepared, String> {
    let name = program
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = scratch.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let shown = program.to_string_lossy().into_owned();
    let data = dir.join("data");
    let job = dir.join(format!("{name}.py"));
    let data_arg = data.to_string_lossy().into_owned();
    let job_arg = job.to_string_lossy().into_owned();
    tool(
        coco_tools::bigtest::run(&args(&[
            "coco-bigtest",
            "generate",
            &shown,
            "-o",
            &data_arg,
            "--timeout-ms",
            "30000",
        ])),
        &format!("coco-bigtest generate {shown}"),
    )?;
    tool(
        coco_tools::translate::run(
            &args(&["coco-translate", &shown, "--emit=pyspark", "-o", &job_arg]),
            None,
        ),
        &format!("coco-translate --emit=pyspark {shown}"),
    )?;
    // `run` exits 1 when a case fails; its JSON holds every case either way.
    let run = coco_tools::bigtest::run(&args(&[
        "coco-bigtest",
        "run",
        &shown,
        "--data",
        &data_arg,
        "--json",
    ]));
    let text = String::from_utf8_lossy(&run.stdout);
    let parsed: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "coco-bigtest run --json {shown}: {e}\n{}",
            String::from_utf8_lossy(&run.stderr)
        )
    })?;
    let expected = parsed["jobs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|job| (job["data"].as_str().unwrap_or_default().to_string(), outcome(job)))
        .collect();
    Ok(Prepared {
        program: shown,
        job,
        expected,
    })
}

/// Runs the check on `programs` (paths relative to test/); returns a
/// summary line per program, or every disagreement.
pub fn check(programs: &[PathBuf]) -> Result<String, String> {
    let python = venv_python()?;
    let scratch = std::env::temp_dir().join("coco-spark-check");
    let prepared: Vec<Prepared> = programs
        .iter()
        .map(|p| prepare(p, &scratch))
        .collect::<Result<_, _>>()?;
    let manifest = json!({
        "jobs": prepared.iter().map(|p| json!({
            "job": p.job,
            "cases": p.expected.iter().map(|(data, _)| data).collect::<Vec<_>>(),
        })).collect::<Vec<_>>()
    });
    let manifest_path = scratch.join("manifest.json");
    std::fs::write(&manifest_path, manifest.to_string())
        .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let output = Command::new(&python)
        .arg(test_dir().join("spark/check.py"))
        .arg(&manifest_path)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    if !output.status.success() {
        return Err(format!(
            "test/spark/check.py failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let results: Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "test/spark/check.py printed no JSON ({e}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })?;
    let results = results["results"].as_array().cloned().unwrap_or_default();
    let mut summary = String::new();
    let mut disagreements = Vec::new();
    let mut next = results.iter();
    for p in &prepared {
        let (mut failed, mut succeeded) = (0, 0);
        for (data, expected) in &p.expected {
            let Some(result) = next.next() else {
                return Err(format!("check.py returned no result for {data}"));
            };
            let spark = outcome(result);
            if spark.failed {
                failed += 1;
            } else {
                succeeded += 1;
            }
            // Both fail: Spark's failure must be a UDF's or an empty
            // reduce's, as the interpreter's are, not a record the job
            // could not even read.
            let error = result["error"].as_str().unwrap_or_default();
            let same_cause = !spark.failed
                || error.starts_with("UdfFailure")
                || error.contains("Can not reduce() empty RDD");
            if &spark != expected || !same_cause {
                disagreements.push(format!(
                    "{} on {data}:\n  interpreter: {expected:?}\n  spark:       {spark:?}{}",
                    p.program,
                    result["error"]
                        .as_str()
                        .map(|e| format!("\n  spark error: {e}"))
                        .unwrap_or_default()
                ));
            }
        }
        summary.push_str(&format!(
            "{}: {} cases agree ({succeeded} succeed, {failed} fail)\n",
            p.program,
            p.expected.len()
        ));
    }
    if disagreements.is_empty() {
        Ok(summary)
    } else {
        Err(format!(
            "{} cases end differently on Spark:\n{}\n\n{summary}",
            disagreements.len(),
            disagreements.join("\n")
        ))
    }
}
