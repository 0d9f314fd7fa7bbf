//! The upstream pass pipelines kernels go through, in one place, and the one
//! way they are run. The routes are pinned by `test/lowering/*.mlir`, which
//! run the same pipelines through `coco-opt`.

use std::path::Path;

use coco_dialects::{diagnostics::DiagnosticCollector, parse_module};
use melior::{
    ir::{Module, Operation},
    pass::PassManager,
    utility::parse_pass_pipeline,
    Context,
};

use crate::{
    error::{Error, Result},
    kernel::ROW_REDUCTION_ATTR,
};

/// Destination-passing tensors to memrefs, writing into the output buffers.
const BUFFERIZE: &str = "eliminate-empty-tensors,one-shot-bufferize,canonicalize";

/// `kernels` (a module's text) with the transform script that vectorises
/// the row reductions marked `coco.row_reduction` across rows, for
/// [`cpu_bufferize`]'s `transform-interpreter`: each `lanes x lanes`
/// tile of a reduction becomes vector ops, and its `vector.multi_reduction`
/// is lowered "inner-reduction": one `vector.reduction` per row starting
/// from the row's sum so far, which LLVM keeps ordered (no `reassoc`), so
/// sums keep the interpreter's order. The element-wise work, the
/// bulk of a softmax, runs on whole vectors. The script is private, and
/// `symbol-dce` drops it after it has run.
pub fn with_row_reductions(kernels: &str, lanes: usize) -> String {
    let script = format!(
        "  transform.named_sequence private @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{\n\
         \x20   %g = transform.structured.match ops{{[\"linalg.generic\"]}} attributes {{{ROW_REDUCTION_ATTR}}} in %root : (!transform.any_op) -> !transform.any_op\n\
         \x20   %t, %l:2 = transform.structured.tile_using_for %g tile_sizes [{lanes}, {lanes}] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)\n\
         \x20   transform.structured.vectorize %t : !transform.any_op\n\
         \x20   %f = transform.structured.match ops{{[\"func.func\"]}} in %root : (!transform.any_op) -> !transform.any_op\n\
         \x20   transform.apply_patterns to %f {{\n\
         \x20     transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = \"innerreduction\"\n\
         \x20   }} : !transform.any_op\n\
         \x20   transform.yield\n\
         \x20 }}\n"
    );
    let body = kernels
        .strip_prefix("module {\n")
        .and_then(|rest| rest.strip_suffix("}\n"))
        .unwrap_or(kernels);
    format!("module attributes {{transform.with_named_sequence}} {{\n{body}{script}}}\n")
}

/// Kernels on memrefs, writing into the output buffers. The CPU GEMMs'
/// `linalg.matmul`s become helper calls after this (`gemm::calls`).
pub fn cpu_bufferize() -> String {
    format!("builtin.module(transform-interpreter,symbol-dce,{BUFFERIZE})")
}

/// Bufferized kernels as loops in the LLVM dialect with bare-pointer
/// arguments (the bundle's native ABI: `void k(void *b0, ..., int64_t
/// rank)`). `buffer-deallocation-pipeline` frees each kernel's (and GEMM
/// helper's) temporaries before it returns (bufferization alone would leak
/// them at every launch). Element-wise linalg ops become affine loops whose
/// innermost parallel loop `affine-super-vectorize` turns into `lanes`-wide
/// vector ops (LLVM's own loop vectorizer leaves many of them scalar, bf16
/// conversions for one); loops that carry a reduction stay scalar, so sums
/// keep the interpreter's order. Loops of one iteration (a reduction over
/// dimensions of size 1) are inlined first (`affine-loop-unroll` with
/// `unroll-full-threshold=1`): the vectorizer finds no dependence carried
/// by such a loop, takes it for a parallel one, and vectorises the
/// accumulator's store, which does not vary along it, into an invalid
/// broadcasting `vector.transfer_write`. Math ops become LLVM intrinsics or libm
/// calls before the vector lowering: libm's are scalar, so a vector op
/// becomes one call per lane through `vector.extract`s that
/// `convert-vector-to-llvm` must still see. `expand-strided-metadata` emits
/// `affine.apply` for dynamic slice offsets, so `lower-affine` comes after
/// it. Vector transfers that run past a dimension's end become masked or
/// `scf` code first, the rest LLVM vector intrinsics. The GEMM helpers are
/// inlined into their callers first: bare-pointer arguments need static
/// layouts, and the helpers take any row-major view.
pub fn cpu_to_llvm(lanes: usize) -> String {
    format!(
        "builtin.module(inline,symbol-dce,buffer-deallocation-pipeline,\
         func.func(convert-linalg-to-affine-loops,affine-loop-unroll{{unroll-full unroll-full-threshold=1}},\
         affine-super-vectorize{{virtual-vector-size={lanes}}}),\
         convert-math-to-llvm,convert-math-to-libm,\
         convert-vector-to-scf,expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-vector-to-llvm,\
         finalize-memref-to-llvm,convert-arith-to-llvm,\
         convert-index-to-llvm,convert-func-to-llvm{{use-bare-ptr-memref-call-conv=1}},convert-cf-to-llvm,\
         reconcile-unrealized-casts)"
    )
}

/// Kernels as outlined `gpu.func`s: parallel loops tiled into blocks of
/// `64`, `64x4` or `64x4x4` threads by their rank (the tiling pass takes one
/// size list for every loop; element-wise code is 1-D, so it gets 64-thread
/// blocks, which still fill an SM), one iteration per thread, with bound
/// checks instead of `affine.min` so that sizes need not divide.
pub fn gpu_outline() -> String {
    format!(
        "builtin.module({BUFFERIZE},func.func(convert-linalg-to-parallel-loops,\
         scf-parallel-loop-tiling{{parallel-loop-tile-sizes=64,4,4 no-min-max-bounds=true}},gpu-map-parallel-loops,\
         convert-parallel-loops-to-gpu),lower-affine,canonicalize,\
         gpu-launch-sink-index-computations,gpu-kernel-outlining,canonicalize)"
    )
}

/// Outlined GPU modules to the NVVM dialect. `convert-gpu-to-nvvm` turns
/// math ops into libdevice calls (`__nv_expf`), which exist for f32 and
/// f64 only: `math-legalize-to-f32` first computes f16 and bf16 math in
/// f32 and rounds back, as the interpreter does (MLIR 19's lowering
/// extends f16 itself but not bf16, whose `math.exp` failed to translate).
pub fn gpu_to_nvvm(chip: &str, features: &str) -> String {
    format!(
        "builtin.module(nvvm-attach-target{{chip={chip} features={features}}},\
         gpu.module(convert-scf-to-cf,math-legalize-to-f32,convert-gpu-to-nvvm{{use-bare-ptr-memref-call-conv=1}},\
         reconcile-unrealized-casts))"
    )
}

/// NVVM modules to PTX (`gpu.binary` with the assembly): with a `toolkit`
/// folder, `gpu-module-to-binary` links its
/// `nvvm/libdevice/libdevice.10.bc` (only what the kernels call), else
/// MLIR looks at `CUDA_ROOT`/`CUDA_HOME`/`CUDA_PATH` itself and, finding
/// nothing, leaves the calls to `ptx::merge`'s fallback definitions.
pub fn nvvm_to_ptx(toolkit: Option<&Path>) -> String {
    let toolkit = toolkit.map_or(String::new(), |t| format!(" toolkit={}", t.display()));
    format!("builtin.module(gpu-module-to-binary{{format=isa{toolkit}}})")
}

/// Parses generated kernel IR; a failure is a lowering bug.
pub fn parse<'c>(context: &'c Context, text: &str, stage: &str) -> Result<Module<'c>> {
    let diagnostics = DiagnosticCollector::attach(context);
    parse_module(context, text, "<generated kernels>").ok_or_else(|| Error::Upstream {
        stage: stage.into(),
        diagnostics: render(&diagnostics, text),
    })
}

/// Runs `pipeline` on `module`.
pub fn run(context: &Context, module: &mut Module, pipeline: &str, stage: &str) -> Result<()> {
    let diagnostics = DiagnosticCollector::attach(context);
    let manager = PassManager::new(context);
    parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline).map_err(|e| {
        Error::Upstream {
            stage: stage.into(),
            diagnostics: format!("bad pipeline {pipeline}: {e}"),
        }
    })?;
    manager.run(module).map_err(|_| Error::Upstream {
        stage: stage.into(),
        diagnostics: format!(
            "{}\npipeline: {pipeline}",
            render(&diagnostics, &module.as_operation().to_string())
        ),
    })
}

fn render(diagnostics: &DiagnosticCollector, ir: &str) -> String {
    let mut text: Vec<String> = diagnostics.take().iter().map(|d| d.to_string()).collect();
    if std::env::var_os("COCO_DUMP_KERNELS").is_some() {
        text.push(ir.to_string());
    } else {
        text.push("(set COCO_DUMP_KERNELS=1 to print the kernel IR)".into());
    }
    text.join("\n")
}

/// The module as text (for `--emit=kernels` and bug reports).
pub fn print(op: &Operation) -> String {
    op.to_string()
}
