//! The PySpark check: the user's own job is the judge. For every job of
//! examples/pyspark, `coco-bigtest generate JOB.py --pytest` writes test
//! data and a pytest module; the module runs the job's own function on
//! Apache Spark (local mode) on every generated case and must pass: each
//! case ends as coco's interpreter predicts (the same output records, or a
//! failure with the predicted Python exception). A failing test is a bug
//! in the front end, the interpreter or the generator, never a case to skip.
//!
//! Seeded faults (examples/pyspark/faults.json, edits of a job's text) are
//! then run against the original's module: a fault is detected when some
//! case's test fails. CI seeds each job's first fault; COCO_SLOW_TESTS=1
//! seeds them all (the table in docs/pyspark.md).

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::Command,
    time::Instant,
};

use serde_json::Value;

use crate::spark::venv_python;

/// Jobs that run only with COCO_SLOW_TESTS=1, to keep CI within its time
/// budget: dedup_union, the heaviest example (about a minute to generate on
/// a quiet 2-core machine, two under load, and 50 cases).
const SLOW_JOBS: &[&str] = &["dedup_union"];

/// Whether `job` runs in this check (see [`SLOW_JOBS`]).
fn runs_now(job: &Path) -> bool {
    crate::slow_tests()
        || !job
            .file_stem()
            .is_some_and(|stem| SLOW_JOBS.iter().any(|slow| stem == *slow))
}

/// One job prepared: its module and what `generate` reported.
struct Prepared {
    job: String,
    module: PathBuf,
    report: Value,
    seconds: f64,
}

/// A seeded fault, written as a faulty copy of the job with a copy of the
/// original's module pointing at it.
struct Seeded {
    job: String,
    class: String,
    fault: String,
    module: PathBuf,
}

fn prepare(job: &Path, scratch: &Path) -> Result<Prepared, String> {
    let name = job
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = scratch.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let data = dir.join("data");
    let module = dir.join(format!("test_{name}.py"));
    let start = Instant::now();
    let output = coco_tools::bigtest::run(&[
        "coco-bigtest".to_string(),
        "generate".into(),
        job.to_string_lossy().into_owned(),
        "-o".into(),
        data.to_string_lossy().into_owned(),
        "--pytest".into(),
        module.to_string_lossy().into_owned(),
    ]);
    let seconds = start.elapsed().as_secs_f64();
    // Exit 2: some paths unknown; the data and module are written and
    // must still pass on Spark.
    if output.code != 0 && output.code != coco_tools::bigtest::INCOMPLETE {
        return Err(format!(
            "coco-bigtest generate {} exited {}:\n{}{}",
            job.display(),
            output.code,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    crate::natural_data::check(&data, &job.display().to_string())?;
    let report_path = data.join("report.json");
    let report: Value = std::fs::read_to_string(&report_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| format!("{}: no report", report_path.display()))?;
    Ok(Prepared {
        job: name,
        module,
        report,
        seconds,
    })
}

fn seed(
    fault: &Value,
    index: usize,
    examples: &Path,
    prepared: &[Prepared],
    scratch: &Path,
) -> Result<Seeded, String> {
    let program = fault["program"].as_str().unwrap_or_default();
    let name = program.trim_end_matches(".py").to_string();
    let original = prepared
        .iter()
        .find(|p| p.job == name)
        .ok_or_else(|| format!("faults.json: {program} is not among the examples"))?;
    let mut text =
        std::fs::read_to_string(examples.join(program)).map_err(|e| format!("{program}: {e}"))?;
    for edit in fault["edits"].as_array().into_iter().flatten() {
        let (Some(from), Some(to)) = (edit[0].as_str(), edit[1].as_str()) else {
            return Err(format!("faults.json: fault {index} has a malformed edit"));
        };
        let count = text.matches(from).count();
        if count != 1 {
            return Err(format!(
                "faults.json: fault {index} of {program}: `{from}` occurs {count} times, not once"
            ));
        }
        text = text.replacen(from, to, 1);
    }
    let dir = scratch.join(format!("fault-{index}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let faulty = dir.join(program);
    std::fs::write(&faulty, text).map_err(|e| format!("{}: {e}", faulty.display()))?;
    // The original's expectations, run on the faulty job.
    let module_text = std::fs::read_to_string(&original.module).map_err(|e| e.to_string())?;
    let job_line = module_text
        .lines()
        .find(|l| l.starts_with("JOB_FILE = "))
        .ok_or("the generated module has no JOB_FILE line")?;
    let module_text = module_text.replacen(
        job_line,
        &format!("JOB_FILE = pathlib.Path(__file__).resolve().parent / \"{program}\""),
        1,
    );
    let module = dir.join(format!("test_{name}_fault_{index}.py"));
    std::fs::write(&module, module_text).map_err(|e| format!("{}: {e}", module.display()))?;
    Ok(Seeded {
        job: name,
        class: fault["class"].as_str().unwrap_or_default().to_string(),
        fault: fault["fault"].as_str().unwrap_or_default().to_string(),
        module,
    })
}

/// Generating again gives the same module, byte for byte.
fn stable(job: &Path, first: &Prepared, scratch: &Path) -> Result<(), String> {
    let dir = scratch.join(format!("{}-again", first.job));
    let _ = std::fs::remove_dir_all(&dir);
    let module = first
        .module
        .with_file_name(format!("again_{}.py", first.job));
    let output = coco_tools::bigtest::run(&[
        "coco-bigtest".to_string(),
        "generate".into(),
        job.to_string_lossy().into_owned(),
        "-o".into(),
        dir.to_string_lossy().into_owned(),
        "--pytest".into(),
        module.to_string_lossy().into_owned(),
    ]);
    if output.code != 0 {
        return Err(format!(
            "generating {} again failed: {}",
            job.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    if read(&module)? != read(&first.module)? {
        return Err(format!(
            "two runs of generate on {} wrote different pytest modules ({} and {})",
            job.display(),
            first.module.display(),
            module.display()
        ));
    }
    let _ = std::fs::remove_file(&module);
    Ok(())
}

/// The scratch folder's `conftest.py`: a seeded fault's module (in a
/// `fault-N` folder) stops at its first failing case, since one failure is
/// all that detecting the fault takes; its remaining cases would each run
/// a Spark job for nothing (about a third of the check's time). The jobs'
/// own modules run every case.
const STOP_AT_DETECTION: &str = r#"# Written by coco's PySpark check (test/src/pyspark_jobs.rs).
import pytest

_detected = set()


def _is_fault(item):
    return item.path.parent.name.startswith("fault-")


def pytest_runtest_setup(item):
    if _is_fault(item) and item.path in _detected:
        pytest.skip("the seeded fault is already detected by an earlier case")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if outcome.get_result().failed and _is_fault(item):
        _detected.add(item.path)
"#;

/// Runs the modules in two pytest processes at once (a JVM each: a Spark
/// job in local mode waits on its scheduler more than it computes, so two
/// overlap well), split by their number of tests; returns the failed
/// tests' node ids per module file name.
fn pytest(modules: &[&Path], scratch: &Path) -> Result<BTreeMap<String, Vec<String>>, String> {
    let conftest = scratch.join("conftest.py");
    std::fs::write(&conftest, STOP_AT_DETECTION)
        .map_err(|e| format!("{}: {e}", conftest.display()))?;
    // Largest first onto the lighter half; a script's test starts a Spark
    // application of its own, so it weighs more than a function's.
    let mut weighed: Vec<(usize, &Path)> = modules
        .iter()
        .map(|m| {
            let text = std::fs::read_to_string(m).unwrap_or_default();
            let tests = text.matches("\ndef test_").count();
            let per_test = if text.contains("def run_job(") { 8 } else { 1 };
            (tests * per_test, *m)
        })
        .collect();
    weighed.sort_by_key(|w| std::cmp::Reverse(w.0));
    let mut halves: [(usize, Vec<&Path>); 2] = [(0, Vec::new()), (0, Vec::new())];
    for (weight, module) in weighed {
        let lighter = if halves[0].0 <= halves[1].0 { 0 } else { 1 };
        halves[lighter].0 += weight;
        halves[lighter].1.push(module);
    }
    let results: Vec<Result<BTreeMap<String, Vec<String>>, String>> = std::thread::scope(|scope| {
        let runs: Vec<_> = halves
            .iter()
            .enumerate()
            .filter(|(_, (_, half))| !half.is_empty())
            .map(|(i, (_, half))| scope.spawn(move || pytest_run(half, scratch, i)))
            .collect();
        runs.into_iter()
            .map(|run| {
                run.join()
                    .unwrap_or_else(|_| Err("a pytest runner panicked".into()))
            })
            .collect()
    });
    let mut failed = BTreeMap::new();
    for result in results {
        failed.extend(result?);
    }
    Ok(failed)
}

/// One pytest process over `modules` (its report: pytest-report-`n`.txt).
fn pytest_run(
    modules: &[&Path],
    scratch: &Path,
    n: usize,
) -> Result<BTreeMap<String, Vec<String>>, String> {
    let python = venv_python()?;
    let report = scratch.join(format!("pytest-report-{n}.txt"));
    let output = Command::new(&python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-rf",
            "-p",
            "no:cacheprovider",
            "--import-mode=importlib",
        ])
        .args(modules)
        .current_dir(scratch)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let _ = std::fs::write(&report, &text);
    // Exit 0: all passed; 1: some tests failed; anything else: pytest
    // itself could not run them.
    if !matches!(output.status.code(), Some(0) | Some(1)) {
        return Err(format!(
            "pytest exited {}:\n{text}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let mut failed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("FAILED ") else {
            continue;
        };
        let node = rest.split(" - ").next().unwrap_or(rest).to_string();
        let file = node.split("::").next().unwrap_or_default();
        let file = Path::new(file)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        failed.entry(file).or_default().push(node);
    }
    if failed.is_empty() && output.status.code() == Some(1) {
        return Err(format!("pytest reported failures it did not list:\n{text}"));
    }
    Ok(failed)
}

/// The jobs (`.py` files) of `dir`, sorted.
fn jobs_in(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut jobs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    jobs.sort();
    Ok(jobs)
}

/// Runs `generate` on every job, two at a time (each is one core's work;
/// the machine has two), keeping the jobs' order.
fn prepare_all(jobs: &[PathBuf], scratch: &Path) -> Result<Vec<Prepared>, String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<Prepared, String>>>> =
        jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let result = prepare(job, scratch);
                if let Ok(mut slot) = results[i].lock() {
                    *slot = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .unwrap_or_else(|| Err("a generate worker stopped".into()))
        })
        .collect()
}

/// The check over the jobs of `examples` (with its faults.json) and of
/// `subsets` (one job per part of the supported Python; public jobs as
/// published); returns the summary table.
pub fn check(examples: &Path, subsets: &[PathBuf]) -> Result<String, String> {
    let scratch = std::env::temp_dir().join("coco-pyspark-check");
    std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let mut jobs: Vec<PathBuf> = jobs_in(examples)?
        .into_iter()
        .filter(|job| runs_now(job))
        .collect();
    let examples_count = jobs.len();
    for dir in subsets {
        jobs.extend(jobs_in(dir)?.into_iter().filter(|job| runs_now(job)));
    }
    let prepared = prepare_all(&jobs, &scratch)?;
    // Generating again gives the same module: checked on the quickest
    // example, which shows it as well as a slow one.
    let quickest = (0..examples_count)
        .min_by(|&a, &b| prepared[a].seconds.total_cmp(&prepared[b].seconds))
        .ok_or("examples/pyspark holds no job")?;
    stable(&jobs[quickest], &prepared[quickest], &scratch)?;
    let faults: Value = std::fs::read_to_string(examples.join("faults.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or("examples/pyspark/faults.json is missing or not JSON")?;
    let faults = faults["faults"].as_array().cloned().unwrap_or_default();
    let mut seeded = Vec::new();
    for (i, fault) in faults.iter().enumerate() {
        let program = fault["program"].as_str().unwrap_or_default();
        let first = faults
            .iter()
            .position(|f| f["program"].as_str() == Some(program))
            == Some(i);
        let prepared_job = prepared.iter().any(|p| format!("{}.py", p.job) == program);
        if prepared_job && (crate::slow_tests() || first) {
            seeded.push(seed(fault, i + 1, examples, &prepared, &scratch)?);
        }
    }
    let modules: Vec<&Path> = prepared
        .iter()
        .map(|p| p.module.as_path())
        .chain(seeded.iter().map(|s| s.module.as_path()))
        .collect();
    let failed = pytest(&modules, &scratch)?;
    let file_of = |path: &Path| {
        path.file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut disagreements = Vec::new();
    for p in &prepared {
        if let Some(tests) = failed.get(&file_of(&p.module)) {
            disagreements.push(format!(
                "{}: Spark disagrees with the interpreter on {}",
                p.job,
                tests.join(", ")
            ));
        }
    }
    if !disagreements.is_empty() {
        return Err(format!(
            "{}\n(pytest's output: {})",
            disagreements.join("\n"),
            scratch.join("pytest-report-*.txt").display()
        ));
    }
    let mut summary = String::from(
        "job | JDU paths | feasible | unknown | records | cases | coverage | generate s | seeded faults detected on Spark\n",
    );
    for p in &prepared {
        let s = &p.report["summary"];
        let mine: Vec<&Seeded> = seeded.iter().filter(|f| f.job == p.job).collect();
        let detected = mine
            .iter()
            .filter(|f| failed.contains_key(&file_of(&f.module)))
            .count();
        summary.push_str(&format!(
            "{} | {} | {} | {} | {} | {} | {:.1}% | {:.2} | {} of {}\n",
            p.job,
            s["paths"],
            s["feasible"],
            s["unknown"],
            p.report["records"].as_array().map(Vec::len).unwrap_or(0),
            p.report["records"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r["case"].as_u64())
                .max()
                .map_or(1, |c| c + 1),
            if s["coverable"].as_f64().unwrap_or(0.0) > 0.0 {
                100.0 * s["covered"].as_f64().unwrap_or(0.0)
                    / s["coverable"].as_f64().unwrap_or(1.0)
            } else {
                100.0
            },
            p.seconds,
            detected,
            mine.len()
        ));
    }
    summary.push_str("\nfault | class | job | detected\n");
    for f in &seeded {
        let detected = failed.contains_key(&file_of(&f.module));
        summary.push_str(&format!(
            "{} | {} | {} | {}\n",
            f.fault,
            f.class,
            f.job,
            if detected { "yes" } else { "no" }
        ));
    }
    Ok(summary)
}

/// The public jobs of `wild` (examples/pyspark/wild) are byte for byte
/// as published: each has the Git blob hash its README gives (the hash of
/// the file at the source commit), and those Apache Spark ships in the
/// pyspark wheel equal its copies. coco reads them as published, never an
/// edited version.
pub fn wild_as_published(wild: &Path) -> Result<String, String> {
    let readme = std::fs::read_to_string(wild.join("README.md"))
        .map_err(|e| format!("{}: {e}", wild.join("README.md").display()))?;
    // `| `job.py` | source | blob | licence |`
    let blobs: BTreeMap<String, String> = readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let job = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let blob = cells.get(3)?;
            (blob.len() == 40 && blob.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| (job.to_string(), blob.to_string()))
        })
        .collect();
    let python = venv_python()?;
    let output = Command::new(&python)
        .args([
            "-c",
            "import os, pyspark; print(os.path.dirname(pyspark.__file__))",
        ])
        .output()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    if !output.status.success() {
        return Err(format!(
            "cannot find pyspark: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let shipped = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
        .join("examples/src/main/python");
    let mut checked = Vec::new();
    for job in jobs_in(wild)? {
        let name = job
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(blob) = blobs.get(&name) else {
            return Err(format!(
                "{}: not in the README's table with its source and blob hash",
                job.display()
            ));
        };
        // Git's blob hash (`git hash-object`), without needing git.
        let hashed = Command::new(&python)
            .args([
                "-c",
                "import hashlib, sys; d = open(sys.argv[1], 'rb').read(); \
                 print(hashlib.sha1(b'blob %d\\0' % len(d) + d).hexdigest())",
            ])
            .arg(&job)
            .output()
            .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
        let actual = String::from_utf8_lossy(&hashed.stdout).trim().to_string();
        if &actual != blob {
            return Err(format!(
                "{} has blob {actual}, not {blob}, the file as published",
                job.display()
            ));
        }
        let original = shipped.join(&name);
        if original.is_file() {
            let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
            if read(&job)? != read(&original)? {
                return Err(format!(
                    "{} differs from {}, the file as Apache Spark publishes it",
                    job.display(),
                    original.display()
                ));
            }
        }
        checked.push(name);
    }
    Ok(format!("as published: {}\n", checked.join(", ")))
}
