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
    // Each run starts without an earlier run's %t: tools that refuse to
    // overwrite what they did not write (coco-bigtest generate -o) would
    // otherwise see it.
    let _ = std::fs::remove_dir_all(&temp).or_else(|_| std::fs::remove_file(&temp));
    let runs = run_line::parse(&source, path, &temp.to_string_lossy())?;
    if runs.is_empty() {
        return Err(format!("{path} has no RUN lines"));
    }
    let mut cache = StageCache::default();
    for (index, run) in runs.iter().enumerate() {
        let output = run_pipeline(run, &mut cache)
            .map_err(|e| format!("{path}:{}: RUN: {}\n{e}", run.line, run.text))?;
        // A RUN line is decided by its CHECK lines where it has them; the
        // output itself is the spec only where nothing checks it.
        let checked = run.stages.iter().any(|s| s.program == "FileCheck");
        if !checked && !output.is_empty() {
            check_snapshot(&snapshot_name(path, index), &output, path)?;
        }
    }
    Ok(())
}

/// What `coco-opt` stages printed, by arguments and input: RUN lines that
/// check one output with several FileCheck prefixes run the tool once.
/// Stages that write files (`-o`) always run.
#[derive(Default)]
struct StageCache {
    /// ((arguments, input), (stdout, stderr, exit code)).
    outputs: Vec<(StageKey, StageOutput)>,
}

type StageKey = (Vec<String>, Vec<u8>);
type StageOutput = (Vec<u8>, Vec<u8>, i32);

impl StageCache {
    fn coco_opt(&mut self, args: &[String], input: &[u8]) -> StageOutput {
        let key = (args.to_vec(), input.to_vec());
        if let Some((_, output)) = self.outputs.iter().find(|(k, _)| *k == key) {
            return output.clone();
        }
        let arguments: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = coco_opt(&arguments, Some(input));
        let output = (output.stdout, output.stderr, output.code);
        if !args.iter().any(|a| a == "-o" || a.starts_with("-o=")) {
            self.outputs.push((key, output.clone()));
        }
        output
    }
}

/// Executes the stages; returns what the last one printed.
fn run_pipeline(run: &run_line::RunLine, cache: &mut StageCache) -> Result<String, String> {
    let mut data: Vec<u8> = Vec::new();
    for stage in &run.stages {
        let (mut stdout, stderr, code) = match stage.program.as_str() {
            "coco-opt" => cache.coco_opt(&stage.args, &data),
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
            "FileCheck" => filecheck(&stage.args, &data)?,
            other => return Err(format!("unknown program `{other}` in a RUN line")),
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
    Ok(String::from_utf8_lossy(&data).into_owned())
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

/// Snapshot files that no RUN line writes any more (the file or the RUN
/// line is gone, or the line now ends in FileCheck): insta never deletes
/// them, so they would be reviewed as if they still meant something.
pub fn orphan_snapshots() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(test_dir().join("snapshots")) else {
        return Vec::new();
    };
    let mut orphans = Vec::new();
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = file.strip_suffix(".snap") else {
            orphans.push(file);
            continue;
        };
        let Some((test, index)) = stem.rsplit_once("-run") else {
            continue; // builders__*: written by the builder trials
        };
        let path = test.replace("__", "/");
        let written = std::fs::read_to_string(test_dir().join(&path))
            .ok()
            .and_then(|source| run_line::parse(&source, &path, "%t").ok())
            .zip(index.parse::<usize>().ok())
            .and_then(|(runs, index)| runs.into_iter().nth(index.checked_sub(1)?))
            .is_some_and(|run| !run.stages.iter().any(|s| s.program == "FileCheck"));
        if !written {
            orphans.push(file);
        }
    }
    orphans.sort();
    orphans
}

/// Whether a test file says `// REQUIRES: slow`.
pub fn requires_slow(source: &str) -> bool {
    source.lines().any(|l| {
        l.trim_start()
            .strip_prefix("//")
            .and_then(|rest| rest.trim_start().strip_prefix("REQUIRES:"))
            .is_some_and(|features| features.split(',').any(|f| f.trim() == "slow"))
    })
}

/// Whether `path` exists relative to `test/`.
pub fn exists(path: &str) -> bool {
    Path::new(&test_dir()).join(path).exists()
}
