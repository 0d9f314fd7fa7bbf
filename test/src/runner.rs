//! Running one test file's RUN lines, and the round-trip check.

use std::{
    io::Write,
    path::Path,
    process::{Command, Stdio},
};

use crate::{coco_opt, run_line, test_dir};

/// LLVM's FileCheck from llvm-19-tools.
fn filecheck_path() -> String {
    let prefix = option_env!("LLVM_SYS_191_PREFIX").unwrap_or("/usr/lib/llvm-19");
    format!("{prefix}/bin/FileCheck")
}

/// Snapshot name for RUN line `index` of `path` (`dialects/coco/ops.mlir`
/// → `dialects__coco__ops.mlir-run1`).
fn snapshot_name(path: &str, index: usize) -> String {
    format!(
        "{}-run{}",
        path.replace(['/', '\\'], "__").trim_start_matches("..__"),
        index + 1
    )
}

/// Runs every RUN line of the test at `path` (relative to `test/`).
pub fn run_file(path: &str) -> Result<(), String> {
    let source = std::fs::read_to_string(test_dir().join(path))
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    let scratch = std::env::temp_dir().join("coco-filetests");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let temp = scratch.join(format!("{}.tmp", snapshot_name(path, 0)));
    let runs = run_line::parse(&source, path, &temp.to_string_lossy())?;
    if runs.is_empty() {
        return Err(format!("{path} has no RUN lines"));
    }
    for (index, run) in runs.iter().enumerate() {
        let snapshot = run_pipeline(run)
            .map_err(|e| format!("{path}:{}: RUN: {}\n{e}", run.line, run.text))?;
        check_snapshot(&snapshot_name(path, index), &snapshot, path)?;
    }
    Ok(())
}

/// Executes the stages; returns the text to snapshot.
fn run_pipeline(run: &run_line::RunLine) -> Result<String, String> {
    let mut data: Vec<u8> = Vec::new();
    let mut snapshot = None;
    for stage in &run.stages {
        let (mut stdout, stderr, code) = match stage.program.as_str() {
            "coco-opt" => {
                let args: Vec<&str> = stage.args.iter().map(String::as_str).collect();
                let output = coco_opt(&args, Some(&data));
                (output.stdout, output.stderr, output.code)
            }
            "coco-run" => {
                let mut args = vec!["coco-run".to_string()];
                args.extend(stage.args.iter().cloned());
                let output = coco_tools::run::run(&args);
                (output.stdout, output.stderr, output.code)
            }
            "coco-bigtest" => {
                let mut args = vec!["coco-bigtest".to_string()];
                args.extend(stage.args.iter().cloned());
                let output = coco_tools::bigtest::run(&args);
                (output.stdout, output.stderr, output.code)
            }
            "coco-translate" => {
                let mut args = vec!["coco-translate".to_string()];
                args.extend(stage.args.iter().cloned());
                let output = coco_tools::translate::run(&args, Some(&data));
                (output.stdout, output.stderr, output.code)
            }
            _ => {
                snapshot.get_or_insert_with(|| String::from_utf8_lossy(&data).into_owned());
                filecheck(&stage.args, &data)?
            }
        };
        let failed = code != 0;
        if failed != stage.expect_failure {
            return Err(format!(
                "{} {} (exit code {code})\n--- stdout ---\n{}\n--- stderr ---\n{}",
                stage.program,
                if stage.expect_failure {
                    "succeeded but `not` expects failure"
                } else {
                    "failed"
                },
                String::from_utf8_lossy(&stdout),
                String::from_utf8_lossy(&stderr)
            ));
        }
        if stage.discard_stdout {
            stdout.clear();
        }
        if stage.merge_stderr {
            stdout.extend_from_slice(&stderr);
        }
        data = stdout;
    }
    Ok(snapshot.unwrap_or_else(|| String::from_utf8_lossy(&data).into_owned()))
}

fn filecheck(args: &[String], input: &[u8]) -> Result<(Vec<u8>, Vec<u8>, i32), String> {
    let mut child = Command::new(filecheck_path())
        .args(args)
        .current_dir(test_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot run {} ({e}); run scripts/setup.sh",
                filecheck_path()
            )
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        // FileCheck may exit early on bad arguments; a broken pipe is fine.
        let _ = stdin.write_all(input);
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    Ok((
        output.stdout,
        output.stderr,
        output.status.code().unwrap_or(-1),
    ))
}

pub fn check_snapshot(name: &str, content: &str, path: &str) -> Result<(), String> {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(test_dir().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(test_dir().join(path));
    settings.set_description(format!("{path}: output checked by this snapshot"));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(name, content));
    }));
    result.map_err(|_| format!("snapshot {name} differs; review with `cargo insta review`"))
}

/// Custom form prints, re-parses and prints identically; the generic form
/// re-parses to the same custom text. Chunks with expected diagnostics or
/// that are meant to fail are skipped by the caller.
pub fn round_trip(path: &str) -> Result<(), String> {
    let custom = coco_opt(&[path, "--split-input-file"], None);
    if custom.code != 0 {
        return Err(format!(
            "{path} does not parse and verify:\n{}",
            String::from_utf8_lossy(&custom.stderr)
        ));
    }
    let reparsed = coco_opt(&["-", "--split-input-file"], Some(&custom.stdout));
    if reparsed.stdout != custom.stdout {
        return Err(format!(
            "{path}: custom form does not round-trip\n--- first print ---\n{}\n--- after re-parse ---\n{}{}",
            String::from_utf8_lossy(&custom.stdout),
            String::from_utf8_lossy(&reparsed.stdout),
            String::from_utf8_lossy(&reparsed.stderr)
        ));
    }
    let generic = coco_opt(
        &[path, "--split-input-file", "--mlir-print-op-generic"],
        None,
    );
    let from_generic = coco_opt(&["-", "--split-input-file"], Some(&generic.stdout));
    if from_generic.stdout != custom.stdout {
        return Err(format!(
            "{path}: generic form does not re-parse to the custom form\n--- generic ---\n{}\n--- re-parsed ---\n{}{}",
            String::from_utf8_lossy(&generic.stdout),
            String::from_utf8_lossy(&from_generic.stdout),
            String::from_utf8_lossy(&from_generic.stderr)
        ));
    }
    Ok(())
}

/// Whether a test file expects failures (so it cannot round-trip whole).
pub fn expects_failure(source: &str) -> bool {
    source.contains("expected-error")
        || source.contains("expected-warning")
        || source
            .lines()
            .any(|l| l.contains("RUN:") && l.contains("not coco-opt"))
}

/// Whether `path` exists relative to `test/`.
pub fn exists(path: &str) -> bool {
    Path::new(&test_dir()).join(path).exists()
}
