//! `coco-bigtest`: BigTest for df programs.
//!
//! * `generate prog.mlir -o DIR` runs `bigtest-jdu-paths`, `bigtest-solve`
//!   and `bigtest-emit`, writes the test data (one file per source, in the
//!   source's own format; extra test cases in `DIR/case-N/`), measures the
//!   coverage of what it wrote by running it, and writes a JSON and a text
//!   report. DIR is replaced only if it is new, empty or an earlier output
//!   (`coco_bigtest::output`).
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
use coco_bigtest::{
    bounds,
    coverage::{self, Histogram, Summary},
    enumerate::Limits,
    extract,
    generate::PathSpec,
    mutation::{self, Dataset},
    output::OutputFolder,
    report::Report,
    results,
    testdata::{self, case_dirs, TestRecord},
};
use coco_bigtest_passes::{emit, jdu_paths, solve};
use coco_dataflow::{
    interp,
    io::{load_inputs_within, DataLimit, DEFAULT_MAX_DATA_BYTES},
    model::Program,
    text::{escape, escape_controls},
};
use coco_dialects::{
    bigtest::PathStatus,
    context,
    diagnostics::DiagnosticCollector,
    ir::{as_op, str_attr},
};
use melior::{ir::Module, pass::PassManager, Context};

use crate::{source, Output};

/// Exit status of `generate` and `coverage` when some paths are unknown:
/// the results are written and printed, but incomplete.
pub const INCOMPLETE: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "coco-bigtest",
    version,
    about = "BigTest for df programs: JDU paths, Z3-generated test data, coverage and mutation scores",
    after_help = "Exit status: 0 when done; 1 on an error; 2 from generate and coverage when some JDU paths are \
unknown (Z3 gave up within --timeout-ms): the data and reports are written, but coverage counts those paths as \
not covered."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Debug)]
struct Bounds {
    /// Records combined per reduce/group/distinct, flat_map elements
    /// followed, and loop unrolling.
    #[arg(long, default_value_t = bounds::K.default)]
    k: i64,
    /// Solver effort per query, in milliseconds of a quiet machine: Z3
    /// counts work (its rlimit, 1000 units per millisecond), so the same
    /// job gives the same data on a loaded machine; the wall clock only
    /// stops a query at 20 times this (at least 60 s).
    #[arg(long, default_value_t = bounds::TIMEOUT_MS.default)]
    timeout_ms: i64,
    /// UDF operations the symbolic executor may run on one UDF path
    /// (constant loops run to the end within it).
    #[arg(long, default_value_t = bounds::FUEL.default)]
    fuel: i64,
    /// Largest df.get index into a string split from input that the
    /// analysis follows.
    #[arg(long, default_value_t = bounds::MAX_INDEX.default)]
    max_index: i64,
    /// JDU paths per program, UDF paths and record combinations per
    /// operator that the enumeration may produce.
    #[arg(long, default_value_t = bounds::MAX_PATHS.default)]
    max_paths: i64,
}

impl Bounds {
    /// The same ranges the passes enforce: the flags are the passes'
    /// options (`coco_bigtest::bounds`).
    fn check(&self) -> Result<(), String> {
        bounds::K.check_flag(self.k)?;
        bounds::TIMEOUT_MS.check_flag(self.timeout_ms)?;
        bounds::FUEL.check_flag(self.fuel)?;
        bounds::MAX_INDEX.check_flag(self.max_index)?;
        bounds::MAX_PATHS.check_flag(self.max_paths)?;
        Ok(())
    }

    /// The limits of `bigtest-jdu-paths` (after [`Bounds::check`]).
    fn limits(&self) -> Limits {
        Limits {
            k: self.k as usize,
            fuel: self.fuel as u64,
            max_index: self.max_index as usize,
            max_paths: self.max_paths as usize,
        }
    }

    /// The BigTest passes up to `last`, with these values.
    /// k as a count of records (checked positive by [`Bounds::check`]).
    fn records(&self) -> usize {
        usize::try_from(self.k).unwrap_or(usize::MAX)
    }

    fn pass_manager<'c>(&self, context: &'c Context, last: LastPass) -> PassManager<'c> {
        let manager = PassManager::new(context);
        manager.enable_verifier(true);
        manager.add_pass(prepare());
        manager.add_pass(jdu_paths::pass(self.limits()));
        manager.add_pass(solve::pass(self.timeout_ms as u32));
        if last == LastPass::Emit {
            manager.add_pass(emit::pass(self.timeout_ms as u32));
        }
        manager
    }
}

/// For each limit the diagnostics say to raise (as the analysis says it,
/// with the pass option), the flag of this tool that sets it.
fn flag_notes(diagnostics: &str) -> String {
    [
        bounds::K,
        bounds::FUEL,
        bounds::MAX_INDEX,
        bounds::MAX_PATHS,
    ]
    .iter()
    .filter(|limit| diagnostics.contains(&coco_bigtest::enumerate::raise(limit)))
    .map(|limit| format!("note: coco-bigtest sets {0} with --{0} N\n", limit.name))
    .collect()
}

/// The last BigTest pass a command needs.
#[derive(Clone, Copy, PartialEq)]
enum LastPass {
    /// Paths and their feasibility (`coverage`).
    Solve,
    /// Test records too (`generate`).
    Emit,
}

/// How much data `run`, `coverage` and `mutate` read.
#[derive(clap::Args, Debug)]
struct DataArgs {
    /// The most bytes of data files (and inline records) one command reads,
    /// every source of every test case together; beyond it the command
    /// stops with an error naming the file. The interpreter holds every
    /// record and its path in memory, about 250 bytes per byte of data.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_DATA_BYTES)]
    max_data_bytes: u64,
}

impl DataArgs {
    /// The limit, lowered to what this process's memory can hold: data
    /// beyond that is refused by name when read (a flag value above it is
    /// not an error, so that `--max-data-bytes` can say "no limit").
    fn limit(&self) -> DataLimit {
        DataLimit::new(self.max_data_bytes)
    }
}

/// How a PySpark job (a `.py` program) is read.
#[derive(clap::Args, Debug)]
struct PythonArgs {
    /// For a PySpark job (.py): the function under test. Default: the only
    /// function of the file that applies RDD operators to its parameters,
    /// else the file's `__main__` script.
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// For a PySpark job: the Python whose `ast` module parses the file
    /// (no code of the file runs). Default: $COCO_PYTHON, else python3.
    #[arg(long, value_name = "PATH")]
    python: Option<String>,
}

impl PythonArgs {
    fn options(&self) -> coco_pyspark::Options {
        coco_pyspark::Options {
            python: self
                .python
                .clone()
                .unwrap_or_else(coco_pyspark::default_python),
            entry: self.entry.clone(),
        }
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Generate test data covering every feasible JDU path.
    Generate {
        /// The df program (.mlir) or PySpark job (.py).
        program: String,
        /// Directory for the test data and reports: new, empty, or an earlier
        /// output (it has a coco-bigtest-manifest.txt), whose files are
        /// replaced; anything else in it is left alone.
        #[arg(short = 'o', long = "output", value_name = "DIR")]
        output: PathBuf,
        /// For a PySpark job: also write a pytest module of the generated
        /// cases (one test per case, run on a local SparkContext).
        #[arg(long, value_name = "FILE")]
        pytest: Option<PathBuf>,
        /// Data the user already has (a folder as `coverage --data` reads
        /// it): generate records only for the feasible paths it misses.
        #[arg(long, value_name = "DIR", conflicts_with = "given_histogram")]
        given: Option<PathBuf>,
        /// Measure --given on Spark (local mode, in --python's pyspark)
        /// instead of the interpreter, as `coverage --spark` does.
        #[arg(long, requires = "given")]
        spark: bool,
        /// The same for data on a cluster: the path histogram its paths job
        /// wrote (coco-translate --emit=pyspark-paths; `coverage --histogram`).
        #[arg(long, value_name = "FILE")]
        given_histogram: Option<PathBuf>,
        #[command(flatten)]
        bounds: Bounds,
        #[command(flatten)]
        data_args: DataArgs,
        #[command(flatten)]
        python: PythonArgs,
    },
    /// Print the df program of a PySpark job (.py), for coco-opt and the
    /// other tools.
    Import {
        /// The PySpark job.
        program: String,
        /// Where to write the df program (default: standard output).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        python: PythonArgs,
    },
    /// Report which JDU paths a dataset covers, how many records follow
    /// each, and which feasible ones it misses.
    Coverage {
        program: String,
        /// Directory with one file per source (as `generate` writes); without
        /// it, the program's own paths and inline records.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// Measure on Spark (local mode, in --python's pyspark) instead of
        /// the interpreter: the program's paths job (coco-translate
        /// --emit=pyspark-paths) tags every record with its JDU path.
        #[arg(long, requires = "data", conflicts_with = "histogram")]
        spark: bool,
        /// Report on a histogram the paths job wrote on a cluster
        /// (`--histogram FILE` of the job) instead of running anything.
        #[arg(long, value_name = "FILE", conflicts_with = "data")]
        histogram: Option<PathBuf>,
        #[command(flatten)]
        bounds: Bounds,
        #[command(flatten)]
        data_args: DataArgs,
        #[command(flatten)]
        python: PythonArgs,
    },
    /// Run faulty variants of the program on test data; report the mutation
    /// score.
    Mutate {
        program: String,
        /// Test data as `generate` writes it (`case-N/` subdirectories are
        /// further test cases).
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        #[command(flatten)]
        data_args: DataArgs,
        #[command(flatten)]
        python: PythonArgs,
    },
    /// Run the program in the reference interpreter and print its sinks;
    /// exit 1 when a job fails, as it would on Spark.
    Run {
        program: String,
        /// Data as `generate` writes it: one file per source, and each
        /// `case-N/` subdirectory a job of its own; without it, the
        /// program's own paths and inline records.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// Print each job's outcome as JSON (`{"jobs": [{"program", "data",
        /// "outcome": "succeeded" | "failed", "sinks": {name: [lines]},
        /// "failures": [text]}]}`, sink lines sorted) for other tools.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        data_args: DataArgs,
        #[command(flatten)]
        python: PythonArgs,
    },
}

pub fn run(args: &[String]) -> Output {
    let cli: Cli = match crate::parse_args(args) {
        Ok(cli) => cli,
        Err(output) => return output,
    };
    let mut out = String::new();
    let mut warnings = String::new();
    // JSON escapes its own strings; any other output is text for people.
    let json = matches!(cli.command, Command::Run { json: true, .. });
    let result = match &cli.command {
        Command::Generate {
            program,
            output,
            pytest,
            given,
            spark,
            given_histogram,
            bounds,
            data_args,
            python,
        } => generate_command(
            program,
            Destination {
                output,
                pytest: pytest.as_deref(),
                given: Given::new(
                    given.as_deref(),
                    given_histogram.as_deref(),
                    data_args.limit(),
                    spark.then(|| python.options().python),
                ),
            },
            &python.options(),
            bounds,
            &mut out,
            &mut warnings,
        ),
        Command::Import {
            program,
            output,
            python,
        } => import_command(program, &python.options(), output.as_deref(), &mut out)
            .map(|()| Vec::new()),
        Command::Coverage {
            program,
            data,
            spark,
            histogram,
            bounds,
            data_args,
            python,
        } => coverage_command(
            program,
            &python.options(),
            &Measured::new(data.as_deref(), *spark, histogram.as_deref()),
            bounds,
            &mut data_args.limit(),
            &mut out,
            &mut warnings,
        ),
        Command::Mutate {
            program,
            data,
            data_args,
            python,
        } => mutate_command(
            program,
            &python.options(),
            data,
            &mut data_args.limit(),
            &mut out,
        )
        .map(|()| Vec::new()),
        Command::Run {
            program,
            data,
            json,
            data_args,
            python,
        } => run_command(
            program,
            &python.options(),
            data.as_deref(),
            *json,
            &mut data_args.limit(),
            &mut out,
        )
        .map(|()| Vec::new()),
    };
    let (code, errors) = match result {
        Ok(problems) if problems.is_empty() => (0, Vec::new()),
        Ok(problems) => (INCOMPLETE, problems),
        Err(message) => (1, vec![message]),
    };
    for message in errors {
        let _ = writeln!(warnings, "coco-bigtest: error: {message}");
    }
    // Names and data are escaped where they are written; this catches any
    // control character left (an escape sequence in a message from below).
    let stdout = if json { out } else { controls_escaped(out) };
    Output {
        stdout: stdout.into_bytes(),
        stderr: controls_escaped(warnings).into_bytes(),
        code,
    }
}

/// `text` with [`escape_controls`] applied, not copied when it has none.
fn controls_escaped(text: String) -> String {
    match escape_controls(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(escaped) => escaped,
    }
}

/// A name or a data value as the text output shows it ([`escape`]).
fn shown(text: &str) -> String {
    escape(text).into_owned()
}

/// A path as the text output shows it.
fn shown_path(path: &Path) -> String {
    shown(&path.display().to_string())
}

/// Progress for people watching a terminal; tests and pipes see none.
fn progress(message: &str) {
    if std::io::stderr().is_terminal() {
        eprintln!("coco-bigtest: {message}");
    }
}

/// One program of the module, with what the passes found.
struct Analysed {
    program: Program,
    paths: Vec<(PathSpec, PathStatus)>,
    records: Vec<TestRecord>,
    /// Paths the user's own data follows (`generate --given`), which got
    /// no records.
    given: BTreeSet<i64>,
}

/// What runs before the analysis, `cse`: a pure op computed twice (a UDF
/// that splits the same line in two helpers) would otherwise be two
/// symbolic values the solver must prove equal, which multiplies its work
/// (7.5 s against 0.3 s for one such UDF, test/tools/coco-bigtest/cse.mlir).
/// Not `canonicalize`: it folds a UDF's `cf.cond_br` diamond into an
/// `arith.select`, which the enumeration treats as data, so the two sides
/// of the branch would no longer be JDU paths of their own.
fn prepare() -> melior::pass::Pass {
    melior::pass::transform::create_cse()
}

/// Parses the program at `path`, runs [`prepare`] and the BigTest passes up
/// to `last` with the values of `bounds`, and reads the results per
/// program; the passes' warnings (rendered with the source line) are
/// appended to `warnings`.
fn analyse(
    context: &Context,
    path: &str,
    python: &coco_pyspark::Options,
    bounds: &Bounds,
    last: LastPass,
    warnings: &mut String,
) -> Result<(Vec<Analysed>, Option<coco_pyspark::Imported>), String> {
    analyse_given(
        context,
        path,
        python,
        bounds,
        last,
        &mut Given::Nothing,
        warnings,
    )
}

/// [`analyse`], generating no data for the paths `given` data follows.
fn analyse_given(
    context: &Context,
    path: &str,
    python: &coco_pyspark::Options,
    bounds: &Bounds,
    last: LastPass,
    given: &mut Given,
    warnings: &mut String,
) -> Result<(Vec<Analysed>, Option<coco_pyspark::Imported>), String> {
    let program = source::read_program(path, python)?;
    let text = program.shown;
    let mut module: Module = source::load_shown(context, &program.mlir, path, &text)?;
    let collector = DiagnosticCollector::attach(context);
    let failed = |collector: &DiagnosticCollector| {
        let diagnostics: String = collector
            .take()
            .iter()
            .map(|d| source::render(d, path, &text))
            .collect();
        let notes = flag_notes(&diagnostics);
        format!("{path}: BigTest cannot analyse this program\n{diagnostics}{notes}")
    };
    let mut covered = BTreeMap::new();
    if !given.is_given() || last != LastPass::Emit {
        let manager = bounds.pass_manager(context, last);
        if manager.run(&mut module).is_err() {
            return Err(failed(&collector));
        }
    } else {
        // The paths first, then what the given data covers, then data for
        // the rest.
        if bounds
            .pass_manager(context, LastPass::Solve)
            .run(&mut module)
            .is_err()
        {
            return Err(failed(&collector));
        }
        let module_ref = module.as_operation();
        let module_op = as_op(&module_ref);
        let functions = extract::program_functions(module_op);
        let several = functions.len() > 1;
        for func in functions {
            let func = as_op(&func);
            let name = str_attr(func, "sym_name").unwrap_or_default();
            let program = extract::extract(module_op, func).map_err(|e| e.message)?;
            let paths: Vec<(PathSpec, PathStatus)> = results::path_ops(module_op, &name)
                .into_iter()
                .map(|p| (p.spec, p.status))
                .collect();
            let ids = given.covered(path, &program, &paths, several, bounds.k)?;
            covered.insert(name, ids);
        }
        let manager = PassManager::new(context);
        manager.enable_verifier(true);
        manager.add_pass(emit::given_pass(bounds.timeout_ms as u32, covered.clone()));
        if manager.run(&mut module).is_err() {
            return Err(failed(&collector));
        }
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
        let records = results::test_records(module_op, &name);
        analysed.push(Analysed {
            given: covered.remove(&name).unwrap_or_default(),
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
    Ok((analysed, program.imported))
}

fn base_dir(path: &str) -> PathBuf {
    Path::new(path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The datasets in `dirs`, as the program's sources read them, within
/// `limit`.
fn load_datasets(
    program: &Program,
    path: &str,
    dirs: &[Option<PathBuf>],
    limit: &mut DataLimit,
) -> Result<Vec<Dataset>, String> {
    dirs.iter()
        .map(|dir| load_inputs_within(program, &base_dir(path), dir.as_deref(), limit))
        .collect()
}

/// What `generate` and `coverage` found incomplete (unknown paths), one
/// message per program; empty when every path was decided.
type Problems = Vec<String>;

/// Where `generate` writes, and the data it need not cover.
struct Destination<'a> {
    output: &'a Path,
    pytest: Option<&'a Path>,
    given: Given<'a>,
}

fn generate_command(
    path: &str,
    destination: Destination,
    python: &coco_pyspark::Options,
    bounds: &Bounds,
    out: &mut String,
    warnings: &mut String,
) -> Result<Problems, String> {
    let Destination {
        output,
        pytest,
        mut given,
    } = destination;
    let given = &mut given;
    bounds.check()?;
    // `-` means standard output to the other tools; test data is a folder.
    if output == Path::new("-") {
        return Err(
            "-o -: test data is a folder of files and cannot go to standard output; name a folder"
                .into(),
        );
    }
    // Before any work: a folder it may not write into is refused at once.
    let mut staged = OutputFolder::new(output).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let context = context();
    progress(&format!(
        "{path}: enumerating JDU paths (k={}), solving, emitting",
        bounds.k
    ));
    let (analysed, imported) = analyse_given(
        &context,
        path,
        python,
        bounds,
        LastPass::Emit,
        given,
        warnings,
    )?;
    if pytest.is_some() && imported.is_none() {
        return Err("--pytest: the program is not a PySpark job (.py)".into());
    }
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
    let mut problems = Vec::new();
    let mut missed_lines = Vec::new();
    let mut pytest_module = None;
    for a in &analysed {
        let prefix = if several {
            PathBuf::from(&a.program.name)
        } else {
            PathBuf::new()
        };
        let reports = [prefix.join("report.txt"), prefix.join("report.json")];
        for report in &reports {
            staged
                .claim(report, &own_file(report))
                .map_err(|e| e.to_string())?;
        }
        let cases = testdata::write(&a.program, &a.records, &prefix, &mut staged)
            .map_err(|e| e.to_string())?;
        let dirs: Vec<Option<PathBuf>> = case_dirs(&staged.dir().join(&prefix))
            .into_iter()
            .map(Some)
            .collect();
        // The data it wrote itself: no limit.
        let datasets = load_datasets(&a.program, path, &dirs, &mut DataLimit::unlimited())?;
        // A script's CSV input, also as the file the script reads.
        if let Some(imported) = &imported {
            for (case, inputs) in datasets.iter().enumerate() {
                let dir = if case == 0 {
                    prefix.clone()
                } else {
                    prefix.join(format!("case-{case}"))
                };
                for input in &imported.job.inputs {
                    let records = inputs.get(&input.name).cloned().unwrap_or_default();
                    if let Some(lines) = coco_pyspark::files::case_lines(input, &records) {
                        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
                        let file = dir.join(format!("{}.csv", input.name));
                        let owner = format!("the CSV file of input {}", input.name);
                        staged
                            .write(&file, &owner, &text)
                            .map_err(|e| e.to_string())?;
                    }
                }
            }
        }
        let mut covered = coverage::measure(&a.program, &a.paths, &datasets, bounds.records())
            .map_err(|e| shown(&e.to_string()))?
            .covered;
        covered.extend(&a.given);
        if let (Some(file), Some(imported)) = (pytest, &imported) {
            let cases = pytest_cases(&a.program, &a.paths, &datasets, imported)?;
            pytest_module = Some((file, imported, cases));
        }
        let summary = Summary::new(&a.paths, &covered);
        let mut report = Report::new(&a.program.name, &a.paths, &a.records, summary);
        for p in report.paths.iter_mut().filter(|p| a.given.contains(&p.id)) {
            p.covered_by.push("the given data".into());
        }
        staged
            .write(&reports[1], &own_file(&reports[1]), &report.to_json())
            .map_err(|e| e.to_string())?;
        staged
            .write(&reports[0], &own_file(&reports[0]), &report_text(report))
            .map_err(|e| e.to_string())?;
        let _ = writeln!(
            out,
            "{:<22} {:>9} {:>8} {:>10} {:>7} {:>7} {:>5} {:>8.1}% {:>7.2}s",
            shown(&a.program.name),
            a.paths.len(),
            summary.feasible,
            summary.infeasible,
            summary.unknown,
            a.records.len(),
            cases,
            summary.percent(),
            elapsed.as_secs_f64()
        );
        if !a.given.is_empty() {
            let ids: Vec<String> = a.given.iter().map(i64::to_string).collect();
            missed_lines.push(format!(
                "  paths the given data follows, which got no new records: {} {}",
                if ids.len() == 1 { "path" } else { "paths" },
                ids.join(", ")
            ));
        }
        let missed: Vec<String> = a
            .paths
            .iter()
            .filter(|(p, s)| *s != PathStatus::Unsat && !covered.contains(&p.id))
            .map(|(p, _)| p.id.to_string())
            .collect();
        if !missed.is_empty() {
            missed_lines.push(format!(
                "  paths the data does not cover, not shown infeasible: {} {} (see {})",
                if missed.len() == 1 { "path" } else { "paths" },
                missed.join(", "),
                shown_path(&output.join(&reports[0]))
            ));
        }
        problems.extend(summary.unknown_problem(&shown(&a.program.name), bounds.timeout_ms));
    }
    let kept = staged.commit().map_err(|e| e.to_string())?;
    if let Some((file, imported, cases)) = pytest_module {
        write_pytest(file, path, imported, &cases)?;
        let _ = writeln!(out, "pytest module written to {}", shown_path(file));
    }
    for line in missed_lines {
        let _ = writeln!(out, "{line}");
    }
    for warning in kept {
        let _ = writeln!(warnings, "coco-bigtest: warning: {warning}");
    }
    let _ = writeln!(out, "test data written to {}", shown_path(output));
    Ok(problems)
}

/// The generated cases of a PySpark job as the pytest module states them:
/// each case's records, the paths it covers and the interpreter's outcome.
fn pytest_cases(
    program: &Program,
    paths: &[(PathSpec, PathStatus)],
    datasets: &[Dataset],
    imported: &coco_pyspark::Imported,
) -> Result<Vec<coco_pyspark::pytest::Case>, String> {
    use coco_pyspark::pytest::{Case, Outcome};
    let specs: Vec<PathSpec> = paths.iter().map(|(p, _)| p.clone()).collect();
    let mut cases = Vec::new();
    for (i, inputs) in datasets.iter().enumerate() {
        let (ids, run) = coco_bigtest::generate::coverage(program, &specs, inputs)
            .map_err(|e| shown(&e.to_string()))?;
        let described: Vec<String> = specs
            .iter()
            .filter(|s| ids.contains(&s.id))
            .map(|s| format!("{}: {}", s.id, s.branches.join(" ")))
            .collect();
        let outcome = match run.failures.first() {
            Some(failure) => Outcome::Failure {
                class: failure.exception.clone(),
                reason: failure.reason.clone(),
                // A failure of no record: the driver's reduce of nothing.
                in_driver: failure.origins.is_empty(),
            },
            None => Outcome::Output(
                imported
                    .job
                    .outputs
                    .iter()
                    .map(|output| {
                        run.sinks
                            .iter()
                            .find(|(name, _)| *name == output.name)
                            .map(|(_, records)| records.clone())
                            .unwrap_or_default()
                    })
                    .collect(),
            ),
        };
        cases.push(Case {
            folder: if i == 0 {
                ".".into()
            } else {
                format!("case-{i}")
            },
            inputs: inputs.clone(),
            paths: described,
            outcome,
        });
    }
    Ok(cases)
}

/// Writes the pytest module `file` (replacing only a module coco-bigtest
/// wrote), naming the job by its path relative to the module's folder.
fn write_pytest(
    file: &Path,
    job: &str,
    imported: &coco_pyspark::Imported,
    cases: &[coco_pyspark::pytest::Case],
) -> Result<(), String> {
    let shown_file = shown_path(file);
    if file == Path::new("-") {
        return Err(
            "--pytest -: the module names its job by a path relative to its own folder, so it is a file; name a .py file"
                .into(),
        );
    }
    // Looked at, not followed: only a regular file that coco-bigtest wrote
    // is replaced, and nothing is read through a link or from a FIFO.
    match std::fs::symlink_metadata(file) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(format!(
                "--pytest {shown_file}: is a symbolic link, not a module coco-bigtest wrote; it is left alone"
            ))
        }
        Ok(meta) if !meta.is_file() => {
            return Err(format!(
                "--pytest {shown_file}: is {}; name a .py file",
                coco_base::file::kind(&meta)
            ))
        }
        Ok(_) => {
            let written_by_us = coco_base::file::open_regular(file)
                .ok()
                .and_then(|(file, _)| {
                    let mut first = String::new();
                    std::io::BufRead::read_line(
                        &mut std::io::BufReader::new(std::io::Read::take(file, 4096)),
                        &mut first,
                    )
                    .ok()
                    .map(|_| first.contains(coco_pyspark::pytest::MARK))
                });
            if written_by_us != Some(true) {
                return Err(format!(
                    "--pytest {shown_file}: the file exists and coco-bigtest did not write it; it is left alone"
                ));
            }
        }
        Err(_) => {}
    }
    let folder = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&folder).map_err(|e| {
        format!(
            "--pytest {shown_file}: cannot make its folder: {}",
            crate::output::reason(&e)
        )
    })?;
    let job_abs =
        std::fs::canonicalize(job).map_err(|e| format!("{job}: {}", crate::output::reason(&e)))?;
    let folder_abs = std::fs::canonicalize(&folder)
        .map_err(|e| format!("--pytest {shown_file}: {}", crate::output::reason(&e)))?;
    let relative = relative_path(&folder_abs, &job_abs);
    let text = coco_pyspark::pytest::module(&imported.job, &relative, job, cases)?;
    coco_base::staged::write_file(file, text.as_bytes())
        .map_err(|e| format!("--pytest {shown_file}: {}", crate::output::reason(&e)))
}

/// `to` relative to folder `from` (both absolute): `../jobs/job.py`.
fn relative_path(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// `import`: the df program of a PySpark job.
fn import_command(
    path: &str,
    python: &coco_pyspark::Options,
    output: Option<&Path>,
    out: &mut String,
) -> Result<(), String> {
    if !source::is_pyspark(path) {
        return Err(format!("{path}: import reads a PySpark job (a .py file)"));
    }
    let program = source::read_program(path, python)?;
    // What the other tools will read must parse and verify.
    let context = context();
    source::load_shown(&context, &program.mlir, path, &program.shown)?;
    match output {
        Some(file) if file != Path::new("-") => {
            crate::write_output_atomically(file, program.mlir.as_bytes())?
        }
        _ => out.push_str(&program.mlir),
    }
    Ok(())
}

/// `report.txt`: every name in it (the program's, UDFs' in the branches,
/// sources' in the places) escaped, so that none can start a line of its
/// own. `report.json` keeps them as they are.
fn report_text(mut report: Report) -> String {
    let escape_all = |texts: &mut Vec<String>| {
        for text in texts {
            if let std::borrow::Cow::Owned(escaped) = escape(text) {
                *text = escaped;
            }
        }
    };
    report.program = shown(&report.program);
    for path in &mut report.paths {
        escape_all(&mut path.branches);
        escape_all(&mut path.covered_by);
    }
    report.to_text()
}

/// Of the records an operator combines (`fold{a | b | c}`), how many
/// `coverage` shows in a path beyond k; the others are counted.
const SHOWN_COMBINED: usize = 3;

/// How many paths beyond k `coverage` lists; the others are counted.
const SHOWN_BEYOND_K: usize = 20;

/// How many failures of one job `run` lists; the others are counted.
const SHOWN_FAILURES: usize = 20;

/// A path key with at most `keep` of the records each operator combines
/// (`reduce#2=fold{a | b | ... and 997 more}`), nested ones too, so that
/// a fold of a million records is one short line.
fn abbreviate(key: &str, keep: usize) -> String {
    abbreviate_at(key, keep, 0)
}

fn abbreviate_at(key: &str, keep: usize, depth: usize) -> String {
    // Deeper than any program nests operators: only a name full of braces.
    if depth > 64 {
        return key.to_string();
    }
    let mut out = String::new();
    let mut rest = key;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..=open]);
        let inner = &rest[open + 1..];
        let Some(close) = matching_brace(inner) else {
            out.push_str(inner);
            return out;
        };
        let items = top_level_items(&inner[..close]);
        let kept: Vec<String> = items
            .iter()
            .take(keep)
            .map(|item| abbreviate_at(item, keep, depth + 1))
            .collect();
        out.push_str(&kept.join(" | "));
        if items.len() > keep {
            let _ = write!(out, " | ... and {} more", items.len() - keep);
        }
        out.push('}');
        rest = &inner[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Where the `}` closing a group that starts at `text` is.
fn matching_brace(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' if depth == 0 => return Some(i),
            b'}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `text` split at the ` | ` outside braces.
fn top_level_items(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'|' if depth == 0
                && i > 0
                && bytes[i - 1] == b' '
                && bytes.get(i + 1) == Some(&b' ') =>
            {
                items.push(&text[start..i - 1]);
                start = i + 2;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

/// The owner of one of the tool's own files, for name clashes.
fn own_file(path: &Path) -> String {
    format!("coco-bigtest's own {}", path.display())
}

/// Data the user already has, whose paths `generate --given` leaves out.
enum Given<'a> {
    Nothing,
    Data(&'a Path, DataLimit),
    /// A folder measured on Spark, with the Python whose pyspark runs it.
    Spark(&'a Path, String),
    Histogram(&'a Path),
}

impl<'a> Given<'a> {
    /// `spark` is the Python to measure the data folder with on Spark.
    fn new(
        data: Option<&'a Path>,
        histogram: Option<&'a Path>,
        limit: DataLimit,
        spark: Option<String>,
    ) -> Given<'a> {
        match (data, histogram, spark) {
            (Some(dir), _, Some(python)) => Given::Spark(dir, python),
            (Some(dir), _, None) => Given::Data(dir, limit),
            (None, Some(file), _) => Given::Histogram(file),
            (None, None, _) => Given::Nothing,
        }
    }

    /// The ids of `paths` the data follows (for a module of `several`
    /// programs, a folder holds one folder per program, as `generate`
    /// writes them).
    fn covered(
        &mut self,
        path: &str,
        program: &Program,
        paths: &[(PathSpec, PathStatus)],
        several: bool,
        k: i64,
    ) -> Result<BTreeSet<i64>, String> {
        match self {
            Given::Nothing => Ok(BTreeSet::new()),
            Given::Data(dir, limit) => {
                let dir = if several {
                    dir.join(&program.name)
                } else {
                    dir.to_path_buf()
                };
                let dirs: Vec<Option<PathBuf>> = case_dirs(&dir).into_iter().map(Some).collect();
                let datasets = load_datasets(program, path, &dirs, limit)
                    .map_err(|e| format!("--given: {e}"))?;
                let k = usize::try_from(k).unwrap_or(usize::MAX);
                Ok(coverage::measure(program, paths, &datasets, k)
                    .map_err(|e| format!("--given: {}", shown(&e.to_string())))?
                    .covered)
            }
            Given::Spark(dir, python) => {
                let dir = if several {
                    dir.join(&program.name)
                } else {
                    dir.to_path_buf()
                };
                let histogram = spark_histogram(program, path, python, &case_dirs(&dir), k)
                    .map_err(|e| format!("--given --spark: {e}"))?;
                Ok(coverage::from_histogram(program, paths, &histogram, k)
                    .map_err(|e| format!("--given --spark: @{}: {e}", shown(&program.name)))?
                    .covered)
            }
            Given::Histogram(file) => {
                if several {
                    return Err(format!(
                        "--given-histogram: {path} has several df programs and a histogram is one program's"
                    ));
                }
                let histogram = read_histogram(file)?;
                Ok(coverage::from_histogram(program, paths, &histogram, k)
                    .map_err(|e| format!("{}: {e}", file.display()))?
                    .covered)
            }
        }
    }

    fn is_given(&self) -> bool {
        !matches!(self, Given::Nothing)
    }
}

/// The histogram the paths job wrote to `file`, a regular file (a FIFO or
/// a device such as `/dev/zero` is refused, not read).
fn read_histogram(file: &Path) -> Result<Histogram, String> {
    use std::io::Read;
    let shown_file = shown_path(file);
    let (mut opened, _) =
        coco_base::file::open_regular(file).map_err(|e| format!("{shown_file}: {e}"))?;
    let mut text = String::new();
    opened
        .read_to_string(&mut text)
        .map_err(|e| format!("{shown_file}: {e}"))?;
    Histogram::parse(&text, &shown_file)
}

/// The path histogram of `program` (of the file `path`) over the datasets
/// in `dirs`, from its paths job run on Spark in local mode.
fn spark_histogram(
    program: &Program,
    path: &str,
    python: &str,
    dirs: &[PathBuf],
    k: i64,
) -> Result<Histogram, String> {
    let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let file = Path::new(path)
        .file_name()
        .map_or("stdin".into(), |n| n.to_string_lossy().into_owned());
    let text = coco_spark::local::paths_histogram(program, &file, python, &dirs, k)
        .map_err(|e| format!("@{}: {e}", shown(&program.name)))?;
    Histogram::parse(&text, "the paths job's histogram")
}

/// Where `coverage` measures: the interpreter on a folder's datasets,
/// Spark on them, or a histogram Spark made elsewhere.
enum Measured<'a> {
    Interpreter(Option<&'a Path>),
    Spark(&'a Path),
    Histogram(&'a Path),
}

impl<'a> Measured<'a> {
    fn new(data: Option<&'a Path>, spark: bool, histogram: Option<&'a Path>) -> Measured<'a> {
        match (data, histogram) {
            (_, Some(file)) => Measured::Histogram(file),
            (Some(dir), None) if spark => Measured::Spark(dir),
            (data, None) => Measured::Interpreter(data),
        }
    }
}

fn coverage_command(
    path: &str,
    python: &coco_pyspark::Options,
    measured_on: &Measured,
    bounds: &Bounds,
    limit: &mut DataLimit,
    out: &mut String,
    warnings: &mut String,
) -> Result<Problems, String> {
    bounds.check()?;
    let context = context();
    let mut problems = Vec::new();
    let analysed = analyse(&context, path, python, bounds, LastPass::Solve, warnings)?.0;
    let several = analysed.len() > 1;
    let histogram = match measured_on {
        Measured::Histogram(file) => Some(read_histogram(file)?),
        _ => None,
    };
    if histogram.is_some() && several {
        return Err(format!(
            "{path}: --histogram is one program's; this module has {} (a job per program)",
            analysed.len()
        ));
    }
    for a in analysed {
        // `generate` writes each program of a module to a folder of its own.
        let dirs = |dir: &Path| -> Vec<PathBuf> {
            if several {
                case_dirs(&dir.join(&a.program.name))
            } else {
                case_dirs(dir)
            }
        };
        let measured = match measured_on {
            Measured::Interpreter(data) => {
                let dirs: Vec<Option<PathBuf>> = match data {
                    Some(dir) => dirs(dir).into_iter().map(Some).collect(),
                    None => vec![None],
                };
                let datasets = load_datasets(&a.program, path, &dirs, limit)?;
                coverage::measure(&a.program, &a.paths, &datasets, bounds.records())
                    .map_err(|e| shown(&e.to_string()))?
            }
            Measured::Spark(dir) => {
                let histogram =
                    spark_histogram(&a.program, path, &python.python, &dirs(dir), bounds.k)?;
                coverage::from_histogram(&a.program, &a.paths, &histogram, bounds.k)
                    .map_err(|e| format!("@{}: {e}", shown(&a.program.name)))?
            }
            Measured::Histogram(file) => match &histogram {
                Some(histogram) => {
                    coverage::from_histogram(&a.program, &a.paths, histogram, bounds.k)
                        .map_err(|e| format!("{}: {e}", file.display()))?
                }
                None => return Err(format!("{}: no histogram read", file.display())),
            },
        };
        let summary = Summary::new(&a.paths, &measured.covered);
        let _ = writeln!(
            out,
            "@{}: {} JDU paths at k={} ({} feasible, {} infeasible, {} unknown)",
            shown(&a.program.name),
            summary.paths,
            bounds.k,
            summary.feasible,
            summary.infeasible,
            summary.unknown
        );
        let empty = match measured.empty_reduces {
            0 => String::new(),
            n => format!("; {n} datasets reach a global reduce empty"),
        };
        let _ = writeln!(
            out,
            "{}; {} records fail in the program{empty}",
            summary.covered_line(),
            measured.failures
        );
        for (spec, status) in &a.paths {
            if *status != PathStatus::Unsat && !measured.covered.contains(&spec.id) {
                let _ = writeln!(
                    out,
                    "missed path {} [{status}]: {}",
                    spec.id,
                    shown(&spec.branches.join(" ; "))
                );
            }
        }
        for (id, records) in &measured.records {
            let _ = writeln!(out, "path {id}: {}", record_count(*records));
        }
        if !measured.beyond_k.is_empty() {
            let _ = writeln!(
                out,
                "{} path(s) the data follows are beyond k={} (more records combined, later flat_map elements or more loop trips), {}:",
                measured.beyond_k.len(),
                bounds.k,
                record_count(measured.beyond_k_records)
            );
            for key in measured.beyond_k.iter().take(SHOWN_BEYOND_K) {
                let _ = writeln!(out, "beyond k: {}", shown(&abbreviate(key, SHOWN_COMBINED)));
            }
            if measured.beyond_k.len() > SHOWN_BEYOND_K {
                let _ = writeln!(
                    out,
                    "beyond k: ... and {} more",
                    measured.beyond_k.len() - SHOWN_BEYOND_K
                );
            }
        }
        problems.extend(summary.unknown_problem(&shown(&a.program.name), bounds.timeout_ms));
    }
    Ok(problems)
}

/// `1 record`, `2 records`.
fn record_count(n: u64) -> String {
    format!("{n} record{}", if n == 1 { "" } else { "s" })
}

fn mutate_command(
    path: &str,
    python: &coco_pyspark::Options,
    data: &Path,
    limit: &mut DataLimit,
    out: &mut String,
) -> Result<(), String> {
    if !data.is_dir() {
        return Err(format!("--data {}: no such directory", shown_path(data)));
    }
    let context = context();
    let program = source::read_program(path, python)?;
    let module = source::load_shown(&context, &program.mlir, path, &program.shown)?;
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
        let dirs: Vec<Option<PathBuf>> = case_dirs(&dir).into_iter().map(Some).collect();
        let datasets = load_datasets(&program, path, &dirs, limit)?;
        let score = mutation::score(&program, &datasets).map_err(|e| {
            format!(
                "the original program fails on the data: {}",
                shown(&e.to_string())
            )
        })?;
        let _ = writeln!(
            out,
            "@{}: {} mutants, {} killed",
            shown(&program.name),
            score.mutants,
            score.killed
        );
        for (class, (k, n)) in &score.per_class {
            let _ = writeln!(out, "  {class:<24} {k}/{n}");
        }
        let _ = writeln!(out, "mutation score: {:.1}%", score.percent());
        for m in &score.survivors {
            let _ = writeln!(
                out,
                "survived: {} ({}) at {}",
                shown(&m.description),
                m.class,
                shown(&m.loc)
            );
        }
    }
    Ok(())
}

fn run_command(
    path: &str,
    python: &coco_pyspark::Options,
    data: Option<&Path>,
    json: bool,
    limit: &mut DataLimit,
    out: &mut String,
) -> Result<(), String> {
    let context = context();
    let program = source::read_program(path, python)?;
    let module = source::load_shown(&context, &program.mlir, path, &program.shown)?;
    let module_ref = module.as_operation();
    let module_op = as_op(&module_ref);
    // Each case folder is a job of its own, as on Spark.
    let dirs: Vec<Option<PathBuf>> = match data {
        Some(dir) => case_dirs(dir).into_iter().map(Some).collect(),
        None => vec![None],
    };
    let mut failed_jobs = Vec::new();
    let mut jobs = Vec::new();
    for func in extract::program_functions(module_op) {
        let program = extract::extract(module_op, as_op(&func))
            .map_err(|e| format!("{path}: {}", e.message))?;
        for dir in &dirs {
            let inputs = load_inputs_within(&program, &base_dir(path), dir.as_deref(), limit)?;
            let run = interp::run(&program, &inputs).map_err(|e| shown(&e.to_string()))?;
            if json {
                jobs.push(job_json(&program, dir.as_deref(), &run));
            }
            let job = match (dirs.len(), dir) {
                (1, _) | (_, None) => format!("@{}", shown(&program.name)),
                (_, Some(dir)) => format!("@{} on {}", shown(&program.name), shown_path(dir)),
            };
            if dirs.len() > 1 && !json {
                let _ = writeln!(out, "{job}:");
            }
            // A failed Spark job writes no output.
            if run.failures.is_empty() && !json {
                for (name, lines) in run.sink_lines() {
                    let _ = writeln!(out, "sink \"{}\" ({} records):", shown(&name), lines.len());
                    for line in lines {
                        let _ = writeln!(out, "  {}", shown(&line));
                    }
                }
            } else if !run.failures.is_empty() {
                let mut message = format!(
                    "{job}: {} failures (Spark would abort the job):",
                    run.failures.len()
                );
                for f in run.failures.iter().take(SHOWN_FAILURES) {
                    let origins: Vec<String> = f
                        .origins
                        .iter()
                        .map(|o| format!("{} record {}", shown(&o.source), o.index))
                        .collect();
                    let _ = write!(
                        message,
                        "\n  {}: {}: {}",
                        shown(&f.loc),
                        shown(&f.op),
                        shown(&f.reason)
                    );
                    // An operator's own failure (a reduce of nothing) has no
                    // record to blame.
                    if !origins.is_empty() {
                        let _ = write!(message, " ({})", origins.join(", "));
                    }
                }
                if run.failures.len() > SHOWN_FAILURES {
                    let _ = write!(
                        message,
                        "\n  ... and {} more",
                        run.failures.len() - SHOWN_FAILURES
                    );
                }
                failed_jobs.push(message);
            }
        }
    }
    if json {
        let _ = writeln!(out, "{}", serde_json::json!({ "jobs": jobs }));
    }
    if failed_jobs.is_empty() {
        Ok(())
    } else {
        Err(failed_jobs.join("\n"))
    }
}

/// One job's outcome for `run --json`.
fn job_json(program: &Program, dir: Option<&Path>, run: &interp::Run) -> serde_json::Value {
    let failed = !run.failures.is_empty();
    let sinks: serde_json::Map<String, serde_json::Value> = if failed {
        serde_json::Map::new()
    } else {
        run.sink_lines()
            .into_iter()
            .map(|(name, lines)| (name, lines.into()))
            .collect()
    };
    let failures: Vec<String> = run
        .failures
        .iter()
        .map(|f| format!("{}: {}: {}", f.loc, f.op, f.reason))
        .collect();
    serde_json::json!({
        "program": program.name,
        "data": dir.map(|d| d.display().to_string()),
        "outcome": if failed { "failed" } else { "succeeded" },
        "sinks": sinks,
        "failures": failures,
    })
}
