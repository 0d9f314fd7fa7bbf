//! `coco-bigtest`: BigTest for df programs.
//!
//! * `generate prog.mlir -o DIR` runs `bigtest-jdu-paths`, `bigtest-solve`
//!   and `bigtest-emit`, writes the test data (one file per source, in the
//!   source's own format; extra test cases in `DIR/case-N/`), a JSON and a
//!   text report, then measures the coverage of what it wrote by running it.
//! * `coverage prog.mlir [--data DIR]` lists the JDU paths a dataset covers
//!   and the feasible ones it misses.
//! * `mutate prog.mlir --data DIR` runs faulty variants of the program on
//!   the data and reports the mutation score.
//! * `run prog.mlir [--data DIR]` runs the program in the reference
//!   interpreter and prints its sinks.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt::Write as _,
    io::IsTerminal,
    path::{Path, PathBuf},
    time::Instant,
};

use clap::{Parser, Subcommand};
use coco_dataflow::{
    interp::{self, Run},
    io::{data_file_name, load_inputs},
    model::{OpKind, Program},
    mutate,
};
use coco_dialects::{
    bigtest::TEST_RECORD,
    context,
    diagnostics::DiagnosticCollector,
    ir::{as_op, body_ops, i64_array_attr, int_attr, op_name, str_attr, symbol_attr},
};
use coco_passes::{
    bigtest::{
        extract,
        generate::{self, PathSpec},
        results,
    },
    pipeline,
};
use melior::{ir::Module, pass::PassManager, Context};

use crate::{source, Output};

#[derive(Parser, Debug)]
#[command(
    name = "coco-bigtest",
    version,
    about = "BigTest for df programs: JDU paths, Z3-generated test data, coverage and mutation scores"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Debug)]
struct Bounds {
    /// Records combined per reduce/group/distinct, flat_map elements
    /// followed, and loop unrolling.
    #[arg(long, default_value_t = 2)]
    k: usize,
    /// Z3 time limit per query, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u32,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Generate test data covering every feasible JDU path.
    Generate {
        /// The df program (.mlir).
        program: String,
        /// Directory for the test data and reports.
        #[arg(short = 'o', long = "output", value_name = "DIR")]
        output: PathBuf,
        #[command(flatten)]
        bounds: Bounds,
    },
    /// Report which JDU paths a dataset covers and which feasible ones it
    /// misses.
    Coverage {
        program: String,
        /// Directory with one file per source (as `generate` writes); without
        /// it, the program's own paths and inline records.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        #[command(flatten)]
        bounds: Bounds,
    },
    /// Run faulty variants of the program on test data; report the mutation
    /// score.
    Mutate {
        program: String,
        /// Test data as `generate` writes it (`case-N/` subdirectories are
        /// further test cases).
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
    },
    /// Run the program in the reference interpreter and print its sinks.
    Run {
        program: String,
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
    },
}

pub fn run(args: &[String]) -> Output {
    let cli: Cli = match crate::parse_args(args) {
        Ok(cli) => cli,
        Err(output) => return output,
    };
    let mut out = String::new();
    let mut warnings = String::new();
    let result = match &cli.command {
        Command::Generate {
            program,
            output,
            bounds,
        } => generate_command(program, output, bounds, &mut out, &mut warnings),
        Command::Coverage {
            program,
            data,
            bounds,
        } => coverage_command(program, data.as_deref(), bounds, &mut out, &mut warnings),
        Command::Mutate { program, data } => mutate_command(program, data, &mut out),
        Command::Run { program, data } => run_command(program, data.as_deref(), &mut out),
    };
    match result {
        Ok(()) => Output {
            stdout: out.into_bytes(),
            stderr: warnings.into_bytes(),
            code: 0,
        },
        Err(message) => Output {
            stdout: out.into_bytes(),
            stderr: format!("{warnings}coco-bigtest: error: {message}\n").into_bytes(),
            code: 1,
        },
    }
}

/// Progress for people watching a terminal; tests and pipes see none.
fn progress(message: &str) {
    if std::io::stderr().is_terminal() {
        eprintln!("coco-bigtest: {message}");
    }
}

fn check_bounds(bounds: &Bounds) -> Result<(), String> {
    if !(1..=8).contains(&bounds.k) {
        return Err(format!("--k must be between 1 and 8, found {}", bounds.k));
    }
    if bounds.timeout_ms == 0 {
        return Err("--timeout-ms must be positive".into());
    }
    Ok(())
}

/// One program of the module, with what the passes found.
struct Analysed {
    program: Program,
    paths: Vec<(PathSpec, &'static str)>,
    /// `(case, source, text, covers)` per emitted record.
    records: Vec<(usize, String, String, Vec<i64>)>,
}

/// Parses `path`, runs `pipeline_text` and reads the results per program.
/// Runs `pipeline_text` on the program at `path`; its warnings (rendered
/// with the source line) are appended to `warnings`.
fn analyse(
    context: &Context,
    path: &str,
    pipeline_text: &str,
    warnings: &mut String,
) -> Result<Vec<Analysed>, String> {
    let text = source::read_input(path, None)?;
    let mut module: Module = source::load(context, &text, path)?;
    let collector = DiagnosticCollector::attach(context);
    let elements = pipeline::parse(pipeline_text).map_err(|e| e.to_string())?;
    let manager = PassManager::new(context);
    pipeline::add_to(
        &manager.as_operation_pass_manager(),
        &elements,
        pipeline_text,
    )
    .map_err(|e| e.to_string())?;
    if manager.run(&mut module).is_err() {
        let diagnostics: String = collector
            .take()
            .iter()
            .map(|d| source::render(d, path, &text))
            .collect();
        return Err(format!(
            "{path}: BigTest cannot analyse this program\n{diagnostics}"
        ));
    }
    for diagnostic in collector.take() {
        warnings.push_str(&source::render(&diagnostic, path, &text));
    }
    let module_ref = module.as_operation();
    let module_op = as_op(&module_ref);
    let mut analysed = Vec::new();
    for func in extract::program_functions(module_op) {
        let func = as_op(&func);
        let name = str_attr(func, "sym_name").unwrap_or_default();
        let program = extract::extract(module_op, func).map_err(|e| e.message)?;
        let paths = results::path_ops(module_op, &name)
            .into_iter()
            .map(|p| (p.spec, p.status))
            .collect();
        let mut records = Vec::new();
        for op in body_ops(module_op) {
            let o = as_op(&op);
            if op_name(o) == TEST_RECORD && symbol_attr(o, "program").as_deref() == Some(&name) {
                records.push((
                    int_attr(o, "test_case").unwrap_or(0) as usize,
                    str_attr(o, "source").unwrap_or_default(),
                    str_attr(o, "text").unwrap_or_default(),
                    i64_array_attr(o, "covers").unwrap_or_default(),
                ));
            }
        }
        analysed.push(Analysed {
            program,
            paths,
            records,
        });
    }
    if analysed.is_empty() {
        return Err(format!(
            "{path}: no df program (a func.func with df.source ops)"
        ));
    }
    Ok(analysed)
}

fn base_dir(path: &str) -> PathBuf {
    Path::new(path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The data directories of a generated test set: `dir`, then `dir/case-N`.
fn case_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![dir.to_path_buf()];
    for n in 1.. {
        let case = dir.join(format!("case-{n}"));
        if !case.is_dir() {
            break;
        }
        dirs.push(case);
    }
    dirs
}

fn status_counts(paths: &[(PathSpec, &str)]) -> (usize, usize, usize) {
    let count = |s: &str| paths.iter().filter(|(_, status)| *status == s).count();
    (count("sat"), count("unsat"), count("unknown"))
}

/// Covered path ids over all test cases in `dirs`.
fn measure(
    program: &Program,
    paths: &[(PathSpec, &str)],
    dirs: &[PathBuf],
    base: &Path,
) -> Result<BTreeSet<i64>, String> {
    let specs: Vec<PathSpec> = paths.iter().map(|(p, _)| p.clone()).collect();
    let mut covered = BTreeSet::new();
    for dir in dirs {
        let inputs = load_inputs(program, base, Some(dir))?;
        let (ids, _) = generate::coverage(program, &specs, &inputs)?;
        covered.extend(ids);
    }
    Ok(covered)
}

fn generate_command(
    path: &str,
    output: &Path,
    bounds: &Bounds,
    out: &mut String,
    warnings: &mut String,
) -> Result<(), String> {
    check_bounds(bounds)?;
    let start = Instant::now();
    let context = context();
    progress(&format!(
        "{path}: enumerating JDU paths (k={}), solving, emitting",
        bounds.k
    ));
    let pipeline_text = format!(
        "builtin.module(bigtest-jdu-paths{{k={k}}},bigtest-solve{{timeout-ms={t}}},bigtest-emit{{timeout-ms={t}}})",
        k = bounds.k,
        t = bounds.timeout_ms
    );
    let analysed = analyse(&context, path, &pipeline_text, warnings)?;
    let elapsed = start.elapsed();
    let several = analysed.len() > 1;
    let _ = writeln!(
        out,
        "{:<22} {:>9} {:>8} {:>10} {:>7} {:>7} {:>5} {:>9} {:>8}",
        "program",
        "JDU paths",
        "feasible",
        "infeasible",
        "unknown",
        "records",
        "cases",
        "coverage",
        "time"
    );
    for a in &analysed {
        let dir = if several {
            output.join(&a.program.name)
        } else {
            output.to_path_buf()
        };
        let cases = write_testdata(&a.program, &a.records, &dir)?;
        write_reports(a, &dir)?;
        let (sat, unsat, unknown) = status_counts(&a.paths);
        let covered = measure(&a.program, &a.paths, &case_dirs(&dir), &base_dir(path))?;
        let feasible: BTreeSet<i64> = a
            .paths
            .iter()
            .filter(|(_, s)| *s == "sat")
            .map(|(p, _)| p.id)
            .collect();
        let hit = feasible.intersection(&covered).count();
        let percent = if feasible.is_empty() {
            100.0
        } else {
            100.0 * hit as f64 / feasible.len() as f64
        };
        let _ = writeln!(
            out,
            "{:<22} {:>9} {:>8} {:>10} {:>7} {:>7} {:>5} {:>8.1}% {:>7.2}s",
            a.program.name,
            a.paths.len(),
            sat,
            unsat,
            unknown,
            a.records.len(),
            cases,
            percent,
            elapsed.as_secs_f64()
        );
        let missed: Vec<String> = feasible
            .difference(&covered)
            .map(|id| id.to_string())
            .collect();
        if !missed.is_empty() {
            let _ = writeln!(
                out,
                "  feasible paths the data does not cover: {} (see {})",
                missed.join(", "),
                dir.join("report.txt").display()
            );
        }
    }
    let _ = writeln!(out, "test data written to {}", output.display());
    Ok(())
}

/// Writes every source's records; returns the number of test cases.
fn write_testdata(
    program: &Program,
    records: &[(usize, String, String, Vec<i64>)],
    dir: &Path,
) -> Result<usize, String> {
    let cases = records.iter().map(|r| r.0 + 1).max().unwrap_or(1);
    // Cases of an earlier run would read as part of this test set.
    for stale in case_dirs(dir).into_iter().skip(1) {
        std::fs::remove_dir_all(&stale)
            .map_err(|e| format!("cannot remove {}: {e}", stale.display()))?;
    }
    for case in 0..cases {
        let case_dir = if case == 0 {
            dir.to_path_buf()
        } else {
            dir.join(format!("case-{case}"))
        };
        std::fs::create_dir_all(&case_dir)
            .map_err(|e| format!("cannot create {}: {e}", case_dir.display()))?;
        for (_, op) in program.sources() {
            let OpKind::Source { name, .. } = &op.kind else {
                continue;
            };
            let file = case_dir.join(data_file_name(&op.kind).unwrap_or_default());
            let mut text = String::new();
            for (_, _, line, _) in records.iter().filter(|r| r.0 == case && &r.1 == name) {
                text.push_str(line);
                text.push('\n');
            }
            std::fs::write(&file, text)
                .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        }
    }
    Ok(cases)
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn write_reports(a: &Analysed, dir: &Path) -> Result<(), String> {
    // Which records (case, source, line) cover each path.
    let mut by_path: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    let mut line_of: BTreeMap<(usize, String), usize> = BTreeMap::new();
    let mut json_records = Vec::new();
    for (case, source, text, covers) in &a.records {
        let line = line_of.entry((*case, source.clone())).or_insert(0);
        *line += 1;
        let place = if *case == 0 {
            format!("{source}:{line}")
        } else {
            format!("case-{case}/{source}:{line}")
        };
        for id in covers {
            by_path.entry(*id).or_default().push(place.clone());
        }
        let covers: Vec<String> = covers.iter().map(|c| c.to_string()).collect();
        json_records.push(format!(
            "    {{\"case\": {case}, \"source\": {}, \"line\": {line}, \"text\": {}, \"covers\": [{}]}}",
            json_string(source),
            json_string(text),
            covers.join(", ")
        ));
    }
    let mut text = format!("BigTest report for @{}\n\n", a.program.name);
    let mut json_paths = Vec::new();
    for (spec, status) in &a.paths {
        let covered_by = by_path.get(&spec.id).cloned().unwrap_or_default();
        let _ = writeln!(text, "path {} [{status}]", spec.id);
        for branch in &spec.branches {
            let _ = writeln!(text, "    {branch}");
        }
        if covered_by.is_empty() {
            let _ = writeln!(text, "  covered by: nothing\n");
        } else {
            let _ = writeln!(text, "  covered by: {}\n", covered_by.join(", "));
        }
        let branches: Vec<String> = spec.branches.iter().map(|b| json_string(b)).collect();
        let records: Vec<String> = covered_by.iter().map(|r| json_string(r)).collect();
        json_paths.push(format!(
            "    {{\"id\": {}, \"status\": \"{status}\", \"branches\": [{}], \"covered_by\": [{}]}}",
            spec.id,
            branches.join(", "),
            records.join(", ")
        ));
    }
    let json = format!(
        "{{\n  \"program\": {},\n  \"paths\": [\n{}\n  ],\n  \"records\": [\n{}\n  ]\n}}\n",
        json_string(&a.program.name),
        json_paths.join(",\n"),
        json_records.join(",\n")
    );
    let write = |name: &str, contents: &str| {
        let file = dir.join(name);
        std::fs::write(&file, contents).map_err(|e| format!("cannot write {}: {e}", file.display()))
    };
    write("report.txt", &text)?;
    write("report.json", &json)
}

fn coverage_command(
    path: &str,
    data: Option<&Path>,
    bounds: &Bounds,
    out: &mut String,
    warnings: &mut String,
) -> Result<(), String> {
    check_bounds(bounds)?;
    let context = context();
    let pipeline_text = format!(
        "builtin.module(bigtest-jdu-paths{{k={}}},bigtest-solve{{timeout-ms={}}})",
        bounds.k, bounds.timeout_ms
    );
    for a in analyse(&context, path, &pipeline_text, warnings)? {
        let dirs: Vec<Option<PathBuf>> = match data {
            Some(dir) => case_dirs(dir).into_iter().map(Some).collect(),
            None => vec![None],
        };
        let specs: Vec<PathSpec> = a.paths.iter().map(|(p, _)| p.clone()).collect();
        let enumerated: BTreeSet<String> = specs
            .iter()
            .map(|s| coco_dataflow::lineage::path_key(&s.branches))
            .collect();
        let mut covered = BTreeSet::new();
        let mut failures = 0;
        // Paths the data follows that the bound k leaves out (three records
        // folded at k=2, a loop run more than k times).
        let mut beyond = BTreeSet::new();
        for dir in &dirs {
            let inputs = load_inputs(&a.program, &base_dir(path), dir.as_deref())?;
            let (ids, run) = generate::coverage(&a.program, &specs, &inputs)?;
            covered.extend(ids);
            failures += run.failures.len();
            for observation in &run.observations {
                let key = coco_dataflow::lineage::path_key(&observation.branches);
                if !enumerated.contains(&key) {
                    beyond.insert(key);
                }
            }
        }
        let (sat, unsat, unknown) = status_counts(&a.paths);
        let hit = a
            .paths
            .iter()
            .filter(|(p, s)| *s == "sat" && covered.contains(&p.id))
            .count();
        let _ = writeln!(
            out,
            "@{}: {} JDU paths at k={} ({sat} feasible, {unsat} infeasible, {unknown} unknown)",
            a.program.name,
            a.paths.len(),
            bounds.k
        );
        let _ = writeln!(
            out,
            "covered: {hit} of {sat} feasible paths ({:.1}%); {failures} records fail in the program",
            if sat == 0 { 100.0 } else { 100.0 * hit as f64 / sat as f64 }
        );
        for (spec, status) in &a.paths {
            if *status != "unsat" && !covered.contains(&spec.id) {
                let _ = writeln!(
                    out,
                    "missed path {} [{status}]: {}",
                    spec.id,
                    spec.branches.join(" ; ")
                );
            }
        }
        if !beyond.is_empty() {
            let _ = writeln!(
                out,
                "{} path(s) the data follows are beyond k={} (more records combined, later flat_map elements or more loop trips):",
                beyond.len(),
                bounds.k
            );
            for key in &beyond {
                let _ = writeln!(out, "beyond k: {key}");
            }
        }
    }
    Ok(())
}

/// Whether two runs of a program differ in what a user would see.
fn differs(original: &Result<Run, interp::Error>, mutant: &Result<Run, interp::Error>) -> bool {
    match (original, mutant) {
        (Ok(a), Ok(b)) => {
            let failed = |r: &Run| {
                let mut f: Vec<String> = r
                    .failures
                    .iter()
                    .map(|f| format!("{:?}", f.origins))
                    .collect();
                f.sort();
                f
            };
            a.sink_lines() != b.sink_lines() || failed(a) != failed(b)
        }
        (Ok(_), Err(_)) | (Err(_), Ok(_)) => true,
        (Err(_), Err(_)) => false,
    }
}

fn mutate_command(path: &str, data: &Path, out: &mut String) -> Result<(), String> {
    if !data.is_dir() {
        return Err(format!("--data {}: no such directory", data.display()));
    }
    let context = context();
    let text = source::read_input(path, None)?;
    let module = source::load(&context, &text, path)?;
    let module_ref = module.as_operation();
    let module_op = as_op(&module_ref);
    for func in extract::program_functions(module_op) {
        let program = extract::extract(module_op, as_op(&func))
            .map_err(|e| format!("{path}: {}", e.message))?;
        let dir = if extract::program_functions(module_op).len() > 1 {
            data.join(&program.name)
        } else {
            data.to_path_buf()
        };
        let mut datasets = Vec::new();
        for d in case_dirs(&dir) {
            datasets.push(load_inputs(&program, &base_dir(path), Some(&d))?);
        }
        let originals: Vec<_> = datasets.iter().map(|d| interp::run(&program, d)).collect();
        if let Some(Err(e)) = originals.iter().find(|r| r.is_err()) {
            return Err(format!("the original program fails on the data: {e}"));
        }
        let mutants = mutate::mutants(&program);
        let mut per_class: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        let mut survivors = Vec::new();
        for m in &mutants {
            let killed = datasets
                .iter()
                .zip(&originals)
                .any(|(d, original)| differs(original, &interp::run(&m.program, d)));
            let entry = per_class.entry(m.class).or_default();
            entry.1 += 1;
            if killed {
                entry.0 += 1;
            } else {
                survivors.push(m);
            }
        }
        let killed: usize = per_class.values().map(|(k, _)| k).sum();
        let _ = writeln!(
            out,
            "@{}: {} mutants, {killed} killed",
            program.name,
            mutants.len()
        );
        for (class, (k, n)) in &per_class {
            let _ = writeln!(out, "  {class:<24} {k}/{n}");
        }
        let score = if mutants.is_empty() {
            100.0
        } else {
            100.0 * killed as f64 / mutants.len() as f64
        };
        let _ = writeln!(out, "mutation score: {score:.1}%");
        for m in survivors {
            let _ = writeln!(
                out,
                "survived: {} ({}) at {}",
                m.description, m.class, m.loc
            );
        }
    }
    Ok(())
}

fn run_command(path: &str, data: Option<&Path>, out: &mut String) -> Result<(), String> {
    let context = context();
    let text = source::read_input(path, None)?;
    let module = source::load(&context, &text, path)?;
    let module_ref = module.as_operation();
    let module_op = as_op(&module_ref);
    for func in extract::program_functions(module_op) {
        let program = extract::extract(module_op, as_op(&func))
            .map_err(|e| format!("{path}: {}", e.message))?;
        let inputs = load_inputs(&program, &base_dir(path), data)?;
        let run = interp::run(&program, &inputs).map_err(|e| e.to_string())?;
        for (name, lines) in run.sink_lines() {
            let _ = writeln!(out, "sink \"{name}\" ({} records):", lines.len());
            for line in lines {
                let _ = writeln!(out, "  {line}");
            }
        }
        if !run.failures.is_empty() {
            let mut message = format!(
                "@{}: {} records fail (Spark would abort the job):",
                program.name,
                run.failures.len()
            );
            for f in &run.failures {
                let origins: Vec<String> = f
                    .origins
                    .iter()
                    .map(|o| format!("{} record {}", o.source, o.index))
                    .collect();
                let _ = write!(
                    message,
                    "\n  {}: {}: {} ({})",
                    f.loc,
                    f.op,
                    f.reason,
                    origins.join(", ")
                );
            }
            return Err(message);
        }
    }
    Ok(())
}
