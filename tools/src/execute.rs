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
    ffi::OsString,
    fmt::Write as _,
    path::{Path, PathBuf},
};

use coco_dialects::context;
use coco_interp::{input_specs, npy, seeded_inputs, HostValue, Spec};
use coco_lowering::{
    compile, write_bundle, CudaToolkit, FusedCollectives, Options, ReductionOrder, PROGRAM_FILE,
};
use coco_runtime::{
    job::{self, TempDir},
    launch, watchdog, Reductions,
};

use crate::{check, source};

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

pub fn run(request: &Request, out: &mut String) -> Result<(), String> {
    job::guard(PROGRAM);
    watchdog::configure(request.watchdog_s)?;
    let context = context();
    let program_path = Path::new(request.program);
    let bundle_scratch;
    // The bundle, its plan, and the coco program it came from.
    let (bundle, plan, text, text_name) = if program_path.is_dir() {
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
            program_path.to_path_buf(),
            plan,
            text,
            program_file.display().to_string(),
        )
    } else {
        let text = source::read_input(request.program, None)?;
        bundle_scratch = scratch("bundle")?;
        let module = source::load(&context, &text, request.program)?;
        let options = Options {
            ranks: request.ranks,
            entry: request.entry.map(str::to_string),
            ptx: request.cuda,
            // Both backends run peer launches (the cuda one through CUDA
            // IPC, on one node).
            fused_collectives: request.fused_collectives.unwrap_or_default(),
            cpu_reductions: request.cpu_reductions,
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
            compile(&context, &module, &source_name, &options).map_err(|e| e.to_string())?;
        write_bundle(&compiled, bundle_scratch.path()).map_err(|e| e.to_string())?;
        (
            bundle_scratch.path().to_path_buf(),
            compiled.plan,
            Some(text),
            request.program.to_string(),
        )
    };

    // Before inputs of the same size are made: a rank could not hold them.
    coco_runtime::limits::check_plan(&plan).map_err(|e| e.to_string())?;

    // The program, for input specs and the reference run.
    let module = match &text {
        Some(text) => Some(source::load(&context, text, &text_name)?),
        None => None,
    };
    let specs = match &module {
        Some(module) => {
            Some(input_specs(&module.as_operation(), request.entry).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    // Before the job runs: a --check the interpreter cannot finish is
    // refused now, not after the compiled run.
    if let (true, Some(module)) = (request.check, &module) {
        coco_interp::check_program(
            &module.as_operation(),
            request.entry,
            request.ranks,
            request.interp_limits,
        )
        .map_err(|e| format!("--check: {e}"))?;
    }

    let inputs_scratch;
    let mut host_inputs: Option<HashMap<String, HostValue>> = None;
    let inputs: PathBuf = match request.inputs {
        Some(dir) => dir.to_path_buf(),
        None => {
            let specs = specs.as_ref().ok_or_else(|| {
                format!(
                    "{} has no {PROGRAM_FILE} to derive inputs from; pass --inputs DIR",
                    request.program
                )
            })?;
            let chosen = match (&module, &text) {
                (Some(module), Some(text)) => crate::run::chosen_inputs(
                    &module.as_operation(),
                    request.entry,
                    text,
                    specs,
                    request.input_choices,
                )?,
                _ => Default::default(),
            };
            let values = seeded_inputs(specs, request.ranks, request.seed, &chosen);
            let dir = match request.save_inputs {
                Some(dir) => dir.to_path_buf(),
                None => {
                    inputs_scratch = scratch("inputs")?;
                    inputs_scratch.path().to_path_buf()
                }
            };
            crate::run::save_inputs(&dir, &values)?;
            host_inputs = Some(values);
            dir
        }
    };
    launch::check_inputs(&plan, &inputs).map_err(|e| e.to_string())?;
    if program_path.is_dir() {
        // A bundle someone gave: its kernels must be the plan's (one
        // compiled here just now has its digests in the plan on disk).
        launch::check_kernels(&bundle, &plan, request.cuda).map_err(|e| e.to_string())?;
    }
    let outputs_scratch;
    let outputs: PathBuf = match request.outputs {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            dir.to_path_buf()
        }
        None => {
            outputs_scratch = scratch("outputs")?;
            outputs_scratch.path().to_path_buf()
        }
    };

    let reductions = if request.exact_reductions {
        Reductions::Exact
    } else {
        Reductions::Native
    };
    if launch::under_mpi() {
        // One rank of the user's own job: run it here; rank 0 reports.
        let options = coco_runtime::Options {
            ranks: Some(request.ranks),
            reductions,
            timing: request.timing,
            repeat: request.repeat,
            backend: if request.cuda {
                coco_runtime::BackendKind::Cuda
            } else {
                coco_runtime::BackendKind::Cpu
            },
            ranks_per_node: request.ranks_per_node,
        };
        let report = coco_runtime::run_rank("coco-run", &bundle, &inputs, Some(&outputs), &options);
        if report.rank != 0 {
            return Ok(());
        }
    } else {
        let mut args: Vec<OsString> = vec![
            bundle.clone().into(),
            "--inputs".into(),
            inputs.clone().into(),
            "--outputs".into(),
            outputs.clone().into(),
        ];
        if request.exact_reductions {
            args.push("--exact-reductions".into());
        }
        if request.timing {
            args.push("--timing".into());
        }
        if request.cuda {
            args.push("--backend".into());
            args.push("cuda".into());
        }
        if let Some(n) = request.ranks_per_node {
            args.push("--ranks-per-node".into());
            args.push(n.to_string().into());
        }
        if request.repeat > 1 {
            args.push("--repeat".into());
            args.push(request.repeat.to_string().into());
        }
        args.push("--watchdog-s".into());
        args.push(watchdog::limit_s().to_string().into());
        let exec = coco_exec()?;
        let mut command = launch::mpirun(request.ranks, &exec, &args).map_err(|e| e.to_string())?;
        // Open MPI's session folder and shared-memory files, in folders
        // this process owns: gone with the job however it ends.
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
            // Ranks report concurrently: order their lines for a stable message.
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
            // Timing summaries and warnings from the ranks.
            out.push_str(&stderr);
        }
    }

    // Outputs as the user sees them, and the check against the reference.
    let module = match (&module, request.check) {
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
        let value = read_value(&path, spec, request.ranks)?;
        let _ = writeln!(out, "{}: {}", spec.name, crate::run::summary(&value));
        results.push((spec.clone(), value));
    }
    if request.check {
        let host_inputs = match host_inputs {
            Some(values) => values,
            None => crate::run::read_inputs(
                &inputs,
                specs.as_deref().unwrap_or_default(),
                request.ranks,
            )?,
        };
        let reference = coco_interp::run(
            &module.as_operation(),
            request.ranks,
            request.entry,
            &host_inputs,
            request.interp_limits,
        )
        .map_err(|e| format!("the reference interpreter failed: {e}"))?;
        let report = check::compare(&reference, &results)?;
        out.push_str(&report.text);
        if !report.passed {
            return Err("outputs differ from the reference interpreter beyond tolerance".into());
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

/// An output file as a host value (local outputs are stacked per rank).
fn read_value(path: &Path, spec: &Spec, ranks: usize) -> Result<HostValue, String> {
    let tensor = npy::read(path, spec.dtype).map_err(|e| format!("output '{}': {e}", spec.name))?;
    if spec.layout == Some(coco_dialects::coco::Layout::Local) {
        let part = spec.global_shape.iter().product::<usize>().max(1);
        if tensor.len() != part * ranks {
            return Err(format!(
                "output '{}': {} holds {} elements, expected {ranks} x {part}",
                spec.name,
                path.display(),
                tensor.len()
            ));
        }
        Ok(HostValue::PerRank(tensor.split_into(&spec.global_shape)))
    } else {
        Ok(HostValue::Global(tensor))
    }
}
