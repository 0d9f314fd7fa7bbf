//! Runs the paths job on this machine: Spark in local mode, in the Python
//! that has pyspark (`coco-bigtest coverage --spark`). On a cluster the
//! same job runs under `spark-submit` (docs/bigtest.md).

use std::{
    path::Path,
    process::{Command, Stdio},
};

use coco_base::job;

use coco_dataflow::{
    io::data_file_name,
    model::{OpKind, Program},
    text::escape,
};

use crate::{export_job, Job};

/// The prefix of the scratch folders under `$TMPDIR`.
pub const SCRATCH_PREFIX: &str = "coco-bigtest-spark";

/// Where the job, its histogram and Python's temporary files live while
/// it runs: a folder the launcher owns ([`job::TempDir`]), removed after,
/// on SIGINT, SIGTERM and SIGHUP (once [`job::guard`] ran), and, should
/// this process be killed outright, by its reaper or the next run's sweep
/// (its owner file's lock then held by nobody).
fn scratch() -> Result<job::TempDir, String> {
    job::TempDir::new(SCRATCH_PREFIX, "paths").map_err(|e| {
        format!(
            "{}: cannot create a scratch folder: {e}",
            std::env::temp_dir().display()
        )
    })
}

/// The histogram (JSON, coco_bigtest::coverage::Histogram) of `program` on
/// each dataset folder in `datasets`, at bound `k`, from the paths job run
/// by `python` in local mode.
pub fn paths_histogram(
    program: &Program,
    source_file: &str,
    python: &str,
    datasets: &[&Path],
    k: i64,
) -> Result<String, String> {
    let job = export_job(program, source_file, Job::Paths).map_err(|e| e.to_string())?;
    for dir in datasets {
        missing_sources(program, dir)?;
    }
    // The handlers come first: a signal between the folder's creation and
    // the job's start then still removes it.
    job::guard("coco-bigtest");
    let scratch = scratch()?;
    let job_file = scratch.path().join("paths_job.py");
    std::fs::write(&job_file, job)
        .map_err(|e| format!("{}: cannot write the job: {e}", job_file.display()))?;
    let histogram = scratch.path().join("paths.json");
    // Python's temporary files go inside the scratch folder, and with it.
    // Spark's JVM keeps its own (`spark.local.dir`) and removes them as it
    // ends: it outlives the Python job by a moment, and in the scratch
    // folder it would race the folder's removal.
    let temp = scratch.path().join("tmp");
    std::fs::create_dir(&temp)
        .map_err(|e| format!("{}: cannot create a scratch folder: {e}", temp.display()))?;
    let mut command = Command::new(python);
    command
        .env("TMPDIR", &temp)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .arg(&job_file)
        .arg("--k")
        .arg(k.to_string())
        .arg("--histogram")
        .arg(&histogram);
    for dir in datasets {
        command.arg("--data").arg(dir);
    }
    // Started and waited for as the launcher's child: a signal to this
    // process reaches the job, which ends before the folder goes.
    let output = job::spawn(&mut command)
        .and_then(job::wait_with_output)
        .map_err(|e| {
            format!("{python}: cannot run it ({e}); --python names a Python with pyspark installed")
        })?;
    if !output.status.success() {
        return Err(format!(
            "the paths job failed on Spark ({}):\n{}",
            output.status,
            failure_lines(&String::from_utf8_lossy(&output.stderr))
        ));
    }
    std::fs::read_to_string(&histogram)
        .map_err(|e| format!("{}: the job wrote no histogram: {e}", histogram.display()))
}

/// Refuses, before Spark starts, a dataset folder that lacks a source's
/// file: Spark would fail deep in a Java stack trace.
fn missing_sources(program: &Program, dir: &Path) -> Result<(), String> {
    for (_, op) in program.sources() {
        let (OpKind::Source { name, .. }, Some(file)) = (&op.kind, data_file_name(&op.kind)) else {
            continue;
        };
        let path = dir.join(&file);
        if !path.is_file() {
            return Err(format!(
                "{}: source \"{}\": {} is not a file",
                op.loc,
                escape(name),
                escape(&path.display().to_string())
            ));
        }
    }
    Ok(())
}

/// What to show of a failed job's stderr: the Python errors it names (a
/// bad record, a value coco cannot model, a missing module), else its end.
fn failure_lines(stderr: &str) -> String {
    const KNOWN: [&str; 6] = [
        "BadRecord: ",
        "ModelError: ",
        "SystemExit: ",
        "ModuleNotFoundError: ",
        "JAVA_HOME",
        "Input path does not exist",
    ];
    let mut named: Vec<&str> = stderr
        .lines()
        .filter(|l| KNOWN.iter().any(|k| l.contains(k)))
        .map(str::trim)
        .collect();
    named.dedup();
    if !named.is_empty() {
        return named.join("\n");
    }
    let lines: Vec<&str> = stderr.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bad_record_is_named_once() {
        let stderr = "noise\n  coco_df.BadRecord: source \"x\" record \"a\" has 1 fields\nmore\n  coco_df.BadRecord: source \"x\" record \"a\" has 1 fields\n";
        assert_eq!(
            super::failure_lines(stderr),
            "coco_df.BadRecord: source \"x\" record \"a\" has 1 fields"
        );
        assert_eq!(super::failure_lines("a\nb"), "a\nb");
    }
}
