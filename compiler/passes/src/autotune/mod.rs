//! The autotuner: enumerates CoCoNet's schedule space for a program, costs
//! every candidate with the model of [`cost`] on a [`machine::Machine`], and
//! picks the cheapest. Each candidate is a textual pipeline of coco passes,
//! so the choice can be printed, replayed and differentially tested.

pub mod cost;
pub mod machine;
pub mod optimize;

use coco_dialects::{
    coco::{ops, world::world_size_problem, DistTensor, Layout},
    diagnostics::{DiagnosticCollector, Severity},
    ir::{as_op, body_ops, function_signature, int_attr, nested_ops, op_name},
};
use melior::{
    ir::{Module, Operation, ValueLike},
    Context,
};

use self::{
    cost::{CostModel, Estimate},
    machine::Machine,
};
use coco_pass::{manager, pipeline};

use crate::{registry::REGISTRY, Result};

/// One point of the schedule space.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// CoCoNet's name for the schedule.
    pub schedule: String,
    /// The coco-opt pipeline that produces it (inside `builtin.module(...)`).
    pub pipeline: String,
    pub estimate: Estimate,
    /// Why the schedule cannot run at the planned rank count (a sliced
    /// dimension the ranks do not divide), if it cannot: such a candidate
    /// is reported but never chosen.
    pub rejected: Option<String>,
}

/// Every pipeline of the schedule space: whether to split and reorder,
/// whether to slice inputs, what to fuse, and overlap chunk counts, with a
/// nominal name (the report names each candidate by the IR it produced).
pub fn schedule_space() -> Vec<(String, String)> {
    let bases = [
        ("AR_C", ""),
        ("RS_AG_C", "coco-split,canonicalize,cse"),
        ("RS_C_AG", "coco-split,coco-reorder,canonicalize,cse"),
        (
            "RS_C_AG+as-slice",
            "coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize",
        ),
        (
            "RS_C_AG+partial-reduce",
            "coco-split,coco-reorder,canonicalize,cse,coco-partial-reduce,canonicalize,cse",
        ),
        (
            "RS_C_AG+as-slice+partial-reduce",
            "coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-partial-reduce,canonicalize,cse",
        ),
    ];
    let fusions = [
        ("", ""),
        ("fuse-kernels", "coco-fuse{collectives=false}"),
        ("fuse", "coco-fuse"),
    ];
    let overlaps = [0, 2, 4, 8];
    let mut space = Vec::new();
    for (base_name, base) in bases {
        for (fuse_name, fuse) in fusions {
            for chunks in overlaps {
                let mut parts: Vec<String> = Vec::new();
                for part in [base, fuse] {
                    if !part.is_empty() {
                        parts.push(part.to_string());
                    }
                }
                let mut schedule = if fuse_name.is_empty() {
                    base_name.to_string()
                } else {
                    format!("{fuse_name}({base_name})")
                };
                if chunks > 0 {
                    parts.push(format!("coco-overlap{{chunks={chunks}}}"));
                    schedule = format!("overlap(MM, {schedule}) x{chunks}");
                }
                space.push((schedule, parts.join(",")));
            }
        }
    }
    space
}

/// CoCoNet's name for the schedule a transformed module implements, read
/// from the IR itself.
fn schedule_name(module: &Operation, original: &Operation) -> String {
    let names: Vec<String> = nested_ops(module)
        .iter()
        .map(|o| op_name(as_op(o)))
        .collect();
    let has = |n: &str| names.iter().any(|x| x == n);
    // Computations on the slices a reduce_scatter produced (C between RS
    // and AG), as opposed to slices that were always there.
    let mut frontier: Vec<mlir_sys::MlirValue> = nested_ops(module)
        .iter()
        .filter(|o| op_name(as_op(o)) == ops::REDUCE_SCATTER)
        .filter_map(|o| as_op(o).result(0).ok().map(|r| r.to_raw()))
        .collect();
    let mut computes_on_slices = false;
    let mut seen = std::collections::HashSet::new();
    while let Some(value) = frontier.pop() {
        if !seen.insert(value.ptr as usize) {
            continue;
        }
        // SAFETY: walking use lists of live values.
        let value = unsafe { melior::ir::Value::from_raw(value) };
        for user in coco_dialects::rewrite::users(value) {
            // SAFETY: users are live ops.
            let user = unsafe { melior::ir::operation::OperationRef::from_raw(user) };
            let op = as_op(&user);
            let name = op_name(op);
            // Any computation, a cast included: mixed precision reads the
            // f16 slices through coco.cast before the f32 update.
            if ops::is_computation(&name) {
                computes_on_slices = true;
                frontier.extend(op.results().map(|r| r.to_raw()));
            } else if name == ops::YIELD {
                // Through a region boundary: follow the region op's results.
                if let Some(parent) = op.parent_operation() {
                    frontier.extend(as_op(&parent).results().map(|r| r.to_raw()));
                }
            }
        }
    }
    let mut base = if has(ops::REDUCE_SCATTER) {
        if computes_on_slices {
            "RS_C_AG"
        } else {
            "RS_AG_C"
        }
        .to_string()
    } else if has(ops::ALL_REDUCE) {
        "AR_C".to_string()
    } else {
        // No all_reduce to schedule: the program's own collectives, if any.
        "as-written".to_string()
    };
    let sliced_inputs = |m: &Operation| -> usize {
        body_ops(m)
            .iter()
            .filter_map(|f| function_signature(as_op(f)))
            .flat_map(|(inputs, _)| inputs)
            .filter(|t| {
                DistTensor::from_type(*t).is_some_and(|t| t.layout.is_some_and(Layout::is_sliced))
            })
            .count()
    };
    if sliced_inputs(module) > sliced_inputs(original) {
        base.push_str("+as-slice");
    }
    // Norms and reductions computed from per-slice partial results: one
    // scalar all_reduce each, beyond those the program was written with.
    let scalar_all_reduces = |m: &Operation| -> usize {
        nested_ops(m)
            .iter()
            .map(as_op)
            .filter(|o| op_name(o) == ops::ALL_REDUCE)
            .filter(|o| {
                o.result(0)
                    .ok()
                    .and_then(|r| DistTensor::from_type(r.r#type()))
                    .is_some_and(|t| t.rank() == 0)
            })
            .count()
    };
    if scalar_all_reduces(module) > scalar_all_reduces(original) {
        base.push_str("+partial-reduce");
    }
    if has(ops::FUSED_COLLECTIVE) {
        base = format!("fuse({base})");
    } else if has(ops::FUSED_KERNEL) {
        base = format!("fuse-kernels({base})");
    }
    if let Some(overlap) = nested_ops(module)
        .iter()
        .find(|o| op_name(as_op(o)) == ops::OVERLAP)
    {
        base = format!(
            "overlap(MM, {base}) x{}",
            int_attr(as_op(overlap), "chunks").unwrap_or(1)
        );
    }
    base
}

/// Applies `pipeline` to a copy of `module`; returns the schedule it
/// produced, its printed IR, its cost and why it cannot run at the model's
/// rank count (if it cannot).
fn evaluate(
    context: &Context,
    module: &Module,
    pipeline_text: &str,
    model: &CostModel,
) -> Result<(String, String, Estimate, Option<String>)> {
    // SAFETY: the clone is a fresh, detached module op owned by `copy`.
    let copy = unsafe {
        Operation::from_raw(mlir_sys::mlirOperationClone(module.as_operation().to_raw()))
    };
    let mut copy = Module::from_operation(copy).ok_or_else(|| coco_pass::Error::Pipeline {
        pipeline: pipeline_text.into(),
        message: "cannot copy the module".into(),
    })?;
    if !pipeline_text.is_empty() {
        // Remarks about candidates are not the user's concern; errors are.
        let diagnostics = DiagnosticCollector::attach(context);
        let elements = pipeline::parse(pipeline_text)?;
        let manager = manager::pass_manager(context, &REGISTRY, &elements, pipeline_text)?;
        if manager.run(&mut copy).is_err() {
            let errors: Vec<String> = diagnostics
                .take()
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| d.to_string())
                .collect();
            return Err(coco_pass::Error::Pipeline {
                pipeline: pipeline_text.into(),
                message: errors.join("; "),
            }
            .into());
        }
    }
    let copy_op = copy.as_operation();
    let original = module.as_operation();
    let rejected = world_size_problem(&copy_op, model.ranks)
        .map(|(location, message)| format!("{location}: {message}"));
    Ok((
        schedule_name(&copy_op, &original),
        copy_op.to_string(),
        model.estimate(&copy_op),
        rejected,
    ))
}

/// Every candidate costed on `machine` with `ranks` ranks, cheapest first
/// (ties keep the simpler schedule).
pub fn tune(
    context: &Context,
    module: &Module,
    machine: &Machine,
    ranks: usize,
) -> Result<Vec<Candidate>> {
    let model = CostModel {
        machine,
        ranks,
        mesh: coco_dialects::coco::Mesh::declared(&module.as_operation()).map(|d| d.mesh),
    };
    let mut candidates = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (_, pipeline_text) in schedule_space() {
        let (schedule, ir, estimate, rejected) = evaluate(context, module, &pipeline_text, &model)?;
        // Pipelines that produce the same program are one candidate (the
        // simplest pipeline, enumerated first).
        if seen.insert(ir) {
            candidates.push(Candidate {
                schedule,
                pipeline: pipeline_text,
                estimate,
                rejected,
            });
        }
    }
    // Schedules that run at `ranks` first, cheapest first.
    candidates.sort_by(|a, b| {
        (a.rejected.is_some(), a.estimate.total_us)
            .partial_cmp(&(b.rejected.is_some(), b.estimate.total_us))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Ok(candidates)
}

/// The report `coco-opt --coco-autotune --autotune-report` prints.
pub fn report(machine: &Machine, ranks: usize, candidates: &[Candidate]) -> String {
    let mut out = format!(
        "// coco-autotune: {} ({}), {ranks} ranks, {} candidates\n// {:>4}  {:>12}  {:>12}  {:>12}  schedule\n",
        machine.name,
        machine.description,
        candidates.len(),
        "rank",
        "total(us)",
        "comm(us)",
        "compute(us)"
    );
    for (i, c) in candidates.iter().enumerate() {
        out.push_str(&format!(
            "// {:>4}  {:>12.2}  {:>12.2}  {:>12.2}  {}  [{}]\n",
            i + 1,
            c.estimate.total_us,
            c.estimate.communication_us,
            c.estimate.computation_us,
            c.schedule,
            c.pipeline
        ));
        if let Some(reason) = &c.rejected {
            out.push_str(&format!(
                "//        rejected: cannot run on {ranks} ranks: {reason}\n"
            ));
        }
    }
    match candidates.iter().find(|c| c.rejected.is_none()) {
        Some(best) => out.push_str(&format!(
            "// chosen: {} --pass-pipeline='builtin.module({})'\n",
            best.schedule, best.pipeline
        )),
        None => out.push_str(&format!(
            "// chosen: none: no schedule of this program runs on {ranks} ranks\n"
        )),
    }
    out
}
