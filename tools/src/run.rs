//! `coco-run`: execute a coco program on N ranks.
//!
//! `--backend reference` runs the reference interpreter (N simulated ranks
//! in one process). Inputs come from `--inputs DIR/<name>.npy` (names as
//! `coco-run --list-inputs` prints them; a `#coco.local` input holds one
//! tensor per rank, shape `[ranks, ...]`) or are seeded random values;
//! outputs are printed as a summary and, with `--outputs DIR`, written as
//! `.npy`. The `cpu` and `cuda` backends run compiled bundles (see
//! `execute.rs`).
//!
//! The world size is checked against a limit before anything else
//! (`--max-ranks`, `COCO_MAX_RANKS`; see `coco_runtime::launch`): seeded
//! inputs are built per rank, and each rank is a process.

use std::{fmt::Write as _, path::PathBuf};

use clap::{Parser, ValueEnum};
use coco_dialects::context;
use coco_interp::{
    input_source_names, input_specs, seeded_inputs, Distribution, HostValue, Limits, Tensor,
    WorkLimit,
};

use crate::{
    execute, source,
    values::{chosen_inputs, describe, read_inputs, save_inputs, summary, write_value},
    Output,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Backend {
    Reference,
    Cpu,
    Cuda,
}

#[derive(Parser, Debug)]
#[command(
    name = "coco-run",
    version,
    about = "Execute a coco program on N ranks",
    long_about = "Execute a coco program on N ranks: in the reference interpreter, or compiled \
                  and run under mpirun by coco-exec.\n\n\
                  coco-run owns the job it starts: SIGTERM, SIGINT and SIGHUP end mpirun and \
                  the ranks and remove the temporary folders (coco-run-PID-TOKEN-* under \
                  $TMPDIR, with Open MPI's session folder, and under /dev/shm or \
                  $COCO_SHM_DIR, with Open MPI's shared-memory files); if coco-run is killed \
                  outright the ranks still end and its folders are removed after it. A rank \
                  that waits in one collective longer than --watchdog-s fails the job with an \
                  error naming the step."
)]
struct Cli {
    /// The program (.mlir).
    program: String,
    /// Where to run it.
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    /// World size (at most --max-ranks).
    #[arg(long, default_value_t = 1)]
    ranks: usize,
    /// The world-size limit [default: $COCO_MAX_RANKS, else 64 or 4 per
    /// core, whichever is more].
    #[arg(long, value_name = "N")]
    max_ranks: Option<usize>,
    /// The function to run when the program has several (pipeline programs
    /// run every stage function).
    #[arg(long)]
    entry: Option<String>,
    /// Directory with one `<input name>.npy` per input; without it inputs are
    /// seeded random values.
    #[arg(long, value_name = "DIR")]
    inputs: Option<PathBuf>,
    /// Write the seeded inputs to DIR as `<name>.npy` (to rerun with
    /// `--inputs DIR`, or feed another backend or machine).
    #[arg(long, value_name = "DIR")]
    save_inputs: Option<PathBuf>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// How one seeded input is drawn, instead of uniform in [0, 1):
    /// NAME=VALUE, NAME as --list-inputs prints it (adam.arg4), the argument
    /// alone (arg4) or its name in the source (lr); VALUE a number (every
    /// element), uniform(LOW,HIGH) or normal(MEAN,STD). Repeatable.
    #[arg(long = "input", value_name = "NAME=VALUE", value_parser = parse_input_choice,
          conflicts_with = "inputs")]
    input: Vec<(String, Distribution)>,
    /// Directory to write every output as `<output name>.npy`.
    #[arg(long, value_name = "DIR")]
    outputs: Option<PathBuf>,
    /// Print the program's inputs (name, element type, global shape, layout) and exit.
    #[arg(long)]
    list_inputs: bool,
    /// Print every output element (for small tensors; local values rank by rank).
    #[arg(long)]
    print_values: bool,
    /// cpu/cuda: compare every output with the reference interpreter and
    /// report the largest error per tensor (exit 1 beyond tolerance).
    #[arg(long)]
    check: bool,
    /// cpu/cuda: reduce floats in rank order (bitwise equal to the
    /// interpreter) instead of with MPI's native reductions.
    #[arg(long)]
    exact_reductions: bool,
    /// cpu/cuda: print the time per kind of step.
    #[arg(long)]
    timing: bool,
    /// cpu/cuda: run the program's steps N times (for timing; updated state
    /// carries over, so outputs are those after N steps).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..))]
    repeat: u64,
    /// The most element operations the reference interpreter may spend (the
    /// reference backend, and --check), estimated from the program's types
    /// before it runs [default: $COCO_MAX_INTERP_WORK, else 5e10, about six
    /// minutes on one core].
    #[arg(long, value_name = "N")]
    max_interp_work: Option<u64>,
    /// cpu/cuda: fail the job when a rank waits in one collective longer
    /// than this (a stopped or hung rank); 0: no limit [default:
    /// $COCO_WATCHDOG_S, else 300].
    #[arg(long, value_name = "SECONDS")]
    watchdog_s: Option<u64>,
    /// cpu: fused collectives (peer launches) treat every N consecutive
    /// ranks as one node, shared memory inside and MPI between (tests the
    /// multi-node path on one machine) [default: the real nodes].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    ranks_per_node: Option<u64>,
    /// cpu/cuda: how coco.fused_collective regions run, as
    /// coco-translate's flag: `peer` (one kernel over the peers' memory:
    /// a shared-memory window on cpu, CUDA IPC on cuda, which needs the
    /// ranks on one node) or `steps` (collectives around kernels)
    /// [default: peer].
    #[arg(long, value_enum)]
    fused_collectives: Option<crate::translate::FusedCollectivesArg>,
    /// cuda: the CUDA toolkit (or the nvidia-cuda-nvcc-cu12 wheel's
    /// nvidia/cuda_nvcc folder) whose libdevice the kernels link, as
    /// coco-translate's flag [default: $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH].
    #[arg(long, value_name = "DIR")]
    cuda_path: Option<std::path::PathBuf>,
    /// cpu: the order of the kernels' whole-tensor and row reductions, as
    /// coco-translate's flag: `interpreter` (the reference interpreter's),
    /// `index-order` (sequential sums, a baseline) or `tree` (the GPU's)
    /// [default: interpreter].
    #[arg(long, value_enum)]
    cpu_reductions: Option<crate::translate::ReductionOrderArg>,
    /// How the kernels compute float matmuls, as coco-translate's flag:
    /// `generated`, `loops`, `library` (cpu: OpenBLAS for f32 and f64) or
    /// `gpu-tiles` (cpu: the GPU's tiled kernels as loops) [default:
    /// generated].
    #[arg(long, value_enum)]
    gemm: Option<crate::translate::GemmArg>,
    /// How generated GEMMs accumulate, as coco-translate's flag:
    /// `fused` or `ordered` (bitwise the interpreter's) [default: fused].
    #[arg(long, value_enum)]
    gemm_arithmetic: Option<crate::translate::GemmArithmeticArg>,
    /// cpu: cache blockings measured by `coco-translate --tune-gemms FILE`,
    /// for GEMMs without a coco.tile.
    #[arg(long, value_name = "FILE")]
    gemm_tiles: Option<std::path::PathBuf>,
}

pub fn run(args: &[String]) -> Output {
    let mut output = Output::default();
    let cli: Cli = match crate::parse_args(args) {
        Ok(cli) => cli,
        Err(output) => return output,
    };
    let mut out = String::new();
    match run_cli(&cli, &mut out) {
        Ok(()) => output.stdout = out.into_bytes(),
        Err(message) => {
            output.stdout = out.into_bytes();
            output.stderr = format!("coco-run: error: {message}\n").into_bytes();
            output.code = 1;
        }
    }
    output
}

/// One `--input NAME=VALUE`.
fn parse_input_choice(text: &str) -> Result<(String, Distribution), String> {
    let (name, value) = text
        .split_once('=')
        .filter(|(name, _)| !name.trim().is_empty())
        .ok_or_else(|| format!("expected NAME=VALUE, found '{text}'"))?;
    Ok((name.trim().to_string(), value.parse()?))
}

/// The interpreter's limits: `--max-interp-work` over the environment.
fn interp_limits(cli: &Cli) -> Result<Limits, String> {
    let mut limits = Limits::from_env().map_err(|e| e.to_string())?;
    if let Some(operations) = cli.max_interp_work {
        limits.work = WorkLimit {
            operations,
            source: format!("--max-interp-work {operations}"),
        };
    }
    Ok(limits)
}

fn run_cli(cli: &Cli, out: &mut String) -> Result<(), String> {
    coco_runtime::launch::check_world_size(
        &format!("--ranks {}", cli.ranks),
        cli.ranks,
        cli.max_ranks,
    )
    .map_err(|e| e.to_string())?;
    let limits = interp_limits(cli)?;
    match cli.backend {
        Backend::Reference => {
            if cli.check || cli.exact_reductions || cli.timing || cli.repeat > 1 {
                return Err(
                    "--check, --exact-reductions, --timing and --repeat apply to the cpu and \
                     cuda backends"
                        .into(),
                );
            }
        }
        Backend::Cpu | Backend::Cuda if cli.list_inputs => {}
        Backend::Cpu | Backend::Cuda => {
            if cli.backend == Backend::Cuda {
                coco_runtime::cuda::available()?;
            }
            if cli.print_values {
                return Err("--print-values applies to the reference backend".into());
            }
            if cli.check && cli.repeat > 1 {
                return Err("--check compares one step with the interpreter; drop --repeat".into());
            }
            let request = execute::Request {
                program: &cli.program,
                ranks: cli.ranks,
                entry: cli.entry.as_deref(),
                inputs: cli.inputs.as_deref(),
                save_inputs: cli.save_inputs.as_deref(),
                outputs: cli.outputs.as_deref(),
                seed: cli.seed,
                input_choices: &cli.input,
                check: cli.check,
                exact_reductions: cli.exact_reductions,
                timing: cli.timing,
                repeat: usize::try_from(cli.repeat).unwrap_or(usize::MAX),
                watchdog_s: cli.watchdog_s,
                ranks_per_node: cli.ranks_per_node.map(|n| n as usize),
                fused_collectives: cli.fused_collectives.map(Into::into),
                cuda: cli.backend == Backend::Cuda,
                cuda_path: cli.cuda_path.as_deref(),
                cpu_reductions: cli.cpu_reductions.map(Into::into).unwrap_or_default(),
                gemm: cli.gemm.map(Into::into).unwrap_or_default(),
                gemm_arithmetic: cli.gemm_arithmetic.map(Into::into).unwrap_or_default(),
                gemm_tiles: cli.gemm_tiles.as_deref(),
                interp_limits: &limits,
            };
            return execute::run(&request, out);
        }
    }
    let text = source::read_input(&cli.program, None)?;
    let context = context();
    let module = source::load(&context, &text, &cli.program)?;
    let module_op = module.as_operation();
    let specs = input_specs(&module_op, cli.entry.as_deref()).map_err(|e| e.to_string())?;
    if cli.list_inputs {
        let names = input_source_names(&module_op, cli.entry.as_deref(), &text)
            .map_err(|e| e.to_string())?;
        for spec in &specs {
            let source = names
                .get(&spec.name)
                .map_or(String::new(), |n| format!(" (%{n})"));
            let drawn = spec.drawn.map_or(String::new(), |d| format!(", drawn {d}"));
            let _ = writeln!(out, "{}{source}: {}{drawn}", spec.name, describe(spec));
        }
        return Ok(());
    }
    let chosen = chosen_inputs(&module_op, cli.entry.as_deref(), &text, &specs, &cli.input)?;
    coco_interp::check_program(&module_op, cli.entry.as_deref(), cli.ranks, &limits)
        .map_err(|e| e.to_string())?;
    let inputs = match &cli.inputs {
        None => seeded_inputs(&specs, cli.ranks, cli.seed, &chosen),
        Some(dir) => read_inputs(dir, &specs, cli.ranks)?,
    };
    if let Some(dir) = &cli.save_inputs {
        save_inputs(dir, &inputs)?;
    }
    let outputs = coco_interp::run(
        &module_op,
        cli.ranks,
        cli.entry.as_deref(),
        &inputs,
        &limits,
    )
    .map_err(|e| e.to_string())?;
    for (spec, value) in &outputs {
        let _ = writeln!(out, "{}: {} {}", spec.name, describe(spec), summary(value));
        if cli.print_values {
            let _ = write!(out, "{}", values_text(value));
        }
        if let Some(dir) = &cli.outputs {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            write_value(&dir.join(format!("{}.npy", spec.name)), value)?;
        }
    }
    Ok(())
}

/// `  [1, 2, 3]` (global) or `  rank 0: [1, 2]` lines (local), row-major.
fn values_text(value: &HostValue) -> String {
    let join = |t: &Tensor| {
        t.scalars()
            .map(|v| format!("{v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match value {
        HostValue::Global(t) => format!("  [{}]\n", join(t)),
        HostValue::PerRank(parts) => parts
            .iter()
            .enumerate()
            .map(|(r, t)| format!("  rank {r}: [{}]\n", join(t)))
            .collect(),
    }
}
