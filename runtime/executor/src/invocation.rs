//! coco-exec's command line as one type, [`Invocation`]. coco-exec parses
//! its arguments into it ([`Invocation::from_args`]); coco-run, which starts
//! coco-exec's ranks under `mpirun` itself, writes them from it
//! ([`Invocation::to_args`]). One type for both halves, so a flag cannot be
//! added, renamed or dropped on one side only: both functions name every
//! field (a new one does not compile until both handle it), and the unit
//! tests check that parsing what `to_args` wrote gives the value back.

use std::{
    ffi::{OsStr, OsString},
    path::PathBuf,
};

use clap::Parser;

use crate::{BackendKind, Error, Options, Reductions, Report, Result};

/// The program name in coco-exec's usage and help.
const PROGRAM: &str = "coco-exec";

/// One run of coco-exec: the bundle, where its inputs and outputs are, and
/// how to run it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The bundle directory (plan.toml, kernels.so).
    pub bundle: PathBuf,
    /// `--inputs DIR`: input `NAME` is `DIR/NAME.npy`.
    pub inputs: PathBuf,
    /// `--outputs DIR`: output `NAME` goes to `DIR/NAME.npy`.
    pub outputs: Option<PathBuf>,
    /// `--watchdog-s`: the longest wait in one collective; `None`:
    /// `$COCO_WATCHDOG_S`, else the default ([`crate::watchdog`]).
    pub watchdog_s: Option<u64>,
    /// `--max-ranks`: the world-size limit of a launch; `None`:
    /// `$COCO_MAX_RANKS`, else the default ([`crate::launch`]).
    pub max_ranks: Option<usize>,
    /// How each rank runs: `--ranks`, `--exact-reductions`, `--timing`,
    /// `--repeat`, `--backend` and `--ranks-per-node`.
    pub options: Options,
}

impl Invocation {
    /// Parses coco-exec's arguments (without the program name). `--help`,
    /// `--version` and usage errors are [`Error::Usage`], which
    /// `clap::Error::exit` prints and exits with as clap does.
    pub fn from_args<I, T>(args: I) -> Result<Invocation>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString>,
    {
        let argv = std::iter::once(OsString::from(PROGRAM)).chain(args.into_iter().map(Into::into));
        Args::try_parse_from(argv)
            .map(Invocation::from)
            .map_err(Error::Usage)
    }

    /// The arguments (without the program name) that [`Invocation::from_args`]
    /// parses back into `self`: every value in `--flag=VALUE` form and the
    /// bundle after `--`, so that paths with spaces, `=`, a leading `-` or
    /// bytes that are not UTF-8 pass unchanged. Flags at their default are
    /// left out; a `repeat` of 0 counts as 1, as it does in a run.
    pub fn to_args(&self) -> Vec<OsString> {
        let Invocation {
            bundle,
            inputs,
            outputs,
            watchdog_s,
            max_ranks,
            options,
        } = self;
        let Options {
            ranks,
            reductions,
            timing,
            repeat,
            backend,
            ranks_per_node,
        } = options;
        let mut args = Vec::new();
        push_value(&mut args, "inputs", inputs);
        if let Some(dir) = outputs {
            push_value(&mut args, "outputs", dir);
        }
        if let Some(n) = ranks {
            push_value(&mut args, "ranks", n.to_string());
        }
        if *timing {
            args.push("--timing".into());
        }
        match reductions {
            Reductions::Native => {}
            Reductions::Exact => args.push("--exact-reductions".into()),
        }
        if *repeat > 1 {
            push_value(&mut args, "repeat", repeat.to_string());
        }
        if let Some(seconds) = watchdog_s {
            push_value(&mut args, "watchdog-s", seconds.to_string());
        }
        if let Some(n) = max_ranks {
            push_value(&mut args, "max-ranks", n.to_string());
        }
        match backend {
            BackendKind::Cpu => {}
            BackendKind::Cuda => push_value(&mut args, "backend", "cuda"),
        }
        if let Some(n) = ranks_per_node {
            push_value(&mut args, "ranks-per-node", n.to_string());
        }
        args.push("--".into());
        args.push(bundle.into());
        args
    }

    /// This process's rank of the run: [`crate::run_rank`] with the
    /// invocation's bundle, folders and options (returns only on success;
    /// on an error it aborts the job).
    pub fn run_rank(&self, program: &str) -> Report {
        crate::run_rank(
            program,
            &self.bundle,
            &self.inputs,
            self.outputs.as_deref(),
            &self.options,
        )
    }
}

/// `--flag=VALUE`, with `VALUE` as is (any bytes).
fn push_value(args: &mut Vec<OsString>, flag: &str, value: impl AsRef<OsStr>) {
    let mut arg = OsString::from(format!("--{flag}="));
    arg.push(value);
    args.push(arg);
}

/// coco-exec's flags as clap parses them (and its `--help`); turned into
/// an [`Invocation`] at once.
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
    after_help = crate::limits::HELP
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

/// `--backend` (its own enum, so that `--help` lists the values without
/// [`BackendKind`]'s doc comments).
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Backend {
    Cpu,
    Cuda,
}

impl From<Args> for Invocation {
    fn from(args: Args) -> Invocation {
        let Args {
            bundle,
            inputs,
            outputs,
            ranks,
            timing,
            exact_reductions,
            repeat,
            watchdog_s,
            max_ranks,
            backend,
            ranks_per_node,
        } = args;
        Invocation {
            bundle,
            inputs,
            outputs,
            watchdog_s,
            max_ranks,
            options: Options {
                ranks,
                reductions: if exact_reductions {
                    Reductions::Exact
                } else {
                    Reductions::Native
                },
                timing,
                repeat: usize::try_from(repeat).unwrap_or(usize::MAX),
                backend: match backend {
                    Backend::Cpu => BackendKind::Cpu,
                    Backend::Cuda => BackendKind::Cuda,
                },
                ranks_per_node: ranks_per_node.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(invocation: &Invocation) {
        let args = invocation.to_args();
        let parsed = Invocation::from_args(args.clone())
            .unwrap_or_else(|e| panic!("{args:?} does not parse: {e}"));
        assert_eq!(&parsed, invocation, "through {args:?}");
    }

    /// The least invocation: every optional field unset.
    fn minimal() -> Invocation {
        Invocation {
            bundle: "bundle".into(),
            inputs: "inputs".into(),
            outputs: None,
            watchdog_s: None,
            max_ranks: None,
            options: Options::default(),
        }
    }

    #[test]
    fn every_field_unset_round_trips() {
        let invocation = minimal();
        assert_eq!(
            invocation.to_args(),
            ["--inputs=inputs", "--", "bundle"].map(OsString::from)
        );
        round_trip(&invocation);
    }

    #[test]
    fn every_field_set_round_trips() {
        let invocation = Invocation {
            bundle: "/tmp/coco-run-1-x-0-bundle".into(),
            inputs: "/tmp/in".into(),
            outputs: Some("/tmp/out".into()),
            watchdog_s: Some(0),
            max_ranks: Some(128),
            options: Options {
                ranks: Some(4),
                reductions: Reductions::Exact,
                timing: true,
                repeat: 7,
                backend: BackendKind::Cuda,
                ranks_per_node: Some(2),
            },
        };
        assert_eq!(
            invocation.to_args(),
            [
                "--inputs=/tmp/in",
                "--outputs=/tmp/out",
                "--ranks=4",
                "--timing",
                "--exact-reductions",
                "--repeat=7",
                "--watchdog-s=0",
                "--max-ranks=128",
                "--backend=cuda",
                "--ranks-per-node=2",
                "--",
                "/tmp/coco-run-1-x-0-bundle"
            ]
            .map(OsString::from)
        );
        round_trip(&invocation);
    }

    #[test]
    fn each_field_alone_round_trips() {
        let base = minimal();
        let variants: Vec<fn(&mut Invocation)> = vec![
            |i| i.outputs = Some("out".into()),
            |i| i.watchdog_s = Some(300),
            |i| i.watchdog_s = Some(u64::MAX),
            |i| i.max_ranks = Some(1),
            |i| i.options.ranks = Some(1),
            |i| i.options.ranks = Some(usize::MAX),
            |i| i.options.reductions = Reductions::Exact,
            |i| i.options.timing = true,
            |i| i.options.repeat = 2,
            |i| i.options.repeat = usize::MAX,
            |i| i.options.backend = BackendKind::Cuda,
            |i| i.options.ranks_per_node = Some(1),
            |i| i.options.ranks_per_node = Some(1 << 40),
        ];
        for set in variants {
            let mut invocation = base.clone();
            set(&mut invocation);
            assert_ne!(invocation, base);
            round_trip(&invocation);
        }
    }

    #[test]
    fn odd_paths_round_trip() {
        for path in [
            "with spaces/and  two",
            "-starts-with-a-dash",
            "--inputs",
            "--",
            "a=b=c",
            "=",
            "quotes ' \" and \\ back",
            "tab\tnewline\nend",
            "ünïcödé/日本",
        ] {
            let mut invocation = minimal();
            invocation.bundle = path.into();
            invocation.inputs = path.into();
            invocation.outputs = Some(format!("{path}/out").into());
            round_trip(&invocation);
        }
    }

    #[cfg(unix)]
    #[test]
    fn paths_that_are_not_utf8_round_trip() {
        use std::os::unix::ffi::OsStrExt;
        let path = PathBuf::from(OsStr::from_bytes(b"not \xff utf-8"));
        let mut invocation = minimal();
        invocation.bundle = path.clone();
        invocation.inputs = path.clone();
        invocation.outputs = Some(path);
        round_trip(&invocation);
    }

    #[test]
    fn a_repeat_of_zero_is_one() {
        let mut invocation = minimal();
        invocation.options.repeat = 0;
        let parsed = Invocation::from_args(invocation.to_args()).unwrap();
        assert_eq!(parsed.options.repeat, 1);
    }

    #[test]
    fn the_command_line_as_people_write_it() {
        let parsed = Invocation::from_args([
            "b",
            "--inputs",
            "in dir",
            "--exact-reductions",
            "--backend",
            "cuda",
            "--repeat",
            "3",
        ])
        .unwrap();
        let mut expected = minimal();
        expected.bundle = "b".into();
        expected.inputs = "in dir".into();
        expected.options.reductions = Reductions::Exact;
        expected.options.backend = BackendKind::Cuda;
        expected.options.repeat = 3;
        assert_eq!(parsed, expected);
    }

    #[test]
    fn usage_errors_are_errors() {
        for args in [
            &["b"][..],
            &["b", "--inputs=i", "--repeat=0"],
            &["b", "--inputs=i", "--ranks-per-node=0"],
            &["b", "--inputs=i", "--backend=tpu"],
            &["b", "--inputs=i", "--no-such-flag"],
        ] {
            match Invocation::from_args(args.iter().copied()) {
                Err(Error::Usage(e)) => assert!(e.use_stderr(), "{args:?}: {e}"),
                other => panic!("{args:?}: {other:?}"),
            }
        }
        match Invocation::from_args(["--help"]) {
            Err(Error::Usage(e)) => {
                assert!(!e.use_stderr());
                assert!(e.to_string().contains("Usage: coco-exec"), "{e}");
            }
            other => panic!("--help: {other:?}"),
        }
    }
}
