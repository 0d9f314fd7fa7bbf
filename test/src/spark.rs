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
                        .map(|l| {
                            l.iter()
                                .filter_map(|s| s.as_str().map(String::from))
                                .collect()
                        })
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
    dir: PathBuf,
    data: PathBuf,
    job: PathBuf,
    expected: Vec<(String, Outcome)>,
    /// `coco-bigtest mutate`'s score on the same data ("87.5%").
    mutation_score: String,
}

/// A seeded fault (test/spark/faults.json): `edits` turn the program's text
/// into the faulty program.
struct Fault {
    program: String,
    class: String,
    fault: String,
    edits: Vec<(String, String)>,
}

fn load_faults(path: &Path) -> Result<Vec<Fault>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let parsed: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let text_of = |v: &Value| v.as_str().unwrap_or_default().to_string();
    Ok(parsed["faults"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| Fault {
            program: text_of(&f["program"]),
            class: text_of(&f["class"]),
            fault: text_of(&f["fault"]),
            edits: f["edits"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| (text_of(&e[0]), text_of(&e[1])))
                .collect(),
        })
        .collect())
}

/// The faulty program's text; every edit must match exactly once.
fn apply(fault: &Fault, text: &str) -> Result<String, String> {
    let mut text = text.to_string();
    for (from, to) in &fault.edits {
        let count = text.matches(from.as_str()).count();
        if count != 1 {
            return Err(format!(
                "faults.json: fault \"{}\" of {}: `{from}` occurs {count} times, not once",
                fault.fault, fault.program
            ));
        }
        text = text.replacen(from.as_str(), to, 1);
    }
    Ok(text)
}

/// The interpreter's outcome of `program` on each case of `data`.
fn interpreter_outcomes(program: &str, data: &str) -> Result<Vec<(String, Outcome)>, String> {
    // `run` exits 1 when a case fails; its JSON holds every case either way.
    let run = coco_tools::bigtest::run(&args(&[
        "coco-bigtest",
        "run",
        program,
        "--data",
        data,
        "--json",
    ]));
    let text = String::from_utf8_lossy(&run.stdout);
    let parsed: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "coco-bigtest run --json {program}: {e}\n{}",
            String::from_utf8_lossy(&run.stderr)
        )
    })?;
    Ok(parsed["jobs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|job| {
            (
                job["data"].as_str().unwrap_or_default().to_string(),
                outcome(job),
            )
        })
        .collect())
}

/// `coco-translate PROGRAM --emit=pyspark -o JOB`, in-process.
pub fn export(program: &str, job: &Path) -> Result<(), String> {
    export_as(program, job, "pyspark")
}

/// `coco-translate PROGRAM --emit=EMIT -o JOB` (`pyspark`,
/// `pyspark-paths`), in-process.
pub fn export_as(program: &str, job: &Path, emit: &str) -> Result<(), String> {
    let job_arg = job.to_string_lossy().into_owned();
    let emit_arg = format!("--emit={emit}");
    tool(
        coco_tools::translate::run(
            &args(&["coco-translate", program, &emit_arg, "-o", &job_arg]),
            None,
        ),
        &format!("coco-translate {emit_arg} {program}"),
    )
    .map(drop)
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
    crate::natural_data::check(&data, &shown)?;
    export(&shown, &job)?;
    let expected = interpreter_outcomes(&shown, &data_arg)?;
    let mutate = coco_tools::bigtest::run(&args(&[
        "coco-bigtest",
        "mutate",
        &shown,
        "--data",
        &data_arg,
    ]));
    let mutation_score = String::from_utf8_lossy(&mutate.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("mutation score: ").map(String::from))
        .unwrap_or_else(|| "-".into());
    Ok(Prepared {
        program: shown,
        dir,
        data,
        job,
        expected,
        mutation_score,
    })
}

/// A faulty program ready for Spark: its job and the interpreter's outcome
/// on its original's cases.
struct Seeded<'f> {
    fault: &'f Fault,
    original: usize,
    job: PathBuf,
    expected: Vec<(String, Outcome)>,
}

fn seed<'f>(fault: &'f Fault, index: usize, prepared: &[Prepared]) -> Result<Seeded<'f>, String> {
    let original = prepared
        .iter()
        .position(|p| p.program == fault.program)
        .ok_or_else(|| {
            format!(
                "faults.json: {} is not among the checked programs",
                fault.program
            )
        })?;
    let p = &prepared[original];
    let text = std::fs::read_to_string(&p.program).map_err(|e| format!("{}: {e}", p.program))?;
    let faulty = apply(fault, &text)?;
    let dir = p.dir.join("faults");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let program = dir.join(format!("fault-{index}.mlir"));
    std::fs::write(&program, faulty).map_err(|e| format!("{}: {e}", program.display()))?;
    let shown = program.to_string_lossy().into_owned();
    let job = dir.join(format!("fault_{index}.py"));
    export(&shown, &job)?;
    let expected = interpreter_outcomes(&shown, &p.data.to_string_lossy())?;
    Ok(Seeded {
        fault,
        original,
        job,
        expected,
    })
}

/// Runs the check on `programs` (paths relative to test/); returns a
/// summary line per program, or every disagreement.
pub fn check(programs: &[PathBuf], faults: &Path) -> Result<String, String> {
    let python = venv_python()?;
    let scratch = std::env::temp_dir().join("coco-spark-check");
    let prepared: Vec<Prepared> = programs
        .iter()
        .map(|p| prepare(p, &scratch))
        .collect::<Result<_, _>>()?;
    let faults = load_faults(faults)?;
    // CI's variant seeds each program's first fault; COCO_SLOW_TESTS=1
    // seeds them all (the figures in docs/bigtest.md).
    let chosen = |index: usize, fault: &Fault| {
        crate::slow_tests() || faults.iter().position(|f| f.program == fault.program) == Some(index)
    };
    let seeded: Vec<Seeded> = faults
        .iter()
        .enumerate()
        .filter(|(_, f)| prepared.iter().any(|p| p.program == f.program))
        .filter(|(i, f)| chosen(*i, f))
        .map(|(i, f)| seed(f, i + 1, &prepared))
        .collect::<Result<_, _>>()?;
    let jobs: Vec<(&Path, &[(String, Outcome)])> = prepared
        .iter()
        .map(|p| (p.job.as_path(), p.expected.as_slice()))
        .chain(
            seeded
                .iter()
                .map(|s| (s.job.as_path(), s.expected.as_slice())),
        )
        .collect();
    let manifest = json!({
        "jobs": jobs.iter().map(|(job, expected)| json!({
            "job": job,
            "cases": expected.iter().map(|(data, _)| data).collect::<Vec<_>>(),
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
    let mut next = results.iter();
    let mut disagreements = Vec::new();
    // Spark's outcome of every case of every job, in manifest order.
    let mut spark_runs: Vec<Vec<Outcome>> = Vec::new();
    for (job, expected) in &jobs {
        let mut outcomes = Vec::new();
        for (data, expected) in expected.iter() {
            let Some(result) = next.next() else {
                return Err(format!("check.py returned no result for {data}"));
            };
            let spark = outcome(result);
            // Both fail: Spark's failure must be a UDF's or an empty
            // reduce's, as the interpreter's are, not a record the job
            // could not even read.
            let error = result["error"].as_str().unwrap_or_default();
            let same_cause = !spark.failed
                || error.starts_with("UdfFailure")
                || error.contains("Can not reduce() empty RDD");
            if &spark != expected || !same_cause {
                disagreements.push(format!(
                    "{} on {data}:\n  interpreter: {expected:?}\n  spark:       {spark:?}\n  spark error: {error}",
                    job.display()
                ));
            }
            outcomes.push(spark);
        }
        spark_runs.push(outcomes);
    }
    let (original_runs, fault_runs) = spark_runs.split_at(prepared.len());
    let mut summary = String::from(
        "program | cases (succeed/fail) | built-in mutation score | seeded faults detected on Spark\n",
    );
    for (i, p) in prepared.iter().enumerate() {
        let failed = original_runs[i].iter().filter(|o| o.failed).count();
        let mine: Vec<usize> = (0..seeded.len())
            .filter(|&s| seeded[s].original == i)
            .collect();
        let detected = mine
            .iter()
            .filter(|&&s| fault_runs[s] != original_runs[i])
            .count();
        summary.push_str(&format!(
            "{} | {} ({}/{failed}) | {} | {detected} of {}\n",
            p.program,
            p.expected.len(),
            p.expected.len() - failed,
            p.mutation_score,
            mine.len()
        ));
    }
    summary.push_str("\nfault | class | program | detected by\n");
    for (s, f) in seeded.iter().enumerate() {
        let original = &original_runs[f.original];
        let by = fault_runs[s]
            .iter()
            .zip(original)
            .position(|(a, b)| a != b)
            .map(|case| {
                let (data, _) = &f.expected[case];
                Path::new(data)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .unwrap_or_else(|| "not detected".into());
        summary.push_str(&format!(
            "{} | {} | {} | {by}\n",
            f.fault.fault, f.fault.class, prepared[f.original].program
        ));
    }
    if disagreements.is_empty() {
        Ok(summary)
    } else {
        Err(format!(
            "{} cases end differently on Spark than in coco's interpreter:\n{}\n\n{summary}",
            disagreements.len(),
            disagreements.join("\n")
        ))
    }
}
