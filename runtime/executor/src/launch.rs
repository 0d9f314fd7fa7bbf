//! Starting a job: is this process one rank of an MPI job already, and if
//! not, the `mpirun` command that starts one (as `torchrun` does for
//! PyTorch). `coco-exec` and `coco-run` both use it, so that a bundle runs
//! the same whether the user types `coco-exec b --inputs in` or
//! `mpirun -n 4 coco-exec b --inputs in`, or submits it with `srun`.
//!
//! The command is OpenMPI's: Debian and the CI image ship OpenMPI 4.1, and
//! `--oversubscribe`, `--bind-to none` and `--quiet` are its spellings. They
//! are chosen for running many ranks on a workstation or a CI runner with
//! fewer cores than ranks: without `--oversubscribe` OpenMPI refuses to start
//! more ranks than slots, and its default core binding would pile ranks onto
//! the same cores. `--quiet` drops OpenMPI's multi-paragraph banners (after
//! `MPI_Abort`, or when a rank exits non-zero), so that a failing rank's
//! own one-line message is what the user reads. On a cluster, start the job
//! with the site's launcher (`srun`, `mpirun` with a hostfile) instead:
//! [`under_mpi`] recognises it and nothing is re-launched.
//!
//! Before a launch: the world size is checked against a limit
//! ([`check_world_size`]; every rank is a process on this machine, and
//! `coco-run` seeds inputs per rank), and every input file must exist
//! ([`check_inputs`]), so that a mistake is one line, not one per rank. The
//! started `mpirun` belongs to its launcher ([`crate::job`]).

use std::{
    ffi::OsString,
    path::{Path, PathBuf},
    process::Command,
};

use coco_bundle::Plan;

use crate::error::{Error, Result};

/// Set in the environment of the ranks [`mpirun`] starts, so that a rank
/// which does not recognise its launcher fails instead of launching again.
pub const LAUNCHED_ENV: &str = "COCO_LAUNCHED_BY_MPIRUN";

/// Overrides the `mpirun` found on `PATH` (a path or a command name).
pub const MPIRUN_ENV: &str = "COCO_MPIRUN";

/// Overrides the world-size limit ([`default_max_ranks`]).
pub const MAX_RANKS_ENV: &str = "COCO_MAX_RANKS";

/// The most ranks a tool starts on this machine unless told otherwise: 64,
/// or 4 per core where that is more. Beyond it a typo (`--ranks 100000`)
/// would start that many processes and build their inputs first.
pub fn default_max_ranks() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    64.max(cores.saturating_mul(4))
}

/// The world-size limit: `flag` (`--max-ranks`), else [`MAX_RANKS_ENV`],
/// else [`default_max_ranks`].
pub fn max_ranks(flag: Option<usize>) -> Result<usize> {
    if let Some(limit) = flag {
        return Ok(limit);
    }
    match std::env::var(MAX_RANKS_ENV) {
        Err(_) => Ok(default_max_ranks()),
        Ok(text) => text.trim().parse().map_err(|_| {
            Error::World(format!(
                "{MAX_RANKS_ENV}={text}: expected a whole number of ranks"
            ))
        }),
    }
}

/// Fails unless a job of `ranks` ranks (`what`: how the user asked for
/// them, e.g. `--ranks 100000`) is at least one rank and within the
/// world-size limit ([`max_ranks`] of `flag`).
pub fn check_world_size(what: &str, ranks: usize, flag: Option<usize>) -> Result<()> {
    if ranks == 0 {
        return Err(Error::World(format!("{what}: a job needs at least 1 rank")));
    }
    let limit = max_ranks(flag)?;
    if ranks > limit {
        return Err(Error::World(format!(
            "{what}: more than the world-size limit of {limit} ranks on this machine \
             (raise it with --max-ranks N or {MAX_RANKS_ENV}=N)"
        )));
    }
    Ok(())
}

/// Fails, naming the first missing input and the file expected, unless
/// `dir` holds every input file of `plan`.
pub fn check_inputs(plan: &Plan, dir: &Path) -> Result<()> {
    for stage in &plan.stages {
        for buffer in &stage.buffers {
            if let Some(io) = &buffer.input {
                let path = dir.join(format!("{}.npy", io.name));
                // Only absence is checked here: a file that exists but is
                // not a regular one gets the reader's precise error.
                if std::fs::metadata(&path).is_err() {
                    return Err(Error::Launch(format!(
                        "missing input '{}': expected {} ({} {:?} per rank, {})",
                        io.name,
                        path.display(),
                        buffer.dtype,
                        buffer.shape,
                        io.plain_layout().unwrap_or(io.layout).text()
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Fails, in one line, unless the kernels the job's ranks will load
/// (`kernels.so`, or `kernels.ptx` for `cuda`) are the files the plan was
/// written with ([`coco_bundle::read_verified`]); every rank checks again
/// as it loads them, but a launcher says it once, before any starts.
pub fn check_kernels(bundle: &Path, plan: &Plan, cuda: bool) -> Result<()> {
    let launches = plan
        .stages
        .iter()
        .any(|stage| stage.steps.iter().any(|step| step.kernel().is_some()));
    match (&plan.ptx, &plan.native) {
        _ if !launches => {}
        (Some(ptx), _) if cuda => {
            coco_bundle::read_verified(
                bundle,
                &ptx.file,
                ptx.digest.as_ref(),
                "ptx.digest",
                "the bundle's PTX kernels",
            )?;
        }
        (_, Some(native)) if !cuda => {
            coco_bundle::read_verified(
                bundle,
                native,
                plan.native_digest.as_ref(),
                "native_digest",
                "the bundle's native kernels",
            )?;
        }
        // The ranks say what is missing.
        _ => {}
    }
    Ok(())
}

/// The launcher this process runs under, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launcher {
    /// OpenMPI's `mpirun`/`mpiexec` (`OMPI_COMM_WORLD_SIZE`).
    OpenMpi,
    /// A PMI or PMIx process manager (MPICH's Hydra, PRRTE, Slurm with
    /// `--mpi=pmix`): `PMI_SIZE` or `PMIX_RANK`.
    Pmi,
    /// Slurm's `srun` (`SLURM_NTASKS` and `SLURM_PROCID`).
    Slurm,
}

/// The launcher recognised from `env` (a lookup of environment variables).
pub fn detect_launcher(env: impl Fn(&str) -> Option<OsString>) -> Option<Launcher> {
    let set = |name: &str| env(name).is_some_and(|v| !v.is_empty());
    if set("OMPI_COMM_WORLD_SIZE") || set("OMPI_COMM_WORLD_RANK") {
        Some(Launcher::OpenMpi)
    } else if set("PMI_SIZE") || set("PMI_RANK") || set("PMIX_RANK") {
        Some(Launcher::Pmi)
    } else if set("SLURM_NTASKS") && set("SLURM_PROCID") {
        Some(Launcher::Slurm)
    } else {
        None
    }
}

/// The launcher of this process, from its environment.
pub fn launcher() -> Option<Launcher> {
    detect_launcher(|name| std::env::var_os(name))
}

/// Whether this process is one rank of a job started by an MPI launcher
/// (and so should initialise MPI and run its part, not launch).
pub fn under_mpi() -> bool {
    launcher().is_some()
}

/// Whether this process was started by [`mpirun`] (its `LAUNCHED_ENV`).
pub fn launched_by_us() -> bool {
    std::env::var_os(LAUNCHED_ENV).is_some()
}

/// The `mpirun` executable: `$COCO_MPIRUN`, else `mpirun` on `PATH`.
pub fn find_mpirun() -> Result<PathBuf> {
    let name = std::env::var_os(MPIRUN_ENV).unwrap_or_else(|| "mpirun".into());
    let candidate = Path::new(&name);
    if candidate.components().count() > 1 {
        return if candidate.is_file() {
            Ok(candidate.to_path_buf())
        } else {
            Err(Error::Launch(format!(
                "{MPIRUN_ENV}={} does not name a file",
                candidate.display()
            )))
        };
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(&name))
        .find(|path| path.is_file())
        .ok_or_else(|| {
            Error::Launch(format!(
                "'{}' is not on PATH: install OpenMPI (Debian: apt install openmpi-bin), \
                 set {MPIRUN_ENV}, or start the ranks with your own launcher",
                name.to_string_lossy()
            ))
        })
}

/// The command that runs `ranks` copies of `program args...` under
/// `mpirun`: `mpirun -n RANKS --oversubscribe --bind-to none --quiet
/// PROGRAM ARGS...`, with OpenMPI allowed to run as root (CI containers do)
/// and told to yield the CPU while waiting when there are more ranks than
/// cores (busy-polling ranks would otherwise starve each other). Settings
/// already in the environment win. Fails when `mpirun` cannot be found.
pub fn mpirun(ranks: usize, program: &Path, args: &[OsString]) -> Result<Command> {
    let mut command = Command::new(find_mpirun()?);
    command
        .arg("-n")
        .arg(ranks.to_string())
        .args(["--oversubscribe", "--bind-to", "none", "--quiet"])
        .arg(program)
        .args(args);
    let mut defaults = vec![
        ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
        ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
        (LAUNCHED_ENV, "1"),
    ];
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if ranks > cores {
        defaults.push(("OMPI_MCA_mpi_yield_when_idle", "1"));
    }
    for (name, value) in defaults {
        if std::env::var_os(name).is_none() {
            command.env(name, value);
        }
    }
    Ok(command)
}

/// Overrides where a launched job's shared-memory files go (default:
/// `/dev/shm`, Open MPI's own default on Linux).
pub const SHM_DIR_ENV: &str = "COCO_SHM_DIR";

/// The Open MPI settings [`MpiFolders`] sets: its session folder, and the
/// backing files of the shared-memory transport (`vader`, 4 MiB per rank)
/// and of shared-memory windows (`osc sm`, the peer launches' memory).
const SESSION_VAR: &str = "OMPI_MCA_orte_tmpdir_base";
const SHM_VARS: [&str; 2] = [
    "OMPI_MCA_btl_vader_backing_directory",
    "OMPI_MCA_osc_sm_backing_directory",
];

/// Where Open MPI keeps what a job puts on disk, inside folders the
/// launcher owns ([`crate::job::TempDir`]): its session folder
/// (`ompi.HOST.UID/`) in `$TMPDIR/PREFIX-...-mpi`, and its shared-memory
/// segments in `/dev/shm/PREFIX-...-shm` (or [`SHM_DIR_ENV`]). Left to
/// themselves, mpirun and ranks ended by a signal (`timeout`, Ctrl-C to
/// the process group, SIGKILL) leave `vader_segment.*` files in `/dev/shm`
/// and `ompi.*` folders in `$TMPDIR` that nothing reclaims; these folders
/// go when the launcher drops them, on its signals, by its reaper after a
/// SIGKILL, or by the next launch's sweep. Keep the value until the job
/// has ended. Settings already in the environment win (and then Open MPI's
/// files are where they say).
pub struct MpiFolders {
    _session: Option<crate::job::TempDir>,
    _shm: Option<crate::job::TempDir>,
}

/// Points the Open MPI job `command` starts at folders of its own
/// ([`MpiFolders`]), named `PREFIX-PID-TOKEN-N-{mpi,shm}`.
pub fn mpi_folders(prefix: &str, command: &mut Command) -> Result<MpiFolders> {
    let unset = |name: &str| std::env::var_os(name).is_none_or(|v| v.is_empty());
    let cannot = |root: &Path, e: std::io::Error| {
        Error::Launch(format!(
            "cannot create a folder for mpirun under {}: {e}",
            root.display()
        ))
    };
    let mut session = None;
    if unset(SESSION_VAR) {
        let root = std::env::temp_dir();
        let dir =
            crate::job::TempDir::new_in(&root, prefix, "mpi").map_err(|e| cannot(&root, e))?;
        command.env(SESSION_VAR, dir.path());
        session = Some(dir);
    }
    let mut shm = None;
    if SHM_VARS.iter().any(|v| unset(v)) {
        let chosen = std::env::var_os(SHM_DIR_ENV).filter(|v| !v.is_empty());
        // Without a usable /dev/shm, beside the session (as Open MPI does
        // where there is none).
        let root = match &chosen {
            Some(dir) => PathBuf::from(dir),
            None if Path::new("/dev/shm").is_dir() => PathBuf::from("/dev/shm"),
            None => std::env::temp_dir(),
        };
        let dir = match crate::job::TempDir::new_in(&root, prefix, "shm") {
            Ok(dir) => dir,
            Err(_) if chosen.is_none() => {
                let root = std::env::temp_dir();
                crate::job::TempDir::new_in(&root, prefix, "shm").map_err(|e| cannot(&root, e))?
            }
            Err(e) => return Err(cannot(&root, e)),
        };
        for var in SHM_VARS {
            if unset(var) {
                command.env(var, dir.path());
            }
        }
        shm = Some(dir);
    }
    Ok(MpiFolders {
        _session: session,
        _shm: shm,
    })
}

/// The folder shared-memory windows are backed by in this rank: Open MPI's
/// setting (which a launching coco sets to its job's folder), else Open
/// MPI's default on Linux.
pub fn shm_backing_dir() -> PathBuf {
    std::env::var_os(SHM_VARS[1])
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from("/dev/shm"), PathBuf::from)
}

/// The exit code to forward from a finished launcher, and a line to print
/// when the status alone would not explain it (a rank killed by a signal:
/// OpenMPI then exits with 128 + the signal and, quieted, says nothing).
pub fn exit_code(status: std::process::ExitStatus) -> (i32, Option<String>) {
    if let Some(code) = status.code() {
        if (129..160).contains(&code) {
            return (
                code,
                Some(format!(
                    "a rank was killed by signal {} (mpirun exit status {code})",
                    code - 128
                )),
            );
        }
        return (code, None);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return (
                128 + signal,
                Some(format!("mpirun was killed by signal {signal}")),
            );
        }
    }
    (1, Some("mpirun ended without an exit status".into()))
}

/// `program`'s arguments as given, for passing on to the ranks.
pub fn forwarded_args() -> Vec<OsString> {
    std::env::args_os().skip(1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{collections::HashMap, ffi::OsStr};

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn recognises_launchers() {
        assert_eq!(detect_launcher(env(&[])), None);
        assert_eq!(
            detect_launcher(env(&[("OMPI_COMM_WORLD_SIZE", "4")])),
            Some(Launcher::OpenMpi)
        );
        assert_eq!(
            detect_launcher(env(&[("PMI_SIZE", "2")])),
            Some(Launcher::Pmi)
        );
        assert_eq!(
            detect_launcher(env(&[("PMIX_RANK", "0")])),
            Some(Launcher::Pmi)
        );
        // An allocation alone (sbatch, salloc) is not a launched step.
        assert_eq!(detect_launcher(env(&[("SLURM_NTASKS", "4")])), None);
        assert_eq!(
            detect_launcher(env(&[("SLURM_NTASKS", "4"), ("SLURM_PROCID", "1")])),
            Some(Launcher::Slurm)
        );
    }

    #[test]
    fn world_size_is_checked() {
        assert!(check_world_size("--ranks 4", 4, Some(8)).is_ok());
        let text = check_world_size("--ranks 9", 9, Some(8))
            .unwrap_err()
            .to_string();
        assert_eq!(
            text,
            "--ranks 9: more than the world-size limit of 8 ranks on this machine \
             (raise it with --max-ranks N or COCO_MAX_RANKS=N)"
        );
        let text = check_world_size("--ranks 0", 0, None)
            .unwrap_err()
            .to_string();
        assert_eq!(text, "--ranks 0: a job needs at least 1 rank");
        assert!(check_world_size("--ranks 18446744073709551615", usize::MAX, None).is_err());
        assert!(default_max_ranks() >= 64);
    }

    #[test]
    fn mpirun_command_line() {
        let Ok(command) = mpirun(3, Path::new("/bin/prog"), &["a".into(), "--b".into()]) else {
            return; // no mpirun on this machine: find_mpirun's error is tested by use
        };
        let args: Vec<_> = command.get_args().map(|a| a.to_owned()).collect();
        assert_eq!(
            args,
            [
                "-n",
                "3",
                "--oversubscribe",
                "--bind-to",
                "none",
                "--quiet",
                "/bin/prog",
                "a",
                "--b"
            ]
            .map(OsString::from)
        );
        assert!(command
            .get_envs()
            .any(|(k, v)| k == LAUNCHED_ENV && v == Some(OsStr::new("1"))));
    }
}
