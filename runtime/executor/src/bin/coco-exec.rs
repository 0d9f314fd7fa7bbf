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

use std::{path::Path, process::ExitCode};

use coco_runtime::{catch_panics, job, launch, watchdog, BackendKind, Error, Invocation, Result};

const PROGRAM: &str = "coco-exec";

fn main() -> ExitCode {
    // The command line is `Invocation`'s, which coco-run writes too.
    let invocation = match Invocation::from_args(std::env::args_os().skip(1)) {
        Ok(invocation) => invocation,
        Err(Error::Usage(error)) => error.exit(),
        Err(error) => {
            eprintln!("{PROGRAM}: error: {error}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(message) = watchdog::configure(invocation.watchdog_s) {
        eprintln!("{PROGRAM}: error: {message}");
        return ExitCode::FAILURE;
    }
    if launch::under_mpi() || runs_here(&invocation) {
        invocation.run_rank(PROGRAM);
        return ExitCode::SUCCESS;
    }
    match catch_panics(|| launch_job(&invocation)) {
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
fn runs_here(invocation: &Invocation) -> bool {
    invocation.options.backend == BackendKind::Cuda
        && !launch::launched_by_us()
        && coco_bundle::Plan::load(&invocation.bundle).is_ok_and(|plan| plan.ranks == 1)
        && coco_runtime::cuda::available().is_ok()
}

/// Starts the job under `mpirun`; its exit status.
fn launch_job(invocation: &Invocation) -> Result<i32> {
    if launch::launched_by_us() {
        return Err(Error::Launch(format!(
            "started by mpirun, but none of the launcher variables is set \
             (OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK, SLURM_PROCID); is `mpirun` \
             OpenMPI's? Set {} to OpenMPI's mpirun",
            launch::MPIRUN_ENV
        )));
    }
    let cuda = invocation.options.backend == BackendKind::Cuda;
    if cuda {
        coco_runtime::cuda::available().map_err(Error::Launch)?;
    }
    let plan = coco_bundle::Plan::load(&invocation.bundle)?;
    let ranks = invocation.options.ranks.unwrap_or(plan.ranks);
    if ranks != plan.ranks {
        return Err(Error::World(format!(
            "--ranks {ranks} does not match the bundle, which was compiled for {} ranks",
            plan.ranks
        )));
    }
    launch::check_world_size(
        &format!("{}: {ranks} ranks", invocation.bundle.display()),
        ranks,
        invocation.max_ranks,
    )?;
    launch::check_inputs(&plan, &invocation.inputs)?;
    launch::check_kernels(&invocation.bundle, &plan, cuda)?;
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
