//! `coco-translate`: compile a coco program (as `coco-opt` left it) to PTX,
//! LLVM IR, a native object, or a bundle the runtime executes.
//!
//! `--emit=kernels` prints the generated upstream MLIR (linalg on tensors)
//! before any lowering, which is where to look first when a kernel is wrong.

use std::{io::Write as _, path::PathBuf};

use clap::{Parser, ValueEnum};
use coco_dialects::context;
use coco_lowering::{compile, write_bundle, Options};

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
}

#[derive(Parser, Debug)]
#[command(
    name = "coco-translate",
    version,
    about = "Compile a coco program to PTX, LLVM IR, native objects or an executable bundle"
)]
struct Cli {
    /// The program (.mlir, `-` for stdin), usually the output of coco-opt.
    program: String,
    /// What to produce.
    #[arg(long, value_enum)]
    emit: Emit,
    /// Output file (directory for --emit=bundle; `-` or absent: stdout for text).
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
}

/// Runs coco-translate; `stdin` stands in for the real standard input
/// (the test harness pipes stages in-process).
pub fn run(args: &[String], stdin: Option<&[u8]>) -> Output {
    let mut output = Output::default();
    let cli: Cli = match crate::parse_args(args) {
        Ok(cli) => cli,
        Err(output) => return output,
    };
    match run_cli(&cli, stdin) {
        Ok(stdout) => output.stdout = stdout,
        Err(message) => {
            output.stderr = format!("coco-translate: error: {message}\n").into_bytes();
            output.code = 1;
        }
    }
    output
}

fn run_cli(cli: &Cli, stdin: Option<&[u8]>) -> Result<Vec<u8>, String> {
    check_mcpu(&cli.mcpu)?;
    let text = source::read_input(&cli.program, stdin)?;
    let context = context();
    let module = source::load(&context, &text, &cli.program)?;
    let options = Options {
        ranks: cli.ranks,
        entry: cli.entry.clone(),
        chip: cli.chip.clone(),
        features: format!("+ptx{}", cli.ptx_version),
        cpu: cli.mcpu.clone(),
        native: matches!(cli.emit, Emit::Bundle | Emit::LlvmIr | Emit::Obj),
        ptx: matches!(cli.emit, Emit::Bundle | Emit::Ptx | Emit::Plan),
    };
    let source_name = std::path::Path::new(&cli.program)
        .file_name()
        .map_or("stdin".into(), |n| n.to_string_lossy().into_owned());
    let compiled = compile(&context, &module, &source_name, &options).map_err(|e| e.to_string())?;
    let text = match cli.emit {
        Emit::Bundle => {
            let dir = cli
                .output
                .clone()
                .ok_or("--emit=bundle needs -o <directory>")?;
            write_bundle(&compiled, &dir).map_err(|e| e.to_string())?;
            return Ok(Vec::new());
        }
        Emit::Obj => {
            let path = cli.output.clone().ok_or("--emit=obj needs -o <file>")?;
            let object = compiled.object.unwrap_or_default();
            std::fs::write(&path, object)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            return Ok(Vec::new());
        }
        Emit::Ptx => compiled.ptx.unwrap_or_default(),
        Emit::LlvmIr => compiled.llvm_ir.unwrap_or_default(),
        Emit::Plan => compiled.plan.to_text(),
        Emit::Kernels => compiled.kernels_mlir,
    };
    match &cli.output {
        Some(path) if path.as_os_str() != "-" => {
            let mut file = std::fs::File::create(path)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            file.write_all(text.as_bytes())
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            Ok(Vec::new())
        }
        _ => Ok(text.into_bytes()),
    }
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
