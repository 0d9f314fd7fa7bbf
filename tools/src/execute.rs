//! `coco-run --backend cpu|cuda`: compile the program into a bundle (or take
//! a bundle), run it with the bundle executor on N MPI ranks, and with
//! `--check` compare every output with the reference interpreter.
//!
//! Outside an MPI job, coco-run starts `mpirun -n N coco-exec ...` itself
//! (as torchrun does for PyTorch) and waits for it; inside one (`mpirun -n N
//! coco-run ...`, `srun`), every process runs its own rank in-process.
//!
//! coco-run owns what it starts (`coco_runtime::job`): its scratch folders
//! (the bundle, seeded inputs, outputs) are `job::TempDir`s, and mpirun is
//! started with `job::spawn`, so that a signal at any point, compiling
//! included, ends the job and removes them.

use std::{
    collections::HashMap,
    fmt::Write as _,
    path::{Path, PathBuf},
};

use coco_dialects::context;
use coco_interp::{input_specs, seeded_inputs, HostValue, Spec};
use coco_lowering::{
    compile, gemm, write_bundle, CudaToolkit, FusedCollectives, Options, ReductionOrder,
    PROGRAM_FILE,
};
use coco_runtime::{
    job::{self, TempDir},
    launch, watchdog, BackendKind, Invocation, Reductions,
};
use melior::{ir::Module, Context};

use crate::{check, source, values};

/// What `coco-run` asked for, for a compiled run.
pub struct Request<'a> {
    pub program: &'a str,
    pub ranks: usize,
    pub entry: Option<&'a str>,
    pub inputs: Option<&'a Path>,
    pub save_inputs: Option<&'a Path>,
    pub outputs: Option<&'a Path>,
    pub seed: u64,
    /// `--input NAME=VALUE` choices for the seeded inputs.
    pub input_choices: &'a [(String, coco_interp::Distribution)],
    pub check: bool,
    pub exact_reductions: bool,
    pub timing: bool,
    pub repeat: usize,
    /// `--watchdog-s`, passed on to the ranks.
    pub watchdog_s: Option<u64>,
    /// `--ranks-per-node`, passed on to the ranks.
    pub ranks_per_node: Option<usize>,
    /// `--fused-collectives` (default: peer launches, on either backend).
    pub fused_collectives: Option<FusedCollectives>,
    /// PTX kernels and NCCL instead of native kernels and MPI collectives.
    pub cuda: bool,
    /// `--cuda-path`: where libdevice comes from for the cuda backend.
    pub cuda_path: Option<&'a Path>,
    /// `--cpu-reductions`: the native kernels' reduction order.
    pub cpu_reductions: ReductionOrder,
    /// `--gemm` and `--gemm-arithmetic`: how the native kernels compute
    /// float matmuls.
    pub gemm: gemm::Route,
    pub gemm_arithmetic: gemm::Arithmetic,
    /// `--gemm-tiles`: a measured tile table (`coco-translate --tune-gemms`).
    pub gemm_tiles: Option<&'a Path>,
    /// What the reference interpreter of `--check` may spend.
    pub interp_limits: &'a coco_interp::Limits,
}

const PROGRAM: &str = "coco-run";

/// A scratch folder, `$TMPDIR/coco-run-PID-TOKEN-N-WHAT` (`job::TempDir`).
fn scratch(what: &str) -> Result<TempDir, String> {
    TempDir::new(PROGRAM, what).map_err(|e| {
        format!(
            "cannot create a folder under {}: {e}",
            std::env::temp_dir().display()
        )
    })
}

/// The bundle executor binary: `$COCO_EXEC`, next to this program (or one
/// level up, for test binaries in `target/*/deps`), or on `PATH`.
fn coco_exec() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("COCO_EXEC") {
        return Ok(PathBuf::from(path));
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1).take(2) {
            let candidate = dir.join("coco-exec");
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    if let Some(paths) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&paths) {
            let candidate = dir.join("coco-exec");
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err("cannot find coco-exec, the bundle executor (build it with `cargo build -p coco-runtime`, or set COCO_EXEC)".into())
}

/// A compiled run, step by step: [`prepare_bundle`], [`load_program`],
/// [`prepare_inputs`], [`check_before_launch`], [`prepare_outputs`],
/// [`run_ranks`], [`report_results`]. Each step refuses what it can before
/// the next one makes anything: the plan's memory before inputs of its
/// size are seeded, `--check`'s limits and the input files before the job
/// starts. What the steps create lives until `run` returns: its scratch
/// folders are removed then (or when a signal ends the job).
pub fn run(request: &Request, out: &mut String) -> Result<(), String> {
    job::guard(PROGRAM);
    watchdog::configure(request.watchdog_s)?;
    let context = context();
    let (bundle, source) = prepare_bundle(request, &context)?;
    let program = load_program(request, &context, source)?;
    let inputs = prepare_inputs(request, &program)?;
    check_before_launch(request, &bundle, &inputs.folder.path)?;
    let outputs = prepare_outputs(request)?;
    let invocation = invocation(request, &bundle, &inputs.folder.path, &outputs.path);
    if !run_ranks(request, &invocation, out)? {
        // Another rank of the user's MPI job: rank 0 reports.
        return Ok(());
    }
    report_results(request, &program, &inputs, &outputs.path, out)
}

/// A folder the run uses: the user's, or a scratch folder that is removed
/// when this is dropped.
struct Folder {
    path: PathBuf,
    _scratch: Option<TempDir>,
}

impl Folder {
    /// The user's folder, kept.
    fn given(path: &Path) -> Folder {
        Folder {
            path: path.to_path_buf(),
            _scratch: None,
        }
    }

    /// A new scratch folder (see [`scratch`]).
    fn scratch(what: &str) -> Result<Folder, String> {
        let dir = scratch(what)?;
        Ok(Folder {
            path: dir.path().to_path_buf(),
            _scratch: Some(dir),
        })
    }
}

/// The bundle to run.
struct Bundle {
    folder: Folder,
    plan: coco_bundle::Plan,
    /// Given by the user rather than compiled here: its kernels are
    /// checked against the plan before the launch.
    given: bool,
}

/// The coco program a bundle came from, as text (`None`: a given bundle
/// without its `program.mlir`), and its name in diagnostics.
struct Source {
    text: Option<String>,
    name: String,
}

/// Step 1, the bundle: a given bundle folder must have been compiled for
/// `--ranks`; a program is compiled into a scratch folder with the
/// request's backend options. Either way its plan is checked against the
/// memory limit here, before inputs of the same size are made: a rank
/// could not hold them.
fn prepare_bundle(request: &Request, context: &Context) -> Result<(Bundle, Source), String> {
    let program_path = Path::new(request.program);
    let (bundle, source) = if program_path.is_dir() {
        let plan = coco_bundle::Plan::load(program_path).map_err(|e| e.to_string())?;
        if plan.ranks != request.ranks {
            return Err(format!(
                "{} was compiled for {} ranks, not {} (recompile with coco-translate --ranks {})",
                request.program, plan.ranks, request.ranks, request.ranks
            ));
        }
        let program_file = program_path.join(PROGRAM_FILE);
        let text = std::fs::read_to_string(&program_file).ok();
        (
            Bundle {
                folder: Folder::given(program_path),
                plan,
                given: true,
            },
            Source {
                text,
                name: program_file.display().to_string(),
            },
        )
    } else {
        let text = source::read_input(request.program, None)?;
        let folder = Folder::scratch("bundle")?;
        let module = source::load(context, &text, request.program)?;
        let options = Options {
            ranks: request.ranks,
            entry: request.entry.map(str::to_string),
            ptx: request.cuda,
            // Both backends run peer launches (the cuda one through CUDA
            // IPC, on one node).
            fused_collectives: request.fused_collectives.unwrap_or_default(),
            cpu_reductions: request.cpu_reductions,
            gemm: request.gemm,
            gemm_arithmetic: request.gemm_arithmetic,
            gemm_tiles: match request.gemm_tiles {
                Some(path) => {
                    gemm::tuned::TileTable::load(path).map_err(|e| format!("--gemm-tiles: {e}"))?
                }
                None => Default::default(),
            },
            cuda_toolkit: if request.cuda {
                CudaToolkit::find(request.cuda_path).map_err(|e| e.to_string())?
            } else {
                None
            },
            ..Options::default()
        };
        let source_name = program_path
            .file_name()
            .map_or("stdin".into(), |n| n.to_string_lossy().into_owned());
        let compiled =
            compile(context, &module, &source_name, &options).map_err(|e| e.to_string())?;
        write_bundle(&compiled, &folder.path).map_err(|e| e.to_string())?;
        (
            Bundle {
                folder,
                plan: compiled.plan,
                given: false,
            },
            Source {
                text: Some(text),
                name: request.program.to_string(),
            },
        )
    };
    coco_runtime::limits::check_plan(&bundle.plan).map_err(|e| e.to_string())?;
    Ok((bundle, source))
}

/// The coco program, parsed, with its inputs: for seeded inputs, the
/// outputs' names and the reference run. All `None` for a given bundle
/// without its program.
struct Program<'c> {
    text: Option<String>,
    module: Option<Module<'c>>,
    specs: Option<Vec<Spec>>,
}

/// Step 2, the program: parsed again from its text (the bundle's
/// `program.mlir` for a given bundle) for its input specs, and, with
/// `--check`, checked against the reference interpreter's limits now,
/// before the job runs: a check the interpreter cannot finish is refused
/// before the compiled run, not after it.
fn load_program<'c>(
    request: &Request,
    context: &'c Context,
    source: Source,
) -> Result<Program<'c>, String> {
    let module = match &source.text {
        Some(text) => Some(source::load(context, text, &source.name)?),
        None => None,
    };
    let specs = match &module {
        Some(module) => {
            Some(input_specs(&module.as_operation(), request.entry).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    if let (true, Some(module)) = (request.check, &module) {
        coco_interp::check_program(
            &module.as_operation(),
            request.entry,
            request.ranks,
            request.interp_limits,
        )
        .map_err(|e| format!("--check: {e}"))?;
    }
    Ok(Program {
        text: source.text,
        module,
        specs,
    })
}

/// The input files of the job.
struct Inputs {
    folder: Folder,
    /// The seeded values, when they were made here (`--check` reads the
    /// files of `--inputs` back instead).
    values: Option<HashMap<String, HostValue>>,
}

/// Step 3, the inputs: `--inputs DIR` as given, or seeded values (with the
/// `--input NAME=VALUE` choices) written as `.npy` files to `--save-inputs
/// DIR` or a scratch folder, since the ranks read their inputs from files.
/// Seeding needs the program's input specs: a given bundle without its
/// program needs `--inputs`.
fn prepare_inputs(request: &Request, program: &Program) -> Result<Inputs, String> {
    if let Some(dir) = request.inputs {
        return Ok(Inputs {
            folder: Folder::given(dir),
            values: None,
        });
    }
    let specs = program.specs.as_ref().ok_or_else(|| {
        format!(
            "{} has no {PROGRAM_FILE} to derive inputs from; pass --inputs DIR",
            request.program
        )
    })?;
    let chosen = match (&program.module, &program.text) {
        (Some(module), Some(text)) => values::chosen_inputs(
            &module.as_operation(),
            request.entry,
            text,
            specs,
            request.input_choices,
        )?,
        _ => Default::default(),
    };
    let seeded = seeded_inputs(specs, request.ranks, request.seed, &chosen);
    let folder = match request.save_inputs {
        Some(dir) => Folder::given(dir),
        None => Folder::scratch("inputs")?,
    };
    values::save_inputs(&folder.path, &seeded)?;
    Ok(Inputs {
        folder,
        values: Some(seeded),
    })
}

/// Step 4, the checks before a launch, here in one process rather than
/// failing in every rank: every input file the plan reads is there, and
/// a given bundle's kernels are the plan's (one compiled here just now has
/// its digests in the plan on disk).
fn check_before_launch(request: &Request, bundle: &Bundle, inputs: &Path) -> Result<(), String> {
    launch::check_inputs(&bundle.plan, inputs).map_err(|e| e.to_string())?;
    if bundle.given {
        launch::check_kernels(&bundle.folder.path, &bundle.plan, request.cuda)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Step 5, the folder the ranks write their outputs to: `--outputs DIR`
/// (created if needed, and kept), or a scratch folder, since the outputs
/// come back as files either way.
fn prepare_outputs(request: &Request) -> Result<Folder, String> {
    match request.outputs {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            Ok(Folder::given(dir))
        }
        None => Folder::scratch("outputs"),
    }
}

/// What every rank runs, as one [`Invocation`]: this process runs it as
/// is under the user's MPI job, and coco-exec's ranks parse it back from
/// the command line [`Invocation::to_args`] writes, so the two ways to run
/// cannot differ. The watchdog's limit is the one this process configured
/// (`--watchdog-s` over the environment), passed on explicitly.
fn invocation(request: &Request, bundle: &Bundle, inputs: &Path, outputs: &Path) -> Invocation {
    Invocation {
        bundle: bundle.folder.path.clone(),
        inputs: inputs.to_path_buf(),
        outputs: Some(outputs.to_path_buf()),
        watchdog_s: Some(watchdog::limit_s()),
        // The ranks are started by mpirun, not launched by coco-exec: the
        // world size was checked against the limit by coco-run.
        max_ranks: None,
        options: coco_runtime::Options {
            ranks: Some(request.ranks),
            reductions: if request.exact_reductions {
                Reductions::Exact
            } else {
                Reductions::Native
            },
            timing: request.timing,
            repeat: request.repeat,
            backend: if request.cuda {
                BackendKind::Cuda
            } else {
                BackendKind::Cpu
            },
            ranks_per_node: request.ranks_per_node,
        },
    }
}

/// Step 6, the run. Inside the user's MPI job (`mpirun -n N coco-run`,
/// `srun`) this process runs its own rank; outside one, coco-run starts
/// `mpirun -n N coco-exec` ([`run_job`]) and waits, as torchrun does.
/// Whether this process reports the results: the launcher does, and of
/// the user's job only rank 0, so that they are printed once.
fn run_ranks(request: &Request, invocation: &Invocation, out: &mut String) -> Result<bool, String> {
    if launch::under_mpi() {
        let report = invocation.run_rank(PROGRAM);
        Ok(report.rank == 0)
    } else {
        run_job(request, invocation, out)?;
        Ok(true)
    }
}

/// `mpirun -n N coco-exec ...`, started and owned by this process
/// (`job::spawn`: a signal ends it), with Open MPI's session folder and
/// shared-memory files in folders this process owns, so that they are
/// gone with the job however it ends. The ranks' stdout, and their stderr
/// (timing summaries, warnings), go to `out`; a failed job is an error
/// with the ranks' error lines, sorted (ranks report concurrently) for a
/// stable message.
fn run_job(request: &Request, invocation: &Invocation, out: &mut String) -> Result<(), String> {
    let exec = coco_exec()?;
    let mut command =
        launch::mpirun(request.ranks, &exec, &invocation.to_args()).map_err(|e| e.to_string())?;
    let _mpi_folders = launch::mpi_folders(PROGRAM, &mut command).map_err(|e| e.to_string())?;
    command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let output = job::spawn(&mut command)
        .and_then(job::wait_with_output)
        .map_err(|e| format!("cannot start mpirun: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        let (code, why) = launch::exit_code(output.status);
        let mut lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        lines.sort_unstable();
        lines.dedup();
        let detail = lines.join("\n");
        return Err(format!(
            "the {}-rank job failed (exit status {code}){}{}",
            request.ranks,
            why.map(|w| format!(": {w}")).unwrap_or_default(),
            if detail.is_empty() {
                String::new()
            } else {
                format!("\n{detail}")
            }
        ));
    }
    out.push_str(&String::from_utf8_lossy(&output.stdout));
    if !stderr.trim().is_empty() {
        out.push_str(&stderr);
    }
    Ok(())
}

/// Whether the run compiled `module` with fused GEMMs: float matmuls
/// (CPU or GPU) under `--gemm-arithmetic fused`, or calling OpenBLAS under
/// `--gemm library` on the CPU (a given bundle records neither, so only a
/// program compiled here says).
fn fused_gemms(request: &Request, module: &melior::ir::Module) -> bool {
    !Path::new(request.program).is_dir()
        && request.gemm != gemm::Route::Loops
        && ((request.gemm == gemm::Route::Library && !request.cuda)
            || request.gemm_arithmetic == gemm::Arithmetic::Fused)
        && coco_dialects::ir::nested_ops(&module.as_operation())
            .iter()
            .any(|op| {
                coco_dialects::ir::op_name(coco_dialects::ir::as_op(op))
                    == coco_dialects::coco::ops::MATMUL
            })
}

/// Step 7, the outputs as the user sees them: a summary line per output
/// (which needs the program for the outputs' names and types; without it,
/// only where they are), and with `--check` the comparison with the
/// reference interpreter run on the same inputs, which fails the run
/// beyond tolerance.
fn report_results(
    request: &Request,
    program: &Program,
    inputs: &Inputs,
    outputs: &Path,
    out: &mut String,
) -> Result<(), String> {
    let module = match (&program.module, request.check) {
        (Some(module), _) => module,
        (None, false) => {
            let _ = writeln!(out, "outputs written to {}", outputs.display());
            return Ok(());
        }
        (None, true) => {
            return Err(format!(
                "{} has no {PROGRAM_FILE}; --check needs the program",
                request.program
            ))
        }
    };
    let output_specs = coco_interp::output_specs(&module.as_operation(), request.entry)
        .map_err(|e| e.to_string())?;
    let mut results = Vec::new();
    for spec in &output_specs {
        let path = outputs.join(format!("{}.npy", spec.name));
        let value = values::read_output(&path, spec, request.ranks)?;
        let _ = writeln!(out, "{}: {}", spec.name, values::summary(&value));
        results.push((spec.clone(), value));
    }
    if request.check {
        let read;
        let host_inputs = match &inputs.values {
            Some(seeded) => seeded,
            None => {
                read = values::read_inputs(
                    &inputs.folder.path,
                    program.specs.as_deref().unwrap_or_default(),
                    request.ranks,
                )?;
                &read
            }
        };
        let reference = coco_interp::run(
            &module.as_operation(),
            request.ranks,
            request.entry,
            host_inputs,
            request.interp_limits,
        )
        .map_err(|e| format!("the reference interpreter failed: {e}"))?;
        let report = check::compare(&reference, &results)?;
        out.push_str(&report.text);
        if !report.passed {
            let mut message =
                String::from("outputs differ from the reference interpreter beyond tolerance");
            if fused_gemms(request, module) {
                message.push_str(
                    "\nnote: the program's GEMMs use fused multiply-adds, which round differently \
                     from the interpreter, and 16-bit intermediates can widen that (a bf16 rounding \
                     that flips before a softmax or a layer norm); --gemm generated \
                     --gemm-arithmetic ordered compares with the interpreter's rounding \
                     (docs/gemm.md)",
                );
            }
            return Err(message);
        }
    }
    if request.outputs.is_none() {
        let _ = writeln!(
            out,
            "(pass --outputs DIR to keep the outputs as .npy files)"
        );
    }
    Ok(())
}
