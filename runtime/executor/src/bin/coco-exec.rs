//! `coco-exec BUNDLE --inputs DIR [--outputs DIR] [--ranks N] [--timing]`:
//! runs a compiled bundle on CPUs, one MPI rank per rank of its plan.
//!
//! Not under an MPI launcher, it starts `mpirun -n N` on itself with the
//! same arguments (N: the plan's world size) and exits with the job's exit
//! status; under a launcher it runs its rank. A one-rank bundle on the cuda
//! backend runs in this process, without `mpirun`. Every error is one line on
//! stderr and a non-zero exit status; a failing rank aborts the whole job.
//! The launching process owns the job (`coco_runtime::job`): SIGTERM,
//! SIGINT and SIGHUP are passed on to mpirun, and if it is killed outright
//! mpirun and the ranks still end.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::Parser;
use coco_runtime::{catch_panics, job, launch, watchdog, Error, Options, Reductions, Result};

const PROGRAM: &str = "coco-exec";

#[derive(Parser)]
#[command(
    name = PROGRAM,
    version,
    about = "Run a compiled coco bundle on CPUs (native kernels, MPI collectives)",
    long_about = "Run a compiled coco bundle on CPUs: its native kernels (kernels.so) and MPI \
                  collectives, one MPI rank per rank of the plan.\n\n\
                  Without an MPI launcher it starts itself under `mpirun -n N` (N: the ranks \
                  the bundle was compiled for) and exits with the job's status; under \
                  `mpirun`/`srun` each process runs its rank. A one-rank bundle on the cuda \
                  backend runs in this process (one GPU needs no mpirun).\n\n\
                  The launching coco-exec owns the job: SIGTERM, SIGINT and SIGHUP are passed \
                  on to mpirun (which ends the ranks), and when it is killed outright mpirun and \
                  the ranks end too. A rank that waits in one collective longer than \
                  --watchdog-s fails the job with an error naming the step.",
    after_help = coco_runtime::limits::HELP
)]
struct Args {
    /// The bundle directory (plan.toml, kernels.so).
    bundle: PathBuf,
    /// Read input `NAME` from `DIR/NAME.npy` (names and layouts in plan.toml).
    #[arg(long, value_name = "DIR")]
    inputs: PathBuf,
    /// Write output `NAME` to `DIR/NAME.npy` (created if needed).
    #[arg(long, value_name = "DIR")]
    outputs: Option<PathBuf>,
    /// The number of ranks to run; must be the bundle's (default: the bundle's).
    #[arg(long, value_name = "N")]
    ranks: Option<usize>,
    /// Print where the time went (slowest rank per phase and step kind).
    #[arg(long)]
    timing: bool,
    /// Fold f32/f64 reductions in rank order, as the reference interpreter
    /// does, instead of using MPI's native (faster, differently associated)
    /// reductions.
    #[arg(long)]
    exact_reductions: bool,
    /// Run the steps N times (for timing; state the program updates carries
    /// over from one iteration to the next, as in training).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..))]
    repeat: u64,
    /// Fail the job when a rank waits in one collective longer than this
    /// (a stopped or hung rank); 0: no limit [default: $COCO_WATCHDOG_S, else 300].
    #[arg(long, value_name = "SECONDS")]
    watchdog_s: Option<u64>,
    /// The most ranks to start on this machine [default: $COCO_MAX_RANKS,
    /// else 64 or 4 per core, whichever is more].
    #[arg(long, value_name = "N")]
    max_ranks: Option<usize>,
    /// cpu: native kernels and MPI; cuda: PTX kernels and NCCL, one GPU per
    /// process (needs a CUDA driver and NCCL).
    #[arg(long, value_enum, default_value = "cpu")]
    backend: Backend,
    /// Peer launches (fused collectives): treat every N consecutive ranks
    /// of a stage as one node, shared memory inside and MPI between (tests
    /// the multi-node path on one machine) [default: the real nodes].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    ranks_per_node: Option<u64>,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Backend {
    Cpu,
    Cuda,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Err(message) = watchdog::configure(args.watchdog_s) {
        eprintln!("{PROGRAM}: error: {message}");
        return ExitCode::FAILURE;
    }
    if launch::under_mpi() || runs_here(&args) {
        let options = Options {
            ranks: args.ranks,
            reductions: if args.exact_reductions {
                Reductions::Exact
            } else {
                Reductions::Native
            },
            timing: args.timing,
            repeat: usize::try_from(args.repeat).unwrap_or(usize::MAX),
            backend: match args.backend {
                Backend::Cpu => coco_runtime::BackendKind::Cpu,
                Backend::Cuda => coco_runtime::BackendKind::Cuda,
            },
            ranks_per_node: args.ranks_per_node.map(|n| n as usize),
        };
        coco_runtime::run_rank(
            PROGRAM,
            &args.bundle,
            &args.inputs,
            args.outputs.as_deref(),
            &options,
        );
        return ExitCode::SUCCESS;
    }
    match catch_panics(|| launch_job(&args)) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(error) => {
            eprintln!("{PROGRAM}: error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Whether to run the one rank in this process instead of under `mpirun`:
/// a one-rank bundle on the cuda backend, whose NCCL communicator needs no
/// MPI traffic, so one GPU runs without a launcher (MPI starts as a
/// singleton). The cpu backend keeps its launch, which owns the job; so
/// does a bundle that cannot run here, whose error `launch_job` reports
/// before starting anything.
fn runs_here(args: &Args) -> bool {
    matches!(args.backend, Backend::Cuda)
        && !launch::launched_by_us()
        && coco_bundle::Plan::load(&args.bundle).is_ok_and(|plan| plan.ranks == 1)
        && coco_runtime::cuda::available().is_ok()
}

/// Starts the job under `mpirun`; its exit status.
fn launch_job(args: &Args) -> Result<i32> {
    if launch::launched_by_us() {
        return Err(Error::Launch(format!(
            "started by mpirun, but none of the launcher variables is set \
             (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK, SLURM_PROCID); is `mpirun` \
             OpenMPI's? Set {} to OpenMPI's mpirun",
            launch::MPIRUN_ENV
        )));
    }
    if matches!(args.backend, Backend::Cuda) {
        coco_runtime::cuda::available().map_err(Error::Launch)?;
    }
    let plan = coco_bundle::Plan::load(&args.bundle)?;
    let ranks = args.ranks.unwrap_or(plan.ranks);
    if ranks != plan.ranks {
        return Err(Error::World(format!(
            "--ranks {ranks} does not match the bundle, which was compiled for {} ranks",
            plan.ranks
        )));
    }
    launch::check_world_size(
        &format!("{}: {ranks} ranks", args.bundle.display()),
        ranks,
        args.max_ranks,
    )?;
    launch::check_inputs(&plan, &args.inputs)?;
    launch::check_kernels(&args.bundle, &plan, matches!(args.backend, Backend::Cuda))?;
    job::guard(PROGRAM);
    let program = std::env::current_exe().map_err(|e| Error::io(Path::new(PROGRAM), e))?;
    let mut command = launch::mpirun(ranks, &program, &launch::forwarded_args())?;
    // Open MPI's session folder and shared-memory files, in folders this
    // process owns: gone with the job however it ends.
    let _mpi_folders = launch::mpi_folders(PROGRAM, &mut command)?;
    let status = job::spawn(&mut command).and_then(job::wait).map_err(|e| {
        Error::Launch(format!(
            "cannot start {}: {e}",
            command.get_program().to_string_lossy()
        ))
    })?;
    let (code, note) = launch::exit_code(status);
    match note {
        Some(note) => eprintln!("{PROGRAM}: error: {note}"),
        // mpirun ended by a signal, or a rank that failed, may leave no
        // line of its own: the job's failure is always said.
        None if code != 0 => {
            eprintln!("{PROGRAM}: error: the {ranks}-rank job failed (mpirun exit status {code})")
        }
        None => {}
    }
    Ok(code)
}
