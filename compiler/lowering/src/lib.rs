//! coco programs to code people run: kernels through upstream MLIR to native
//! objects and PTX, and the execution plan the runtime follows.
//!
//! ```text
//! coco function ──partition──▶ kernels (ops) + steps (collectives, copies)
//! kernels ──kernel::emit──▶ linalg/tensor/arith/math func.funcs
//!          ──pipelines::cpu──▶ LLVM dialect ──native──▶ LLVM IR, object, .so
//!          ──pipelines::gpu_*──▶ gpu.module ─▶ NVVM ─▶ PTX (+ launch list)
//! steps ─────────────────────────────▶ plan.toml (coco-bundle)
//! ```
//!
//! Communication never becomes code: it is a plan step the runtime carries
//! out with MPI or NCCL, so one compiled program runs on either backend.
//! This crate depends on `coco-dialects` and `coco-bundle` only.

mod bool_memory;
pub mod cuda_toolkit;
pub mod error;
mod fused_collective;
pub mod gemm;
pub mod ir;
pub mod kernel;
pub mod native;
pub mod partition;
pub mod pipelines;
pub mod ptx;
pub mod ptxas;
mod units;

use std::{
    collections::{HashMap, HashSet},
    path::Path,
};

use coco_bundle::{plan::PtxTarget, Kernel, Plan, PLAN_FILE};
use coco_dialects::{
    coco::ops,
    ir::{as_op, body_ops, functions, int_attr, location_text, op_name, str_attr, symbol_attr},
};
use kernel::Target;
use melior::{
    ir::{Module, Operation},
    Context,
};

pub use cuda_toolkit::CudaToolkit;
pub use error::{Error, Result};

/// What to produce.
#[derive(Clone, Debug)]
pub struct Options {
    /// World size: local shapes, and so kernels, depend on it.
    pub ranks: usize,
    /// The function to compile when the program has several.
    pub entry: Option<String>,
    /// CUDA compute capability, `sm_70` to `sm_90`.
    pub chip: String,
    /// PTX ISA version as an LLVM feature (`+ptx80`).
    pub features: String,
    /// The CPU the native kernels are compiled for: `native` (this
    /// machine's CPU and features) or an LLVM CPU name (`x86-64-v3`,
    /// `skylake-avx512`, `generic`) for bundles that run elsewhere.
    pub cpu: String,
    pub native: bool,
    pub ptx: bool,
    /// How `coco.fused_collective` regions run.
    pub fused_collectives: FusedCollectives,
    /// Where libdevice comes from (`--cuda-path`); without one, GPU math
    /// uses coco's fallback PTX.
    pub cuda_toolkit: Option<CudaToolkit>,
    /// The order of the native kernels' reductions (`--cpu-reductions`).
    pub cpu_reductions: ReductionOrder,
    /// How the native kernels compute float matmuls (`--gemm`).
    pub gemm: gemm::Route,
    /// How their products are accumulated (`--gemm-arithmetic`).
    pub gemm_arithmetic: gemm::Arithmetic,
    /// Measured blockings for GEMMs without `coco.tile` (`--gemm-tiles`).
    pub gemm_tiles: gemm::tuned::TileTable,
}

/// How native (CPU) kernels order a whole-tensor or row reduction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReductionOrder {
    /// The reference interpreter's, bit for bit: whole-tensor float sums
    /// in the blocked order (`coco_dialects::coco::summation`), rows and
    /// min/max in index order.
    #[default]
    Interpreter,
    /// Every reduction in index order, one loop-carried chain: the order
    /// before the blocked one, kept as the baseline of
    /// `bench/reductions.sh` (long f32 sums round more, and do not
    /// vectorise).
    IndexOrder,
    /// The GPU's tree order (docs/gpu.md, "GPU reductions"), its
    /// cross-thread stage as a loop: the GPU kernels' indexing runs on a
    /// CPU, and long sums round less.
    Tree,
}

/// How a `coco.fused_collective` region runs (`--fused-collectives`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FusedCollectives {
    /// One kernel per fused computation that reads and writes the peers'
    /// buffers itself (`Step::PeerLaunch`, see `fused_collective`): the CPU
    /// backend runs it over a shared-memory window.
    #[default]
    Peer,
    /// Collective steps around the kernels (MPI or NCCL collectives): what
    /// the CUDA backend runs.
    Steps,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ranks: 1,
            entry: None,
            chip: "sm_90".into(),
            features: "+ptx80".into(),
            cpu: "native".into(),
            native: true,
            ptx: true,
            fused_collectives: FusedCollectives::default(),
            cuda_toolkit: None,
            cpu_reductions: ReductionOrder::default(),
            gemm: gemm::Route::default(),
            gemm_arithmetic: gemm::Arithmetic::default(),
            gemm_tiles: gemm::tuned::TileTable::default(),
        }
    }
}

/// The chips the NVPTX backend of LLVM 19 targets that coco supports.
pub const CHIPS: &[&str] = &[
    "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90",
];

/// A compiled program.
pub struct Compiled {
    pub plan: Plan,
    /// The coco program compiled, as text (the bundle keeps it so that
    /// `coco-run --check` can run the reference interpreter on a bundle).
    pub program: String,
    /// Every kernel as upstream MLIR before lowering.
    pub kernels_mlir: String,
    pub llvm_ir: Option<String>,
    pub object: Option<Vec<u8>>,
    pub ptx: Option<String>,
    /// Shared libraries `kernels.so` links (`openblas` under `--gemm
    /// library`).
    pub libraries: Vec<&'static str>,
    /// The distinct CPU GEMMs the native kernels compute (what
    /// `--tune-gemms` measures).
    pub gemms: Vec<gemm::Gemm>,
}

/// A function the program runs and the ranks it runs on.
struct Entry<'c, 'a> {
    function: melior::ir::operation::OperationRef<'c, 'a>,
    /// The process group it runs on, if any.
    group: Option<String>,
}

/// The functions to compile, in plan-stage order: every function on a
/// process group (by stage), or the only function, or `--entry`.
fn entries<'c, 'a>(
    module: &'a Operation<'c>,
    entry: Option<&str>,
) -> Result<(Vec<Entry<'c, 'a>>, usize)> {
    let funcs = functions(module);
    let name = |op: &melior::ir::operation::OperationRef| {
        str_attr(as_op(op), "sym_name").unwrap_or_default()
    };
    if let Some(entry) = entry {
        let function = funcs
            .into_iter()
            .find(|f| name(f) == entry)
            .ok_or_else(|| Error::unsupported("the program", format!("no function @{entry}")))?;
        return Ok((
            vec![Entry {
                function,
                group: None,
            }],
            1,
        ));
    }
    let mut stages: HashMap<String, (i64, i64)> = HashMap::new();
    for op in body_ops(module) {
        let op = as_op(&op);
        if op_name(op) == ops::PROCESS_GROUP {
            stages.insert(
                str_attr(op, "sym_name").unwrap_or_default(),
                (
                    int_attr(op, "stage").unwrap_or(0),
                    int_attr(op, "num_stages").unwrap_or(1),
                ),
            );
        }
    }
    if !stages.is_empty() {
        let num_stages = stages.values().map(|s| s.1).max().unwrap_or(1).max(1) as usize;
        let mut entries: Vec<(i64, Entry)> = funcs
            .into_iter()
            .filter_map(|function| {
                let group = symbol_attr(as_op(&function), ops::GROUP_ATTR)?;
                let stage = stages.get(&group)?.0;
                Some((
                    stage,
                    Entry {
                        function,
                        group: Some(group),
                    },
                ))
            })
            .collect();
        entries.sort_by_key(|e| e.0);
        return Ok((entries.into_iter().map(|e| e.1).collect(), num_stages));
    }
    match funcs.len() {
        1 => Ok((
            vec![Entry {
                function: funcs[0],
                group: None,
            }],
            1,
        )),
        0 => Err(Error::unsupported("the program", "no function to compile")),
        n => Err(Error::unsupported(
            "the program",
            format!(
                "{n} functions; choose one with --entry ({})",
                funcs
                    .iter()
                    .map(|f| format!("@{}", name(f)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// Compiles the verified coco `module` for `options.ranks` ranks.
pub fn compile(
    context: &Context,
    module: &Module,
    source: &str,
    options: &Options,
) -> Result<Compiled> {
    if options.ranks == 0 {
        return Err(Error::unsupported(
            "--ranks",
            "the world needs at least one rank",
        ));
    }
    if !CHIPS.contains(&options.chip.as_str()) {
        return Err(Error::unsupported(
            "--chip",
            format!(
                "unknown chip '{}' (expected one of {})",
                options.chip,
                CHIPS.join(", ")
            ),
        ));
    }
    ptx::check_version(&options.chip, &options.features)?;
    let top = module.as_operation();
    let (entries, num_stages) = entries(&top, options.entry.as_deref())?;
    if options.entry.is_none() {
        if let Some((location, message)) =
            coco_dialects::coco::world::stage_split_error(&top, options.ranks)
        {
            return Err(Error::unsupported(location, message));
        }
    }
    if let Some((location, message)) =
        coco_dialects::coco::world::mesh_size_error(&top, options.ranks)
    {
        return Err(Error::unsupported(location, message));
    }
    let group_size = if num_stages > 1 {
        options.ranks / num_stages
    } else {
        options.ranks
    };
    // Every stage's ranks as the program's mesh, or one flat axis.
    let group = coco_dialects::coco::Mesh::of_group(&top, group_size);
    let peers: HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.group.clone().map(|g| (g, i)))
        .collect();

    let mut plan = Plan::new(source, options.ranks);
    let mut kernels_mlir = String::from("module {\n");
    // The GPU's kernels differ where a reduction becomes a tree.
    let mut gpu_kernels_mlir = String::from("module {\n");
    let mut buffers = HashMap::new();
    // Identical kernels (the same layer repeated, with the same shapes) are
    // compiled once: launches of a copy use the first one's name.
    let mut canonical: HashMap<String, String> = HashMap::new();
    // GEMM helpers, each written once whatever the kernels that call it.
    let mut helpers: HashSet<String> = HashSet::new();
    let vector_bits = native::vector_bits(&options.cpu);
    // f32 elements per vector register: element-wise and row vectorisation.
    let lanes = vector_bits / 32;
    let cpu_target = Target::Cpu {
        reductions: options.cpu_reductions,
        gemm: (options.gemm != gemm::Route::Loops).then(|| gemm::CpuGemm {
            library: options.gemm == gemm::Route::Library,
            gpu_tiles: options.gemm == gemm::Route::GpuTiles,
            vector_bits,
            arithmetic: options.gemm_arithmetic,
            bf16_dot: native::has_bf16_dot(&options.cpu),
        }),
        lanes,
    };
    // cuBLAS is not a route yet: under `--gemm library` the GPU's GEMMs
    // are the generated tiles too.
    let gpu_target = Target::Gpu {
        gemm: (options.gemm != gemm::Route::Loops).then_some(options.gemm_arithmetic),
    };
    let cpu_name = native::cpu_name(&options.cpu);
    let tuning = gemm::tuned::Tuning {
        table: &options.gemm_tiles,
        cpu: &cpu_name,
    };
    let mut gemms: Vec<gemm::Gemm> = Vec::new();
    let mut renamed: HashMap<String, String> = HashMap::new();
    for (index, entry) in entries.iter().enumerate() {
        let function_op = as_op(&entry.function);
        // SAFETY: the function lives as long as `module`, which outlives this call.
        let function_op: &Operation = unsafe { &*(function_op as *const Operation) };
        // Inputs and outputs are files named after the function.
        let function_name = str_attr(function_op, "sym_name").unwrap_or_default();
        coco_bundle::check_file_name(&function_name).map_err(|e| {
            Error::unsupported(
                location_text(function_op.location()),
                format!("@{function_name} names the program's input and output files, but {e}"),
            )
        })?;
        let stage_plan = partition::plan_function(
            function_op,
            &group,
            index * group_size,
            &peers,
            options.fused_collectives,
        )?;
        let values = ir::Values::new(function_op);
        let mut stage = stage_plan.stage;
        let mut texts = Vec::new();
        for unit in &stage_plan.kernels {
            let binding = bind(&mut stage, &unit.name);
            let text = kernel::emit(unit, &values, &group, &binding, cpu_target, tuning)?;
            let gpu = if options.ptx {
                kernel::emit(unit, &values, &group, &binding, gpu_target, tuning)?.text
            } else {
                String::new()
            };
            texts.push((text, gpu));
        }
        for chunk in &stage_plan.matmul_chunks {
            let binding = bind(&mut stage, &chunk.name);
            let text = kernel::matmul_chunk(chunk, &binding, cpu_target, tuning);
            let gpu = if options.ptx {
                kernel::matmul_chunk(chunk, &binding, gpu_target, tuning).text
            } else {
                String::new()
            };
            texts.push((text, gpu));
        }
        for (text, gpu) in texts {
            for gemm in &text.gemms {
                if !gemms.contains(gemm) {
                    gemms.push(*gemm);
                }
            }
            for (symbol, helper) in &text.helpers {
                if helpers.insert(symbol.clone()) {
                    kernels_mlir.push_str(helper);
                }
            }
            let body = text.text.replacen(&format!("@{}(", text.name), "@(", 1);
            if let Some(first) = canonical.get(&body) {
                renamed.insert(text.name.clone(), first.clone());
                continue;
            }
            canonical.insert(body, text.name.clone());
            kernels_mlir.push_str(&text.text);
            gpu_kernels_mlir.push_str(&gpu);
            buffers.insert(text.name.clone(), text.buffers.len());
            plan.kernels.push(Kernel {
                name: text.name,
                buffers: text.buffers,
                computes: text.computes,
                gpu_launches: Vec::new(),
                gpu_scratch: Vec::new(),
            });
        }
        for step in &mut stage.steps {
            if let coco_bundle::Step::Launch { kernel, .. }
            | coco_bundle::Step::PeerLaunch { kernel, .. } = step
            {
                if let Some(first) = renamed.get(kernel) {
                    *kernel = first.clone();
                }
            }
        }
        plan.stages.push(stage);
    }
    kernels_mlir.push_str("}\n");
    gpu_kernels_mlir.push_str("}\n");

    let mut compiled = Compiled {
        plan,
        program: top.to_string(),
        kernels_mlir,
        llvm_ir: None,
        object: None,
        ptx: None,
        libraries: if helpers.contains(gemm::blas::THREADS) {
            vec![gemm::blas::LIBRARY]
        } else {
            Vec::new()
        },
        gemms,
    };
    if plan_has_kernels(&compiled.plan) && options.native {
        let text = pipelines::with_row_reductions(&compiled.kernels_mlir, lanes);
        let mut cpu = pipelines::parse(context, &text, "CPU")?;
        pipelines::run(context, &mut cpu, &pipelines::cpu_bufferize(), "CPU")?;
        gemm::calls::outline(context, &cpu)?;
        pipelines::run(context, &mut cpu, &pipelines::cpu_to_llvm(lanes), "CPU")?;
        bool_memory::widen(context, &cpu)?;
        let native = native::compile(&cpu, &options.cpu)?;
        compiled.llvm_ir = Some(native.llvm_ir);
        compiled.object = Some(native.object);
        compiled.plan.native = Some("kernels.so".into());
    }
    if plan_has_kernels(&compiled.plan) && options.ptx {
        let ptx = ptx::compile(
            context,
            &gpu_kernels_mlir,
            &buffers,
            &options.chip,
            &options.features,
            options.cuda_toolkit.as_ref(),
        )?;
        for kernel in &mut compiled.plan.kernels {
            if let Some((launches, scratch)) = ptx.launches.get(&kernel.name) {
                kernel.gpu_launches = launches.clone();
                kernel.gpu_scratch = scratch.clone();
            }
        }
        if ptx.assembly.is_some() {
            compiled.plan.ptx = Some(PtxTarget {
                file: "kernels.ptx".into(),
                chip: options.chip.clone(),
                features: options.features.clone(),
                libdevice: options.cuda_toolkit.is_some(),
                // Recorded by `write_bundle`, once the file is written.
                digest: None,
            });
        }
        compiled.ptx = ptx.assembly;
    }
    // A mesh stage's plan says what a flat one leaves implicit, so that
    // the executor can refuse an edit that deleted it (docs/bundle.md).
    for stage in &mut compiled.plan.stages {
        stage.spell_out_mesh();
    }
    // What the executor would refuse is refused here, where it can be
    // fixed.
    compiled
        .plan
        .validate()
        .map_err(|e| Error::unsupported(source, format!("the compiled plan is invalid: {e}")))?;
    Ok(compiled)
}

/// The parameters of kernel `name` from its launch: a buffer passed twice
/// (an output computed in place) becomes one parameter, and the launch
/// passes each buffer once.
fn bind(stage: &mut coco_bundle::Stage, name: &str) -> kernel::Binding {
    let base = |buffer: &str| -> String {
        stage
            .buffers
            .iter()
            .find(|b| b.name == buffer)
            .and_then(|b| b.view.as_ref().map(|v| v.of.clone()))
            .unwrap_or_else(|| buffer.to_string())
    };
    let Some(buffers) = stage.steps.iter().find_map(|s| match s {
        coco_bundle::Step::Launch {
            kernel, buffers, ..
        }
        | coco_bundle::Step::PeerLaunch {
            kernel, buffers, ..
        } if kernel == name => Some(buffers.clone()),
        _ => None,
    }) else {
        return kernel::Binding {
            parameter: Vec::new(),
            noalias: Vec::new(),
        };
    };
    let parameter: Vec<usize> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| buffers[..i].iter().position(|x| x == b).unwrap_or(i))
        .collect();
    let bases: Vec<String> = buffers.iter().map(|b| base(b)).collect();
    let noalias = (0..buffers.len())
        .map(|i| {
            bases
                .iter()
                .enumerate()
                .all(|(j, other)| buffers[j] == buffers[i] || *other != bases[i])
        })
        .collect();
    // Every launch of the kernel (one per chunk of an overlap region)
    // passes its own buffers in the same pattern.
    for step in &mut stage.steps {
        if let coco_bundle::Step::Launch {
            kernel, buffers, ..
        }
        | coco_bundle::Step::PeerLaunch {
            kernel, buffers, ..
        } = step
        {
            if kernel == name {
                *buffers = buffers
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| parameter.get(*i) == Some(i))
                    .map(|(_, b)| b.clone())
                    .collect();
            }
        }
    }
    kernel::Binding { parameter, noalias }
}

fn plan_has_kernels(plan: &Plan) -> bool {
    !plan.kernels.is_empty()
}

/// The coco program inside a bundle.
pub const PROGRAM_FILE: &str = "program.mlir";

/// Writes `compiled` as a bundle directory (see `coco_bundle`).
pub fn write_bundle(compiled: &Compiled, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let write = |name: &str, bytes: &[u8]| -> Result<()> {
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| Error::io(&path, e))
    };
    write(PROGRAM_FILE, compiled.program.as_bytes())?;
    write("kernels.mlir", compiled.kernels_mlir.as_bytes())?;
    if let Some(ir) = &compiled.llvm_ir {
        write("kernels.ll", ir.as_bytes())?;
    }
    if let Some(object) = &compiled.object {
        write("kernels.o", object)?;
        native::link_shared(
            &dir.join("kernels.o"),
            &dir.join("kernels.so"),
            &compiled.libraries,
        )?;
    }
    if let Some(ptx) = &compiled.ptx {
        write("kernels.ptx", ptx.as_bytes())?;
    }
    // The plan pins the files the executor loads (kernels.so, kernels.ptx).
    let mut plan = compiled.plan.clone();
    plan.record_digests(dir).map_err(|e| Error::io(dir, e))?;
    write(PLAN_FILE, plan.to_text().as_bytes())
}
