//! LLVM-dialect kernels to native code: LLVM IR through MLIR's translation,
//! then optimised and compiled for the host with inkwell, which shares the
//! LLVM 19 libraries MLIR links.

use std::path::Path;

use inkwell::{
    context::{AsContextRef, Context as LlvmContext},
    memory_buffer::MemoryBuffer,
    module::Module as LlvmModule,
    passes::PassBuilderOptions,
    targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine},
    OptimizationLevel,
};
use melior::ir::Module;

use crate::error::{Error, Result};

/// LLVM IR text and a relocatable object for the host.
pub struct Native {
    pub llvm_ir: String,
    pub object: Vec<u8>,
}

/// Translates `module` (LLVM dialect only) and compiles it at `-O3` for
/// `cpu` (`native`: the host CPU, vectorised for its features).
pub fn compile(module: &Module, cpu: &str) -> Result<Native> {
    Target::initialize_native(&InitializationConfig::default())
        .map_err(|e| Error::Codegen(format!("cannot initialise the native LLVM target: {e}")))?;
    let context = LlvmContext::create();
    // SAFETY: MLIR and inkwell use the same LLVM 19 libraries, so the C
    // handles are interchangeable; the module is owned by `context`.
    let llvm_module = unsafe {
        let raw = mlir_sys::mlirTranslateModuleToLLVMIR(
            module.as_operation().to_raw(),
            (&context).as_ctx_ref() as mlir_sys::LLVMContextRef,
        );
        if raw.is_null() {
            return Err(Error::Codegen(
                "internal error: MLIR could not translate the kernels to LLVM IR".into(),
            ));
        }
        LlvmModule::new(raw as _)
    };
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| Error::Codegen(e.to_string()))?;
    let (cpu, features) = if cpu == "native" {
        (
            TargetMachine::get_host_cpu_name().to_string(),
            TargetMachine::get_host_cpu_features().to_string(),
        )
    } else {
        (cpu.to_string(), String::new())
    };
    let machine = target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            OptimizationLevel::Aggressive,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| Error::Codegen(format!("no LLVM target machine for {triple}")))?;
    link_runtime_helpers(&context, &llvm_module)?;
    llvm_module.set_triple(&triple);
    llvm_module.set_data_layout(&machine.get_target_data().get_data_layout());
    llvm_module
        .verify()
        .map_err(|e| Error::Codegen(format!("internal error: invalid LLVM IR: {e}")))?;
    llvm_module
        .run_passes("default<O3>", &machine, PassBuilderOptions::create())
        .map_err(|e| Error::Codegen(format!("LLVM optimisation failed: {e}")))?;
    let llvm_ir = llvm_module.print_to_string().to_string();
    let object = machine
        .write_to_memory_buffer(&llvm_module, FileType::Object)
        .map_err(|e| Error::Codegen(format!("LLVM code generation failed: {e}")))?
        .as_slice()
        .to_vec();
    Ok(Native { llvm_ir, object })
}

/// The vector width the GEMM helpers are written for when compiling for
/// `cpu` (see [`crate::gemm::vector_bits`]).
pub fn vector_bits(cpu: &str) -> usize {
    let features = if cpu == "native" {
        TargetMachine::get_host_cpu_features().to_string()
    } else {
        String::new()
    };
    crate::gemm::vector_bits(cpu, &features)
}

/// The LLVM name of CPU `cpu`: this machine's (`znver4`, `skylake-avx512`)
/// for `native`, else `cpu` itself.
pub fn cpu_name(cpu: &str) -> String {
    if cpu == "native" {
        TargetMachine::get_host_cpu_name().to_string()
    } else {
        cpu.to_string()
    }
}

/// Whether `cpu` has AVX512-BF16 (see [`crate::gemm::has_bf16_dot`]).
pub fn has_bf16_dot(cpu: &str) -> bool {
    let features = if cpu == "native" {
        TargetMachine::get_host_cpu_features().to_string()
    } else {
        String::new()
    };
    crate::gemm::has_bf16_dot(cpu, &features)
}

/// What LLVM's x86 backend calls to round f32 to bf16 (every bf16
/// `fmul`/`fadd` is computed in f32 and rounded by it). compiler-rt and
/// libgcc from GCC 13 have it, older libgcc does not, and `kernels.so`
/// would fail to load with "undefined symbol: __truncsfbf2". Defined here,
/// compiled by the same backend that emits the calls (so the bf16 calling
/// convention agrees), and hidden, so it stays inside `kernels.so`. Round
/// to nearest, ties to even, as the interpreter's `half::bf16`; a NaN keeps
/// its sign and payload and becomes quiet, as compiler-rt's does.
const BF16_HELPERS: &str = r#"
define hidden bfloat @__truncsfbf2(float %x) {
  %bits = bitcast float %x to i32
  %nan = fcmp uno float %x, %x
  %high = lshr i32 %bits, 16
  %lsb = and i32 %high, 1
  %bias = add i32 %lsb, 32767
  %sum = add i32 %bits, %bias
  %rounded = lshr i32 %sum, 16
  %quiet = or i32 %high, 64
  %pick = select i1 %nan, i32 %quiet, i32 %rounded
  %half = trunc i32 %pick to i16
  %result = bitcast i16 %half to bfloat
  ret bfloat %result
}
"#;

/// The definition of the GEMM helpers' `vdpbf16ps` ([`crate::gemm::BF16_DOT`]),
/// linked only into modules that call it: compiled for a CPU without
/// AVX512-BF16 the intrinsic would not select.
const BF16_DOT_DEFINITION: &str = r#"
define hidden <16 x float> @coco_dpbf16ps(<16 x float> %acc, <32 x bfloat> %a, <32 x bfloat> %b) alwaysinline {
  %r = call <16 x float> @llvm.x86.avx512bf16.dpbf16ps.512(<16 x float> %acc, <32 x bfloat> %a, <32 x bfloat> %b)
  ret <16 x float> %r
}
declare <16 x float> @llvm.x86.avx512bf16.dpbf16ps.512(<16 x float>, <32 x bfloat>, <32 x bfloat>)
"#;

/// Adds [`BF16_HELPERS`] to `module`, and [`BF16_DOT_DEFINITION`] when it
/// calls it.
fn link_runtime_helpers<'c>(context: &'c LlvmContext, module: &LlvmModule<'c>) -> Result<()> {
    let mut text = BF16_HELPERS.to_string();
    if module.get_function(crate::gemm::BF16_DOT).is_some() {
        text.push_str(BF16_DOT_DEFINITION);
    }
    let buffer = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "helpers");
    let helpers = context
        .create_module_from_ir(buffer)
        .map_err(|e| Error::Codegen(format!("internal error: the bf16 helpers: {e}")))?;
    module
        .link_in_module(helpers)
        .map_err(|e| Error::Codegen(format!("internal error: linking the bf16 helpers: {e}")))
}

/// Links `object` into a shared library the executor can `dlopen`, with the
/// system C compiler driver (libm for the math functions kernels call, and
/// `libraries`, e.g. OpenBLAS for `--gemm library`).
pub fn link_shared(object: &Path, library: &Path, libraries: &[&str]) -> Result<()> {
    let output = std::process::Command::new("cc")
        .arg("-shared")
        .arg("-o")
        .arg(library)
        .arg(object)
        .arg("-lm")
        .args(libraries.iter().map(|l| format!("-l{l}")))
        .output()
        .map_err(|e| Error::Codegen(format!("cannot run the system linker `cc`: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let missing: Vec<&&str> = libraries
            .iter()
            .filter(|l| stderr.contains(&format!("-l{l}")))
            .collect();
        let hint = if missing.is_empty() {
            String::new()
        } else {
            // Debian names the development package after the library.
            format!(
                "\nnote: kernels.so links {}; install lib{}-dev (scripts/setup.sh does), or compile with --gemm generated",
                missing.iter().map(|l| format!("lib{l}")).collect::<Vec<_>>().join(", "),
                missing[0]
            )
        };
        return Err(Error::Codegen(format!(
            "linking {} failed:\n{stderr}{hint}",
            library.display(),
        )));
    }
    Ok(())
}
