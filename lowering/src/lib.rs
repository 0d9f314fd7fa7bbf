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

pub mod error;
pub mod kernel;
pub mod native;
pub mod partition;
pub mod pipelines;
pub mod ptx;

use std::{collections::HashMap, path::Path};

use coco_bundle::{plan::PtxTarget, Kernel, Plan, PLAN_FILE};
use coco_dialects::{
    coco::ops,
    ir::{as_op, body_ops, functions, location_text, op_name, str_attr},
};
use melior::{
    ir::{Module, Operation},
    Context,
};

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
    pub native: bool,
    pub ptx: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ranks: 1,
            entry: None,
            chip: "sm_90".into(),
            features: "+ptx80".into(),
            native: true,
            ptx: true,
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
}

fn entry_function<'c, 'a>(
    module: &'a Operation<'c>,
    entry: Option<&str>,
) -> Result<melior::ir::operation::OperationRef<'c, 'a>> {
    for op in body_ops(module) {
        if op_name(as_op(&op)) == ops::PROCESS_GROUP {
            return Err(Error::unsupported(
                location_text(as_op(&op).location()),
                "pipeline programs (coco.process_group) are not compiled yet; run them with --backend reference",
            ));
        }
    }
    let funcs = functions(module);
    let name = |op: &melior::ir::operation::OperationRef| {
        str_attr(as_op(op), "sym_name").unwrap_or_default()
    };
    match entry {
        Some(entry) => funcs
            .into_iter()
            .find(|f| name(f) == entry)
            .ok_or_else(|| Error::unsupported("the program", format!("no function @{entry}"))),
        None if funcs.len() == 1 => Ok(funcs[0]),
        None if funcs.is_empty() => {
            Err(Error::unsupported("the program", "no function to compile"))
        }
        None => Err(Error::unsupported(
            "the program",
            format!(
                "{} functions; choose one with --entry ({})",
                funcs.len(),
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
    let top = module.as_operation();
    let function = entry_function(&top, options.entry.as_deref())?;
    let function_op = as_op(&function);
    // SAFETY: the function lives as long as `module`, which outlives this call.
    let function_op: &Operation = unsafe { &*(function_op as *const Operation) };
    let stage_plan = partition::plan_function(function_op, options.ranks, 0)?;
    let values = partition::Values::new(function_op);

    let mut plan = Plan::new(source, options.ranks);
    let mut kernels_mlir = String::from("module {\n");
    let mut buffers = HashMap::new();
    // Identical kernels (the same layer repeated, with the same shapes) are
    // compiled once: launches of a copy use the first one's name.
    let mut canonical: HashMap<String, String> = HashMap::new();
    let mut renamed: HashMap<String, String> = HashMap::new();
    for unit in &stage_plan.kernels {
        let text = kernel::emit(unit, &values, options.ranks)?;
        let body = text.text.replacen(&format!("@{}(", text.name), "@(", 1);
        if let Some(first) = canonical.get(&body) {
            renamed.insert(text.name.clone(), first.clone());
            continue;
        }
        canonical.insert(body, text.name.clone());
        kernels_mlir.push_str(&text.text);
        buffers.insert(text.name.clone(), text.buffers);
        plan.kernels.push(Kernel {
            name: text.name,
            buffers: text.buffers,
            computes: text.computes,
            gpu_launches: Vec::new(),
            gpu_scratch: Vec::new(),
        });
    }
    kernels_mlir.push_str("}\n");
    let mut stage = stage_plan.stage;
    for step in &mut stage.steps {
        if let coco_bundle::Step::Launch { kernel, .. } = step {
            if let Some(first) = renamed.get(kernel) {
                *kernel = first.clone();
            }
        }
    }
    plan.stages.push(stage);

    let mut compiled = Compiled {
        plan,
        program: top.to_string(),
        kernels_mlir,
        llvm_ir: None,
        object: None,
        ptx: None,
    };
    if plan_has_kernels(&compiled.plan) && options.native {
        let mut cpu = pipelines::parse(context, &compiled.kernels_mlir, "CPU")?;
        pipelines::run(context, &mut cpu, &pipelines::cpu(), "CPU")?;
        let native = native::compile(&cpu)?;
        compiled.llvm_ir = Some(native.llvm_ir);
        compiled.object = Some(native.object);
        compiled.plan.native = Some("kernels.so".into());
    }
    if plan_has_kernels(&compiled.plan) && options.ptx {
        let ptx = ptx::compile(
            context,
            &compiled.kernels_mlir,
            &buffers,
            &options.chip,
            &options.features,
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
            });
        }
        compiled.ptx = ptx.assembly;
    }
    Ok(compiled)
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
        native::link_shared(&dir.join("kernels.o"), &dir.join("kernels.so"))?;
    }
    if let Some(ptx) = &compiled.ptx {
        write("kernels.ptx", ptx.as_bytes())?;
    }
    write(PLAN_FILE, compiled.plan.to_text().as_bytes())
}
