//! Coverage of production-sized data on Spark agrees with the interpreter's.
//!
//! Per program: its generated test cases are the seed of a larger dataset
//! in the style of production data (every line a copy of a test record,
//! half of them with their digits or letters changed, so the data follows
//! common paths many times, fails on some records, folds many records per
//! key and leaves some paths uncovered). `coco-bigtest coverage` measures
//! it twice, in the interpreter and with `--spark` (the paths job on Spark
//! in local mode); the reports must be the same, line for line. On the
//! first program's data, `generate --given` must also write the same data
//! measured either way. CI runs 20,000 records per source; bench/spark_coverage.sh
//! a million (`COCO_SPARK_COVERAGE_RECORDS`) on some of the programs
//! (`COCO_SPARK_COVERAGE_ONLY`).

use std::{collections::BTreeMap, path::Path, time::Instant};

use crate::spark::venv_python;

/// Records per source in CI.
pub const CI_RECORDS: usize = 20_000;

/// Records per source: `COCO_SPARK_COVERAGE_RECORDS`, else [`CI_RECORDS`].
pub fn records_per_source() -> Result<usize, String> {
    match std::env::var("COCO_SPARK_COVERAGE_RECORDS") {
        Ok(text) => text
            .parse()
            .map_err(|_| format!("COCO_SPARK_COVERAGE_RECORDS={text}: not a number")),
        Err(_) => Ok(CI_RECORDS),
    }
}

fn bigtest(items: &[&str]) -> (i32, String, String) {
    let args: Vec<String> = items.iter().map(|s| s.to_string()).collect();
    let output = coco_tools::bigtest::run(&args);
    (
        output.code,
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A deterministic stream of numbers (xorshift64*).
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `line` with its digits (or, more rarely, its letters) changed: the same
/// shape, other values.
fn vary(line: &str, noise: &mut Noise) -> String {
    let roll = noise.below(100);
    if roll < 50 {
        return line.to_string();
    }
    let letters = roll >= 85;
    line.chars()
        .map(|c| match c {
            '0'..='9' if !letters => (b'0' + noise.below(10) as u8) as char,
            'a'..='z' if letters => (b'a' + noise.below(26) as u8) as char,
            'A'..='Z' if letters => (b'A' + noise.below(26) as u8) as char,
            c => c,
        })
        .collect()
}

/// Writes `records` lines per source file under `out`, drawn from the
/// lines of that file in every case of `cases` and varied.
fn production_data(cases: &Path, out: &Path, records: usize) -> Result<(), String> {
    let mut lines: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // The first case's files, then every `case-N` folder's.
    let mut dirs = vec![cases.to_path_buf()];
    let entries = std::fs::read_dir(cases).map_err(|e| format!("{}: {e}", cases.display()))?;
    dirs.extend(
        entries
            .flatten()
            .filter(|e| e.path().is_dir() && e.file_name().to_string_lossy().starts_with("case-"))
            .map(|e| e.path()),
    );
    // In a fixed order, so the same cases make the same data.
    dirs[1..].sort();
    for dir in dirs {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            // Beside the first case's sources, generate writes its own files.
            let own = ["report.txt", "report.json", "coco-bigtest-manifest.txt"];
            if !path.is_file() || own.contains(&name.as_str()) {
                continue;
            }
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            lines
                .entry(name)
                .or_default()
                .extend(text.lines().map(String::from));
        }
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
    for (name, seed) in &lines {
        if seed.is_empty() {
            continue;
        }
        let mut text = String::new();
        for _ in 0..records {
            text.push_str(&vary(&seed[noise.below(seed.len())], &mut noise));
            text.push('\n');
        }
        let file = out.join(name);
        std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(())
}

/// Every file under `dir`, by its path relative to `dir`, with its bytes.
fn files_under(dir: &Path) -> BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let (Ok(relative), Ok(bytes)) = (path.strip_prefix(dir), std::fs::read(&path))
            {
                files.insert(relative.to_path_buf(), bytes);
            }
        }
    }
    files
}

/// `generate --given DATA` measured on Spark (`--spark`) writes the same
/// data, and says the same paths are left to the given data, as measured
/// by the interpreter.
fn check_given(program: &str, dir: &Path, data: &str, python: &str) -> Result<(), String> {
    let mut written = Vec::new();
    for on_spark in [false, true] {
        let out = dir.join(if on_spark {
            "given-spark"
        } else {
            "given-local"
        });
        let out_arg = out.to_string_lossy().into_owned();
        let mut args = vec![
            "coco-bigtest",
            "generate",
            program,
            "-o",
            &out_arg,
            "--given",
            data,
            "--python",
            python,
            "--max-data-bytes",
            "100000000000",
        ];
        if on_spark {
            args.push("--spark");
        }
        let (code, stdout, err) = bigtest(&args);
        if code != 0 {
            return Err(format!(
                "coco-bigtest {} exited {code}:\n{err}",
                args[1..].join(" ")
            ));
        }
        let left: Vec<String> = stdout
            .lines()
            .filter(|l| l.contains("paths the given data follows"))
            .map(str::to_string)
            .collect();
        if left.is_empty() {
            return Err(format!(
                "{program}: generate --given left no path to the production data:\n{stdout}"
            ));
        }
        let files = files_under(&out);
        if files.is_empty() {
            return Err(format!(
                "{program}: generate --given wrote nothing to {out_arg}"
            ));
        }
        written.push((left, files));
    }
    if written[0] != written[1] {
        return Err(format!(
            "{program}: generate --given --spark differs from generate --given (paths left to the given data: {:?} and {:?})",
            written[0].0, written[1].0
        ));
    }
    Ok(())
}

/// Checks `program` (relative to test/) on `records` per source; returns
/// its summary line. With `given`, also [`check_given`].
fn check_program(
    program: &str,
    scratch: &Path,
    records: usize,
    given: bool,
) -> Result<String, String> {
    let python = venv_python()?;
    let name = Path::new(program)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = scratch.join(&name);
    let _ = std::fs::remove_dir_all(&dir);
    let cases = dir.join("cases");
    let cases_arg = cases.to_string_lossy().into_owned();
    let python_arg = python.to_string_lossy().into_owned();
    let (code, _, err) = bigtest(&[
        "coco-bigtest",
        "generate",
        program,
        "-o",
        &cases_arg,
        "--python",
        &python_arg,
    ]);
    if code != 0 {
        return Err(format!(
            "coco-bigtest generate {program} exited {code}:\n{err}"
        ));
    }
    let data = dir.join("production");
    production_data(&cases, &data, records)?;
    let data_arg = data.to_string_lossy().into_owned();
    let common = [
        "coco-bigtest",
        "coverage",
        program,
        "--data",
        &data_arg,
        "--python",
        &python_arg,
        "--max-data-bytes",
        "100000000000",
    ];
    let started = Instant::now();
    let (code, local, err) = bigtest(&common);
    let local_s = started.elapsed().as_secs_f64();
    if code != 0 {
        return Err(format!(
            "coco-bigtest coverage {program} exited {code}:\n{err}"
        ));
    }
    let started = Instant::now();
    let (code, spark, err) = bigtest(&[&common[..], &["--spark"]].concat());
    let spark_s = started.elapsed().as_secs_f64();
    if code != 0 {
        return Err(format!(
            "coco-bigtest coverage --spark {program} exited {code}:\n{err}"
        ));
    }
    if local != spark {
        return Err(format!(
            "{program}: Spark's coverage differs from the interpreter's on {records} records per source\n--- interpreter\n{local}\n--- Spark\n{spark}"
        ));
    }
    // The data must exercise what the check is about: many records on one
    // path, and folds beyond k.
    let busiest = local
        .lines()
        .filter_map(|l| {
            l.strip_prefix("path ")?
                .split_once(": ")?
                .1
                .split(' ')
                .next()
        })
        .filter_map(|n| n.parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    if busiest < 2 {
        return Err(format!(
            "{program}: no path is followed by more than one record; the data is not production-like:\n{local}"
        ));
    }
    if given {
        check_given(program, &dir, &data_arg, &python_arg)?;
    }
    let covered = local
        .lines()
        .find(|l| l.starts_with("covered: "))
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .to_string();
    Ok(format!(
        "{name}: {records} records per source, {covered}, busiest path {busiest} records; interpreter {local_s:.1} s, Spark {spark_s:.1} s\n"
    ))
}

/// A record Spark cannot parse fails the paths job, and `coverage --spark`
/// says which, as the interpreter does.
fn bad_record(scratch: &Path) -> Result<(), String> {
    let python = venv_python()?;
    let dir = scratch.join("bad-record");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (file, text) in [
        ("moves.txt", "bolt,5\nnut,many\n"),
        ("counts.txt", "bolt,3\n"),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let data = dir.to_string_lossy().into_owned();
    let python = python.to_string_lossy().into_owned();
    let (code, out, err) = bigtest(&[
        "coco-bigtest",
        "coverage",
        "spark/stock_moves.mlir",
        "--data",
        &data,
        "--spark",
        "--python",
        &python,
    ]);
    let expected = "BadRecord: source \"moves\" record \"nut,many\" has field #1 \"many\", which is not a valid i64";
    if code == 0 || !err.contains(expected) {
        return Err(format!(
            "coverage --spark on a bad record: expected a failure naming it ({expected}), got exit {code}:\n{out}{err}"
        ));
    }
    Ok(())
}

/// The check on `programs` (relative to test/); with
/// `COCO_SPARK_COVERAGE_ONLY=a,b`, on those whose file stem is listed.
pub fn check(programs: &[&str]) -> Result<String, String> {
    let records = records_per_source()?;
    let only = std::env::var("COCO_SPARK_COVERAGE_ONLY").ok();
    let chosen = |program: &str| {
        let stem = Path::new(program)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        only.as_deref()
            .is_none_or(|only| only.split(',').any(|o| o == stem))
    };
    let scratch = std::env::temp_dir().join("coco-spark-coverage");
    let mut summary = String::new();
    // `generate --given --spark` on the first program's data only: it is a
    // generate and a Spark job more per program.
    for (i, program) in programs.iter().filter(|p| chosen(p)).enumerate() {
        summary.push_str(&check_program(program, &scratch, records, i == 0)?);
    }
    if only.is_none() {
        bad_record(&scratch)?;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varied_lines_keep_their_shape() {
        let mut noise = Noise(7);
        for _ in 0..100 {
            let line = vary("GET /a/b 200 1234", &mut noise);
            assert_eq!(line.len(), 17);
            assert_eq!(line.matches(' ').count(), 3);
        }
    }
}
