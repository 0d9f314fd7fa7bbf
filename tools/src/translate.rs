//! `coco-translate`: compile a coco program (as `coco-opt` left it) to PTX,
//! LLVM IR, a native object, or a bundle the runtime executes.
//!
//! `--emit=kernels` prints the generated upstream MLIR (linalg on tensors)
//! before any lowering, which is where to look first when a kernel is wrong.
//!
//! `--emit=pyspark` writes a df program as a PySpark job (`coco_spark`):
//! one Python file that runs on Spark with the program's exact semantics.
//!
//! Every output is written whole or not at all (`coco_base::staged`): a
//! bundle is written into a temporary sibling folder and renamed into
//! place, so that a failed rebuild leaves the old bundle intact rather than
//! a mix of new and old files; an existing `-o` folder is replaced only if
//! it is a bundle (or empty).

use std::path::{Path, PathBuf};

use clap::{Parser, ValueEnum};
use coco_base::staged::Staged;
use coco_bigtest::extract;
use coco_bundle::{FORMAT_NAME, PLAN_FILE};
use coco_dialects::{
    context,
    ir::{as_op, str_attr},
};
use coco_lowering::{
    compile, gemm, ptxas, write_bundle, Compiled, CudaToolkit, FusedCollectives, Options,
    ReductionOrder, PROGRAM_FILE,
};
use melior::ir::Module;

use crate::{source, Output};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// A directory: plan.toml, kernels.so/.o/.ll/.ptx/.mlir.
    Bundle,
    /// Every kernel's PTX, one module.
    Ptx,
    /// Every kernel's optimised LLVM IR for the host.
    LlvmIr,
    /// A relocatable object with every kernel for the host.
    Obj,
    /// The execution plan only.
    Plan,
    /// The kernels as upstream MLIR (linalg/tensor/arith/math) before lowering.
    Kernels,
    /// A df program as a PySpark job (one Python file; docs/bigtest.md).
    Pyspark,
    /// A df program as a PySpark job that counts the records following
    /// each JDU path (`coco-bigtest coverage --histogram`; docs/bigtest.md).
    PysparkPaths,
}

#[derive(Parser, Debug)]
#[command(
    name = "coco-translate",
    version,
    about = "Compile a coco program to PTX, LLVM IR, native objects or an executable bundle, or export a df program as a PySpark job"
)]
struct Cli {
    /// The program (.mlir, `-` for stdin), usually the output of coco-opt.
    program: String,
    /// What to produce (not with --tune-gemms, which writes its table).
    #[arg(
        long,
        value_enum,
        required_unless_present = "tune_gemms",
        conflicts_with = "tune_gemms"
    )]
    emit: Option<Emit>,
    /// Output file (directory for --emit=bundle, replaced only if it is a
    /// bundle or empty; `-` or absent: stdout for text, `-` for --emit=obj).
    #[arg(short = 'o', value_name = "PATH")]
    output: Option<PathBuf>,
    /// World size the program is compiled for (local shapes depend on it).
    #[arg(long, default_value_t = 1)]
    ranks: usize,
    /// CUDA compute capability for PTX (sm_70 to sm_90).
    #[arg(long, default_value = "sm_90")]
    chip: String,
    /// PTX ISA version, 10 x major + minor: 60 to 85 (80 for PTX 8.0), at
    /// least what --chip needs (78 for sm_89 and sm_90, 70 for sm_80).
    #[arg(long, default_value_t = 80)]
    ptx_version: u32,
    /// CPU for the native kernels: `native` (this machine) or an LLVM CPU
    /// name such as `x86-64-v3` for bundles that run on other nodes.
    #[arg(long, default_value = "native")]
    mcpu: String,
    /// The function to compile when the program has several.
    #[arg(long)]
    entry: Option<String>,
    /// How coco.fused_collective regions run: `peer`, one kernel that
    /// reads and writes the other ranks' buffers (CoCoNet's fused
    /// collective: over shared memory on cpu, CUDA IPC on cuda), or
    /// `steps`, collectives around kernels (MPI or NCCL).
    #[arg(long, value_enum, default_value_t = FusedCollectivesArg::Peer)]
    fused_collectives: FusedCollectivesArg,
    /// A CUDA toolkit, or the nvidia-cuda-nvcc-cu12 wheel's nvidia/cuda_nvcc
    /// folder (scripts/setup.sh installs it into .venv): its
    /// nvvm/libdevice/libdevice.10.bc is linked into the PTX (else coco's
    /// fallback exp and tanh) and its bin/ptxas serves --resource-usage
    /// [default: $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, as MLIR reads them].
    #[arg(long, value_name = "DIR")]
    cuda_path: Option<PathBuf>,
    /// With --emit=ptx or bundle: assemble the PTX with the CUDA path's
    /// ptxas (any error or warning fails) and print each kernel's
    /// registers, spills, shared memory and stack on stderr, as nvcc's
    /// flag of the same name.
    #[arg(long)]
    resource_usage: bool,
    /// The order of the native kernels' whole-tensor and row reductions:
    /// `interpreter` (the reference interpreter's, bit for bit: whole-tensor
    /// float sums in blocked order, rows in index order), `index-order`
    /// (every sum one sequential chain: the baseline of
    /// bench/reductions.sh) or `tree` (the GPU kernels' order, docs/gpu.md:
    /// runs their indexing on a CPU).
    #[arg(long, value_enum, default_value_t = ReductionOrderArg::Interpreter)]
    cpu_reductions: ReductionOrderArg,
    /// How the kernels compute float matmuls: `generated` (CPU: blocked,
    /// packed and vectorised GEMMs; GPU: shared-memory tiles; both tiled by
    /// `coco.tile`; docs/gemm.md), `loops` (linalg.matmul as plain loops,
    /// a baseline), `library` (CPU: f32 and f64 GEMMs call OpenBLAS's CBLAS
    /// on one thread, and kernels.so then needs libopenblas where it runs;
    /// GPU: as generated) or `gpu-tiles` (the CPU runs the GPU's tiled
    /// kernels as loops: slow, checks their indexing without a GPU).
    #[arg(long, value_enum, default_value_t = GemmArg::Generated)]
    gemm: GemmArg,
    /// How generated GEMMs (CPU and GPU) accumulate: `fused` (fused multiply-adds, within
    /// --check's tolerance of the interpreter) or `ordered` (a rounded
    /// multiply, then a rounded add: the interpreter's, bit for bit).
    #[arg(long, value_enum, default_value_t = GemmArithmeticArg::Fused)]
    gemm_arithmetic: GemmArithmeticArg,
    /// Cache blockings measured on this machine by --tune-gemms, for the
    /// CPU's GEMMs without a coco.tile (docs/gemm.md, "Tuned tiles").
    #[arg(long, value_name = "FILE")]
    gemm_tiles: Option<PathBuf>,
    /// Measure cache blockings for the program's CPU GEMMs (as compiled for
    /// --ranks, with --gemm-arithmetic) on this machine, one thread, and
    /// record the fastest of each in FILE (created, or updated), instead
    /// of emitting; prints what it measured.
    #[arg(long, value_name = "FILE")]
    tune_gemms: Option<PathBuf>,
}

/// `--gemm` (see `coco_lowering::gemm::Route`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GemmArg {
    Generated,
    Loops,
    Library,
    GpuTiles,
}

impl From<GemmArg> for gemm::Route {
    fn from(arg: GemmArg) -> Self {
        match arg {
            GemmArg::Generated => gemm::Route::Generated,
            GemmArg::Loops => gemm::Route::Loops,
            GemmArg::Library => gemm::Route::Library,
            GemmArg::GpuTiles => gemm::Route::GpuTiles,
        }
    }
}

/// `--gemm-arithmetic` (see `coco_lowering::gemm::Arithmetic`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GemmArithmeticArg {
    Fused,
    Ordered,
}

impl From<GemmArithmeticArg> for gemm::Arithmetic {
    fn from(arg: GemmArithmeticArg) -> Self {
        match arg {
            GemmArithmeticArg::Fused => gemm::Arithmetic::Fused,
            GemmArithmeticArg::Ordered => gemm::Arithmetic::Ordered,
        }
    }
}

/// `--cpu-reductions` (see `coco_lowering::ReductionOrder`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReductionOrderArg {
    Interpreter,
    IndexOrder,
    Tree,
}

impl From<ReductionOrderArg> for ReductionOrder {
    fn from(arg: ReductionOrderArg) -> Self {
        match arg {
            ReductionOrderArg::Interpreter => ReductionOrder::Interpreter,
            ReductionOrderArg::IndexOrder => ReductionOrder::IndexOrder,
            ReductionOrderArg::Tree => ReductionOrder::Tree,
        }
    }
}

/// `--fused-collectives` (see `coco_lowering::FusedCollectives`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum FusedCollectivesArg {
    Peer,
    Steps,
}

impl From<FusedCollectivesArg> for FusedCollectives {
    fn from(arg: FusedCollectivesArg) -> Self {
        match arg {
            FusedCollectivesArg::Peer => FusedCollectives::Peer,
            FusedCollectivesArg::Steps => FusedCollectives::Steps,
        }
    }
}

/// Runs coco-translate; `stdin` stands in for the real standard input
/// (the test harness pipes stages in-process).
pub fn run(args: &[String], stdin: Option<&[u8]>) -> Output {
    let mut output = Output::default();
    let cli: Cli = match crate::parse_args(args) {
        Ok(cli) => cli,
        Err(output) => return output,
    };
    let mut report = String::new();
    match run_cli(&cli, stdin, &mut report) {
        Ok(stdout) => {
            output.stdout = stdout;
            output.stderr = report.into_bytes();
        }
        Err(message) => {
            output.stderr = format!("{report}coco-translate: error: {message}\n").into_bytes();
            output.code = 1;
        }
    }
    output
}

/// `report` collects what goes to stderr on success (`--resource-usage`).
fn run_cli(cli: &Cli, stdin: Option<&[u8]>, report: &mut String) -> Result<Vec<u8>, String> {
    check_mcpu(&cli.mcpu)?;
    // Without --emit, --tune-gemms only compiles the kernels' text.
    let emit = cli.emit.unwrap_or(Emit::Kernels);
    // plan.toml holds integers as TOML does, in an i64.
    if i64::try_from(cli.ranks).is_err() {
        return Err(format!(
            "--ranks: {} ranks do not fit in a plan (at most {})",
            cli.ranks,
            i64::MAX
        ));
    }
    if cli.resource_usage && !matches!(emit, Emit::Ptx | Emit::Bundle) {
        return Err(
            "--resource-usage reports on PTX: use it with --emit=ptx or --emit=bundle".into(),
        );
    }
    let cuda_toolkit = CudaToolkit::find(cli.cuda_path.as_deref()).map_err(|e| e.to_string())?;
    let ptxas = match (&cuda_toolkit, cli.resource_usage) {
        (_, false) => None,
        (Some(toolkit), true) => Some(toolkit.ptxas().ok_or_else(|| {
            format!(
                "--resource-usage: {} has no bin/ptxas",
                toolkit.root().display()
            )
        })?),
        (None, true) => {
            return Err("--resource-usage needs ptxas: name a CUDA toolkit, or the \
                        nvidia-cuda-nvcc-cu12 wheel's nvidia/cuda_nvcc folder, with --cuda-path"
                .into())
        }
    };
    let text = source::read_input(&cli.program, stdin)?;
    let context = context();
    let module = source::load(&context, &text, &cli.program)?;
    if let Some(job) = spark_job(emit) {
        let job = pyspark_job(&module, &cli.program, cli.entry.as_deref(), job)?;
        return write_text(cli, job);
    }
    let options = Options {
        ranks: cli.ranks,
        entry: cli.entry.clone(),
        chip: cli.chip.clone(),
        features: format!("+ptx{}", cli.ptx_version),
        cpu: cli.mcpu.clone(),
        native: matches!(emit, Emit::Bundle | Emit::LlvmIr | Emit::Obj),
        ptx: matches!(emit, Emit::Bundle | Emit::Ptx | Emit::Plan),
        fused_collectives: cli.fused_collectives.into(),
        cuda_toolkit,
        cpu_reductions: cli.cpu_reductions.into(),
        gemm: cli.gemm.into(),
        gemm_arithmetic: cli.gemm_arithmetic.into(),
        gemm_tiles: match &cli.gemm_tiles {
            Some(path) => {
                gemm::tuned::TileTable::load(path).map_err(|e| format!("--gemm-tiles: {e}"))?
            }
            None => Default::default(),
        },
    };
    let source_name = std::path::Path::new(&cli.program)
        .file_name()
        .map_or("stdin".into(), |n| n.to_string_lossy().into_owned());
    if let Some(table) = &cli.tune_gemms {
        let untuned = Options {
            native: false,
            ptx: false,
            gemm_tiles: Default::default(),
            ..options
        };
        let compiled =
            compile(&context, &module, &source_name, &untuned).map_err(|e| e.to_string())?;
        let report = crate::tune::tune_gemms(&compiled.gemms, &untuned, table)?;
        return Ok(report.into_bytes());
    }
    let compiled = compile(&context, &module, &source_name, &options).map_err(|e| e.to_string())?;
    match (&ptxas, &compiled.ptx) {
        (Some(ptxas), Some(ptx)) => {
            let kernels = ptxas::assemble(ptxas, ptx, &cli.chip).map_err(|e| e.to_string())?;
            report.push_str(&ptxas::table(&cli.chip, &kernels));
        }
        (Some(_), None) => report.push_str("resource usage: the program has no GPU kernels\n"),
        _ => {}
    }
    let text = match emit {
        Emit::Bundle => {
            let dir = cli
                .output
                .clone()
                .ok_or("--emit=bundle needs -o <directory>")?;
            if dir.as_os_str() == "-" {
                return Err(
                    "--emit=bundle writes a directory: -o - (stdout) cannot hold one; \
                            name a directory"
                        .into(),
                );
            }
            write_bundle_whole(&compiled, &dir)?;
            return Ok(Vec::new());
        }
        Emit::Obj => {
            let path = cli.output.clone().ok_or("--emit=obj needs -o <file>")?;
            let object = compiled.object.unwrap_or_default();
            if path.as_os_str() == "-" {
                return Ok(object);
            }
            write_file(&path, &object)?;
            return Ok(Vec::new());
        }
        Emit::Ptx => compiled.ptx.unwrap_or_default(),
        Emit::LlvmIr => compiled.llvm_ir.unwrap_or_default(),
        Emit::Plan => compiled.plan.to_text(),
        Emit::Kernels => compiled.kernels_mlir,
        // Exported above, before compiling; a df module has no kernels.
        Emit::Pyspark | Emit::PysparkPaths => unreachable!("exported above"),
    };
    write_text(cli, text)
}

/// Writes `text` to `-o` (whole or not at all), or returns it for stdout.
fn write_text(cli: &Cli, text: String) -> Result<Vec<u8>, String> {
    match &cli.output {
        Some(path) if path.as_os_str() != "-" => {
            write_file(path, text.as_bytes())?;
            Ok(Vec::new())
        }
        _ => Ok(text.into_bytes()),
    }
}

/// The kind of PySpark job `emit` asks for, if it asks for one.
fn spark_job(emit: Emit) -> Option<coco_spark::Job> {
    match emit {
        Emit::Pyspark => Some(coco_spark::Job::Sinks),
        Emit::PysparkPaths => Some(coco_spark::Job::Paths),
        _ => None,
    }
}

/// The PySpark job of the df program in `module` (the one named by
/// `entry` when it has several).
fn pyspark_job(
    module: &Module,
    path: &str,
    entry: Option<&str>,
    job: coco_spark::Job,
) -> Result<String, String> {
    let module_ref = module.as_operation();
    let module_op = as_op(&module_ref);
    let functions = extract::program_functions(module_op);
    let names: Vec<String> = functions
        .iter()
        .map(|f| str_attr(as_op(f), "sym_name").unwrap_or_default())
        .collect();
    let chosen = match (entry, functions.len()) {
        (_, 0) => {
            return Err(format!(
                "{path}: --emit=pyspark exports df programs, and this module has none (a func.func with df.source ops)"
            ))
        }
        (None, 1) => 0,
        (None, _) => {
            return Err(format!(
                "{path}: {} df programs (@{}); choose one with --entry",
                names.len(),
                names.join(", @")
            ))
        }
        (Some(entry), _) => names.iter().position(|n| n == entry).ok_or_else(|| {
            format!(
                "{path}: --entry {entry}: no df program of that name (the programs: @{})",
                names.join(", @")
            )
        })?,
    };
    let program = extract::extract(module_op, as_op(&functions[chosen]))
        .map_err(|e| format!("{path}: {}", e.message))?;
    let file = Path::new(path)
        .file_name()
        .map_or("stdin".into(), |n| n.to_string_lossy().into_owned());
    coco_spark::export_job(&program, &file, job).map_err(|e| e.to_string())
}

/// LLVM only warns about a CPU it does not know, then may abort in code
/// generation (`64-bit code requested on a subtarget that doesn't support
/// it`), so the name is checked against the host target's list first.
fn check_mcpu(cpu: &str) -> Result<(), String> {
    let Some((triple, cpus)) = coco_dialects::upstream::host_cpus() else {
        return Ok(());
    };
    if cpu == "native" || cpus.iter().any(|c| c == cpu) {
        return Ok(());
    }
    Err(format!(
        "--mcpu: '{cpu}' is not a CPU LLVM knows for {triple}; valid values: native, {}",
        cpus.join(", ")
    ))
}

/// Writes `bytes` to `path` whole or not at all.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::write_output_atomically(path, bytes)
}

/// The files `write_bundle` may leave in a bundle.
const BUNDLE_FILES: [&str; 7] = [
    PLAN_FILE,
    PROGRAM_FILE,
    "kernels.mlir",
    "kernels.ll",
    "kernels.o",
    "kernels.so",
    "kernels.ptx",
];

/// Why `dir`, which exists, must not be replaced by a bundle (`None`: it
/// may: an empty folder, or a bundle with nothing of the user's in it).
fn not_replaceable(dir: &Path) -> Option<String> {
    let shown = dir.display();
    if !dir.is_dir() {
        return Some(format!("{shown} exists and is not a directory"));
    }
    let entries: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(e) => return Some(format!("cannot read {shown}: {e}")),
    };
    if entries.is_empty() {
        return None;
    }
    let format_line = format!("format = \"{FORMAT_NAME}\"");
    let is_bundle = std::fs::read_to_string(dir.join(PLAN_FILE))
        .is_ok_and(|text| text.lines().any(|line| line.trim() == format_line));
    if !is_bundle {
        return Some(format!(
            "{shown} exists and is not a coco bundle (no {PLAN_FILE} with {format_line}); \
             refusing to replace it: remove it or choose another -o"
        ));
    }
    let mut foreign: Vec<&String> = entries
        .iter()
        .filter(|name| !BUNDLE_FILES.contains(&name.as_str()))
        .collect();
    foreign.sort();
    foreign.first().map(|name| {
        format!(
            "{shown} holds {name}, which is not part of a bundle; refusing to replace it: \
             move it out or choose another -o"
        )
    })
}

/// Writes the bundle into a temporary sibling of `dir`, then renames it
/// into place (replacing an old bundle only once the new one is complete).
fn write_bundle_whole(compiled: &Compiled, dir: &Path) -> Result<(), String> {
    if dir.exists() {
        if let Some(why) = not_replaceable(dir) {
            return Err(why);
        }
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let cannot = |e: std::io::Error| format!("cannot write {}: {e}", dir.display());
    let staged = Staged::dir(dir).map_err(cannot)?;
    write_bundle(compiled, staged.path()).map_err(|e| e.to_string())?;
    staged.commit().map_err(cannot)
}
