//! Layout and process-group rules of the coco dialect (see each op's ODS
//! description for the rule it states). ODS has already checked that coco op
//! operands are ranked tensors with a coco layout; this checks *which* layout,
//! shapes, process groups and structural-region contents.

use std::collections::{HashMap, HashSet};

use melior::ir::{block::BlockArgument, operation::OperationRef, Operation, Type, ValueLike};

use super::{
    layout::{describe, DistTensor, Layout},
    mesh::{Mesh, Placement},
    ops::{self, is_collective, is_computation, Reduction},
    rules::{infer_result_layout, rule_dims, LayoutPattern, Operand},
};
use crate::{
    ir::{
        as_op, body_ops, dialect_of, enclosing, function_signature, int_attr, is_entry_argument_of,
        is_float, location_text, nested_ops, op_name, operand_types, result_types, symbol_attr,
    },
    verify::Reporter,
};

struct Transfer<'c, 'a> {
    op: OperationRef<'c, 'a>,
    /// Group the op runs on.
    group: String,
    /// The other group.
    peer: String,
    ty: Type<'c>,
}

pub fn verify(module: &Operation, reporter: &mut Reporter) {
    let groups = verify_groups(module, reporter);
    verify_stage_functions(module, &groups, reporter);
    let mesh = verify_mesh(module, reporter);
    for op in body_ops(module) {
        let op = as_op(&op);
        if op_name(op) == "func.func" {
            verify_function(op, &groups, mesh.as_ref(), reporter);
        }
    }

    let mut sends = Vec::new();
    let mut recvs = Vec::new();
    // Every transfer in program order: (is a send, index in its list).
    let mut order: Vec<(bool, usize)> = Vec::new();
    for op_ref in nested_ops(module) {
        let op = as_op(&op_ref);
        let name = op_name(op);
        if op.attribute(TILE_ATTR).is_ok() {
            verify_tile(op, reporter);
        }
        if dialect_of(&name) == "coco" {
            verify_tensor_types(op, mesh.as_ref(), reporter);
            verify_op(op, &name, mesh.as_ref(), reporter);
            if name == ops::SEND || name == ops::RECV {
                if let Some(transfer) = verify_transfer(op_ref, &name, &groups, reporter) {
                    if name == ops::SEND {
                        order.push((true, sends.len()));
                        sends.push(transfer);
                    } else {
                        order.push((false, recvs.len()));
                        recvs.push(transfer);
                    }
                }
            }
        } else if name.starts_with("arith.") || name.starts_with("math.") {
            verify_tensor_types(op, mesh.as_ref(), reporter);
            verify_elementwise(op, reporter);
        } else if name.starts_with("tensor.") {
            verify_tensor_types(op, mesh.as_ref(), reporter);
            if name == "tensor.extract" {
                verify_extract(op, reporter);
            }
        }
    }
    let errors = reporter.errors();
    match_transfers(&sends, &recvs, reporter);
    if reporter.errors() == errors {
        find_deadlock(&sends, &recvs, &order, reporter);
    }
}

/// Runs the stages' transfers as the executor does: sends are queued and
/// never wait, a receive waits for its peer's send. When no stage can move
/// and some have not finished, the waiting receives are errors at their
/// source lines (the executor's plan check would find the same deadlock,
/// but only at run time and without a location).
fn find_deadlock(
    sends: &[Transfer],
    recvs: &[Transfer],
    order: &[(bool, usize)],
    reporter: &mut Reporter,
) {
    let transfer = |&(is_send, i): &(bool, usize)| if is_send { &sends[i] } else { &recvs[i] };
    let mut groups: Vec<&str> = Vec::new();
    for t in order.iter().map(transfer) {
        if !groups.contains(&t.group.as_str()) {
            groups.push(&t.group);
        }
    }
    let steps: Vec<Vec<&(bool, usize)>> = groups
        .iter()
        .map(|g| order.iter().filter(|t| transfer(t).group == *g).collect())
        .collect();
    let mut next = vec![0usize; groups.len()];
    let mut queued: HashMap<(&str, &str), usize> = HashMap::new();
    loop {
        let mut progress = false;
        for (g, group_steps) in steps.iter().enumerate() {
            while let Some(&&step) = group_steps.get(next[g]) {
                let t = transfer(&step);
                if step.0 {
                    *queued.entry((&t.group, &t.peer)).or_default() += 1;
                } else {
                    match queued.get_mut(&(t.peer.as_str(), t.group.as_str())) {
                        Some(n) if *n > 0 => *n -= 1,
                        _ => break,
                    }
                }
                next[g] += 1;
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    let stuck: Vec<&Transfer> = steps
        .iter()
        .zip(&next)
        .filter_map(|(group_steps, &n)| group_steps.get(n).map(|step| transfer(step)))
        .collect();
    for (i, waiting) in stuck.iter().enumerate() {
        let others: Vec<String> = stuck
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, t)| {
                format!(
                    "@{} waits at {}",
                    t.group,
                    location_text(as_op(&t.op).location())
                )
            })
            .collect();
        reporter.op_error(
            as_op(&waiting.op),
            format!(
                "the stages deadlock: @{} waits here for a value from @{} that is never sent before it{}{}; send before receiving on one side",
                waiting.group,
                waiting.peer,
                if others.is_empty() { "" } else { ", while " },
                others.join(" and ")
            ),
        );
    }
}

/// The discardable attribute with kernel tile sizes (set by `coco-tile`).
pub const TILE_ATTR: &str = "coco.tile";

/// `coco.tile`: positive sizes, two for a matmul's output (three with the
/// depth of its blocks), one otherwise.
fn verify_tile(op: &Operation, reporter: &mut Reporter) {
    let Some(tile) = crate::ir::i64_array_attr(op, TILE_ATTR) else {
        reporter.op_error(
            op,
            format!("'{TILE_ATTR}' must be a dense i64 array, such as array<i64: 128, 128>"),
        );
        return;
    };
    let (expected, counts): (&str, &[usize]) = if op_name(op) == ops::MATMUL {
        ("2 or 3", &[2, 3])
    } else {
        ("1", &[1])
    };
    if !counts.contains(&tile.len()) || tile.iter().any(|&t| t <= 0) {
        reporter.op_error(
            op,
            format!("'{TILE_ATTR}' must hold {expected} positive size(s), found {tile:?}"),
        );
    }
}

fn verify_groups(module: &Operation, reporter: &mut Reporter) -> HashSet<String> {
    let mut groups = HashSet::new();
    let mut stages_seen: HashMap<i64, String> = HashMap::new();
    let mut num_stages_seen: Option<i64> = None;
    for op in body_ops(module) {
        let op = as_op(&op);
        if op_name(op) != ops::PROCESS_GROUP {
            continue;
        }
        let name = crate::ir::str_attr(op, "sym_name").unwrap_or_default();
        let stage = int_attr(op, "stage").unwrap_or(-1);
        let num_stages = int_attr(op, "num_stages").unwrap_or(0);
        if num_stages < 1 {
            reporter.op_error(op, format!("needs at least 1 stage, found {num_stages}"));
            continue;
        }
        if stage < 0 || stage >= num_stages {
            reporter.op_error(
                op,
                format!("stage {stage} is outside 0..{num_stages} (stages are numbered from 0)"),
            );
            continue;
        }
        match num_stages_seen {
            Some(n) if n != num_stages => reporter.op_error(
                op,
                format!(
                    "splits the world into {num_stages} stages but another process group splits it into {n}; all groups must use one split"
                ),
            ),
            _ => num_stages_seen = Some(num_stages),
        }
        if let Some(other) = stages_seen.insert(stage, name.clone()) {
            reporter.op_error(op, format!("stage {stage} is already named @{other}"));
        }
        groups.insert(name);
    }
    groups
}

fn verify_function(
    func: &Operation,
    groups: &HashSet<String>,
    mesh: Option<&Mesh>,
    reporter: &mut Reporter,
) {
    if let Ok(attr) = func.attribute(ops::GROUP_ATTR) {
        match crate::ir::flat_symbol(attr) {
            Some(group) if groups.contains(&group) => {}
            Some(group) => reporter.op_error(
                func,
                format!(
                    "'{}' names @{group}, which is not a coco.process_group",
                    ops::GROUP_ATTR
                ),
            ),
            None => reporter.op_error(
                func,
                format!(
                    "'{}' must be a symbol reference to a coco.process_group",
                    ops::GROUP_ATTR
                ),
            ),
        }
    }
    if let Some((inputs, results)) = function_signature(func) {
        for (i, ty) in inputs.iter().enumerate() {
            check_tensor_type(func, &format!("argument #{i}"), *ty, mesh, reporter);
            check_tensor_bytes(func, &format!("argument #{i}"), *ty, reporter);
            if is_builtin_scalar(*ty) && crate::ir::element_dtype(*ty).is_none() {
                reporter.op_error(
                    func,
                    format!("argument #{i} has type {ty}, which no coco backend takes; scalar inputs are f64, f32, f16, bf16, i64, i32 or i1"),
                );
            }
        }
        for (i, ty) in results.iter().enumerate() {
            check_tensor_type(func, &format!("result #{i}"), *ty, mesh, reporter);
        }
    }
    verify_single_updates(func, reporter);
    verify_uniform_scalars(func, mesh, reporter);
}

/// A builtin integer, float, index or complex type (not a tensor, not
/// another dialect's type such as df's).
fn is_builtin_scalar(ty: Type) -> bool {
    use melior::ir::TypeLike;
    let raw = ty.to_raw();
    // SAFETY: pure type queries.
    let integer_or_complex = unsafe {
        mlir_sys::mlirTypeIsAInteger(raw)
            || mlir_sys::mlirTypeIsAIndex(raw)
            || mlir_sys::mlirTypeIsAComplex(raw)
    };
    integer_or_complex || is_float(ty)
}

/// The largest world coco plans or runs for (the autotuner's limit too).
const MAX_MESH_RANKS: i64 = 65536;

/// The program's `coco.mesh`: at most one, with distinct named axes of
/// positive sizes.
fn verify_mesh(module: &Operation, reporter: &mut Reporter) -> Option<Mesh> {
    let mut declared: Option<(Mesh, String)> = None;
    for op in body_ops(module) {
        let op = as_op(&op);
        if op_name(op) != ops::MESH {
            continue;
        }
        let name = crate::ir::str_attr(op, "sym_name").unwrap_or_default();
        if let Some((_, first)) = &declared {
            reporter.op_error(
                op,
                format!("a program has one coco.mesh, and @{first} is one already"),
            );
            continue;
        }
        let axes = crate::ir::str_array_attr(op, "axes").unwrap_or_default();
        let sizes = crate::ir::i64_array_attr(op, "sizes").unwrap_or_default();
        let mut ok = !axes.is_empty() && axes.len() == sizes.len();
        if axes.is_empty() {
            reporter.op_error(op, "needs at least one axis");
        }
        for (i, axis) in axes.iter().enumerate() {
            if axis.is_empty() {
                reporter.op_error(op, format!("axis #{i} has an empty name"));
                ok = false;
            } else if axes[..i].contains(axis) {
                reporter.op_error(op, format!("names axis \"{axis}\" twice"));
                ok = false;
            }
        }
        if let Some((axis, size)) = axes.iter().zip(&sizes).find(|(_, s)| **s < 1) {
            reporter.op_error(
                op,
                format!("axis \"{axis}\" has size {size}; sizes are at least 1"),
            );
            ok = false;
        } else if sizes
            .iter()
            .try_fold(1i64, |n, &s| n.checked_mul(s))
            .is_none_or(|n| n > MAX_MESH_RANKS)
        {
            reporter.op_error(
                op,
                format!("spans more than {MAX_MESH_RANKS} ranks, the most any world has"),
            );
            ok = false;
        }
        if ok {
            let mesh = Mesh {
                axes: axes
                    .into_iter()
                    .zip(sizes)
                    .map(|(a, s)| (a, s as usize))
                    .collect(),
            };
            declared = Some((mesh, name));
        } else {
            declared = Some((Mesh::flat(1), name));
        }
    }
    declared
        .map(|(mesh, _)| mesh)
        .filter(|mesh| !mesh.axes[0].0.is_empty())
}

/// Every backend reads a builtin scalar out of a 0-d tensor only (kernels
/// are given it as they are given a scalar input).
fn verify_extract(op: &Operation, reporter: &mut Reporter) {
    let Some(tensor) = op.operand(0).ok().and_then(|v| tensor_of(v.r#type())) else {
        return;
    };
    if tensor.rank() != 0 {
        reporter.op_error(
            op,
            format!(
                "reads an element of a {}-d tensor; coco reads scalars out of 0-d tensors only (reduce it with coco.reduce_elements, or pick the element with coco.gather, first)",
                tensor.rank()
            ),
        );
    }
}

/// A program split into stages runs one function per stage on that stage's
/// ranks: the interpreter, the plan and both executors take a stage's
/// function as its whole step. A function on no stage, or a second one on a
/// stage, would be left out of the run, so it is refused here instead.
fn verify_stage_functions(module: &Operation, groups: &HashSet<String>, reporter: &mut Reporter) {
    if groups.is_empty() {
        return;
    }
    // Stage → (its function, where that function is).
    let mut runs: HashMap<String, (String, String)> = HashMap::new();
    for op in body_ops(module) {
        let op = as_op(&op);
        if op_name(op) != "func.func" {
            continue;
        }
        let name = crate::ir::str_attr(op, "sym_name").unwrap_or_default();
        let Ok(attr) = op.attribute(ops::GROUP_ATTR) else {
            reporter.op_error(
                op,
                format!(
                    "@{name} runs on no process group, but the program is split into pipeline stages, and only the stages' functions run; name its stage with '{} = @<stage>' or move it into a program of its own",
                    ops::GROUP_ATTR
                ),
            );
            continue;
        };
        // A symbol that names no stage is verify_function's error.
        let Some(group) = crate::ir::flat_symbol(attr).filter(|g| groups.contains(g)) else {
            continue;
        };
        match runs.get(&group) {
            Some((first, at)) => reporter.op_error(
                op,
                format!(
                    "@{group} already runs @{first} (at {at}); a stage runs one function per step, so merge @{name} into @{first}"
                ),
            ),
            None => {
                runs.insert(group, (name, location_text(op.location())));
            }
        }
    }
}

/// Builtin scalars that may differ between ranks: read out of a tensor that
/// is not replicated (`tensor.extract`), or computed from such a scalar.
/// Putting one into a replicated tensor (which every rank must hold alike)
/// or a sliced one (a part of one global tensor) would skip the collective
/// that makes the ranks agree, and every later transformation would trust
/// the layout; so only a `#coco.local` tensor may take it, from any op. On
/// a mesh this holds axis by axis: a scalar varies along the axes its
/// tensor is not replicated on, and must stay local along those.
fn verify_uniform_scalars(func: &Operation, mesh: Option<&Mesh>, reporter: &mut Reporter) {
    let flat = Mesh::flat(1);
    let mesh = mesh.unwrap_or(&flat);
    let key = |value: melior::ir::Value| value.to_raw().ptr as usize;
    // Per-rank scalar → (the axes it varies along, where it was read out).
    let mut per_rank: HashMap<usize, (Vec<usize>, String)> = HashMap::new();
    for op_ref in nested_ops(func) {
        let op = as_op(&op_ref);
        let extracted = (op_name(op) == "tensor.extract")
            .then(|| op.operand(0).ok())
            .flatten()
            .and_then(|v| tensor_of(v.r#type()))
            .and_then(|t| t.placement(mesh).ok())
            .and_then(|placement| {
                let varying: Vec<usize> = (0..placement.0.len())
                    .filter(|&a| placement.0[a] != Layout::Replicated)
                    .collect();
                (!varying.is_empty()).then(|| {
                    (
                        varying,
                        format!(
                            "read out of a {} tensor at {}",
                            placement.text(mesh),
                            location_text(op.location())
                        ),
                    )
                })
            });
        let mut origin = extracted;
        for operand in op.operands() {
            if let Some((axes, at)) = per_rank.get(&key(operand)) {
                let (varying, _) = origin.get_or_insert_with(|| (Vec::new(), at.clone()));
                for a in axes {
                    if !varying.contains(a) {
                        varying.push(*a);
                    }
                }
            }
        }
        let Some((varying, at)) = origin else {
            continue;
        };
        for (i, result) in op.results().enumerate() {
            let result: melior::ir::Value = result.into();
            match DistTensor::from_type(result.r#type()) {
                None => {
                    per_rank.insert(key(result), (varying.clone(), at.clone()));
                }
                Some(tensor) => {
                    let Ok(placement) = tensor.placement(mesh) else {
                        continue;
                    };
                    if varying.iter().any(|&a| placement.0[a] != Layout::Local) {
                        reporter.op_error(
                            op,
                            format!(
                                "result #{i} is {}, but it is built from a scalar that may differ between ranks ({at}); make the ranks agree with a collective first (coco.all_reduce, coco.broadcast), or keep the result #coco.local",
                                placement.text(mesh)
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// Each input is updated at most once per step: the runtime writes every
/// update back, so a second one silently replaced the first.
fn verify_single_updates(func: &Operation, reporter: &mut Reporter) {
    let mut first_update: HashMap<usize, String> = HashMap::new();
    for op_ref in nested_ops(func) {
        let op = as_op(&op_ref);
        if op_name(op) != ops::UPDATE {
            continue;
        }
        let Ok(target) = op.operand(0) else {
            continue;
        };
        if !is_entry_argument_of(target, func) {
            continue; // verify_update reports it
        }
        let Ok(argument) = BlockArgument::try_from(target) else {
            continue;
        };
        let index = argument.argument_number();
        match first_update.get(&index) {
            Some(first) => reporter.op_error(
                op,
                format!(
                    "updates argument #{index} a second time (first at {first}); an input is updated at most once per step, so combine the two values into one coco.update"
                ),
            ),
            None => {
                first_update.insert(index, location_text(op.location()));
            }
        }
    }
}

/// Static global shapes and in-range slice dimensions for every tensor an op
/// touches.
fn verify_tensor_types(op: &Operation, mesh: Option<&Mesh>, reporter: &mut Reporter) {
    for (i, ty) in operand_types(op).into_iter().enumerate() {
        check_tensor_type(op, &format!("operand #{i}"), ty, mesh, reporter);
    }
    for (i, ty) in result_types(op).into_iter().enumerate() {
        check_tensor_type(op, &format!("result #{i}"), ty, mesh, reporter);
        check_tensor_bytes(op, &format!("result #{i}"), ty, reporter);
    }
}

/// A tensor, where it is defined (an op's result, a function's argument),
/// of at most 2^63 - 1 bytes: sizes become MLIR `index` values and byte
/// offsets in the lowering, and a larger one would wrap there.
fn check_tensor_bytes(op: &Operation, what: &str, ty: Type, reporter: &mut Reporter) {
    let Some(tensor) = tensor_of(ty) else {
        return;
    };
    let (Some(shape), Some(dtype)) = (
        tensor.static_shape(),
        crate::ir::element_dtype(tensor.element),
    ) else {
        return;
    };
    let bytes = shape
        .iter()
        .try_fold(dtype.size() as i64, |n, &d| n.checked_mul(d.max(0)));
    if bytes.is_none() {
        reporter.op_error(
            op,
            format!(
                "{what} ({}) holds more than 2^63 bytes, beyond what any buffer can address",
                tensor.shape_text()
            ),
        );
    }
}

fn check_tensor_type(
    op: &Operation,
    what: &str,
    ty: Type,
    mesh: Option<&Mesh>,
    reporter: &mut Reporter,
) {
    let Some(tensor) = DistTensor::from_type(ty) else {
        return;
    };
    if !tensor.has_coco_layout() {
        return;
    }
    let flat = Mesh::flat(1);
    let placement = match tensor.placement(mesh.unwrap_or(&flat)) {
        Ok(placement) => placement,
        Err(why) => {
            reporter.op_error(op, format!("{what} {why}"));
            return;
        }
    };
    if tensor.static_shape().is_none() {
        reporter.op_error(
            op,
            format!(
                "{what} has dynamic shape {}; distributed tensors need static global shapes",
                tensor.shape_text()
            ),
        );
    }
    if crate::ir::element_dtype(tensor.element).is_none() {
        reporter.op_error(
            op,
            format!(
                "{what} has element type {}, which no coco backend runs; distributed tensors hold f64, f32, f16, bf16, i64, i32 or i1",
                tensor.element
            ),
        );
    }
    let mut reported = HashSet::new();
    for layout in placement.0 {
        if let Layout::Sliced(dim) = layout {
            if (dim < 0 || dim as usize >= tensor.rank()) && reported.insert(dim) {
                reporter.op_error(
                    op,
                    format!(
                        "{what} is sliced along dimension {dim}, but the tensor has rank {}",
                        tensor.rank()
                    ),
                );
            }
        }
    }
}

fn tensor_of<'c>(ty: Type<'c>) -> Option<DistTensor<'c>> {
    DistTensor::from_type(ty).filter(DistTensor::has_coco_layout)
}

/// A tensor's layout as the source writes it, for messages.
fn layout_text(tensor: &DistTensor) -> String {
    match (&tensor.layout, &tensor.axes) {
        (Some(layout), _) => layout.to_string(),
        (None, Some(axes)) => {
            let axes: Vec<String> = axes
                .iter()
                .map(|(n, l)| format!("{} = {l}", super::mesh::axis_text(n)))
                .collect();
            format!("#coco.mesh<{{{}}}>", axes.join(", "))
        }
        (None, None) => describe(None),
    }
}

fn expect_same_tensor(
    op: &Operation,
    input: &DistTensor,
    result: &DistTensor,
    reporter: &mut Reporter,
) {
    if input.shape != result.shape {
        reporter.op_error(
            op,
            format!(
                "result shape {} differs from operand shape {} (shapes are global)",
                result.shape_text(),
                input.shape_text()
            ),
        );
    }
    expect_same_element(op, input, result, reporter);
}

fn expect_same_element(
    op: &Operation,
    input: &DistTensor,
    result: &DistTensor,
    reporter: &mut Reporter,
) {
    if input.element != result.element {
        reporter.op_error(
            op,
            format!(
                "result element type {} differs from operand element type {}",
                result.element, input.element
            ),
        );
    }
}

fn unary_tensors<'c>(op: &Operation<'c>) -> (Option<DistTensor<'c>>, Option<DistTensor<'c>>) {
    let input = op.operand(0).ok().and_then(|v| tensor_of(v.r#type()));
    let result = op.result(0).ok().and_then(|v| tensor_of(v.r#type()));
    (input, result)
}

fn reduction_kind(op: &Operation) -> Option<Reduction> {
    Reduction::from_value(int_attr(op, "kind")?)
}

/// Checks the result layout against the inferred one (`rules.rs`), axis by
/// axis on a mesh.
fn verify_layouts(op: &Operation, name: &str, mesh: Option<&Mesh>, reporter: &mut Reporter) {
    let axis = crate::ir::str_attr(op, "axis");
    if let (Some(axis), None) = (&axis, mesh) {
        reporter.op_error(
            op,
            format!("communicates over axis \"{axis}\", but the program declares no coco.mesh"),
        );
        return;
    }
    let on_mesh = operand_types(op)
        .into_iter()
        .chain(result_types(op))
        .filter_map(tensor_of)
        .any(|t| t.axes.is_some());
    if let (Some(mesh), true) = (mesh, on_mesh || axis.is_some()) {
        verify_mesh_layouts(op, name, mesh, axis.as_deref(), reporter);
        return;
    }
    let operands: Vec<DistTensor> = operand_types(op)
        .into_iter()
        .filter_map(tensor_of)
        .collect();
    let result = op.result(0).ok().and_then(|v| tensor_of(v.r#type()));
    let infos: Vec<Operand> = operands
        .iter()
        .filter_map(DistTensor::rule_operand)
        .collect();
    let result_rank = result.as_ref().map_or(0, DistTensor::rank);
    match op_rule(op, name, &infos, result_rank) {
        Err(message) => reporter.op_error(op, message),
        Ok(Some(pattern)) => {
            let Some(found) = result.and_then(|r| r.layout) else {
                return;
            };
            if !pattern.accepts(found) {
                reporter.op_error(op, layout_mismatch(&pattern, &infos, found));
            }
        }
        Ok(None) => {}
    }
}

/// The layout rule of `op` (`rules.rs`) for operands `infos`.
fn op_rule(
    op: &Operation,
    name: &str,
    infos: &[Operand],
    result_rank: usize,
) -> Result<Option<LayoutPattern>, String> {
    infer_result_layout(
        name,
        infos,
        result_rank,
        reduction_kind(op),
        rule_dims(op).as_deref(),
    )
}

/// The message for a result layout its rule does not give.
fn layout_mismatch(pattern: &LayoutPattern, operands: &[Operand], found: Layout) -> String {
    let given: Vec<String> = operands.iter().map(|o| o.layout.to_string()).collect();
    format!(
        "expects result layout {pattern} for operand layout{} {}, found {found}",
        if given.len() == 1 { "" } else { "s" },
        given.join(", ")
    )
}

/// [`verify_layouts`] on a mesh: each axis by the op's rule, except that a
/// collective applies its rule on the axis it communicates over and keeps
/// every other axis's layout.
fn verify_mesh_layouts(
    op: &Operation,
    name: &str,
    mesh: &Mesh,
    axis: Option<&str>,
    reporter: &mut Reporter,
) {
    fn placed<'c>(ty: Type<'c>, mesh: &Mesh) -> Option<(DistTensor<'c>, Placement)> {
        let tensor = tensor_of(ty)?;
        let placement = tensor.placement(mesh).ok()?;
        Some((tensor, placement))
    }
    // A layout that names the wrong axes is check_tensor_type's error.
    let Some(operands) = operand_types(op)
        .into_iter()
        .filter(|ty| tensor_of(*ty).is_some())
        .map(|ty| placed(ty, mesh))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let result = match op.result(0).ok().map(|r| r.r#type()) {
        Some(ty) if tensor_of(ty).is_some() => match placed(ty, mesh) {
            Some(result) => Some(result),
            None => return,
        },
        _ => None,
    };
    let communicates = is_collective(name) && name != ops::SEND && name != ops::RECV;
    let over = match axis {
        Some(axis) => match mesh.axis(axis) {
            Some(a) => Some(a),
            None => {
                reporter.op_error(
                    op,
                    format!(
                        "communicates over axis \"{axis}\", which the mesh {} does not have",
                        mesh.text()
                    ),
                );
                return;
            }
        },
        None => None,
    };
    if communicates
        && over.is_none()
        && operands
            .iter()
            .chain(&result)
            .any(|(_, p)| p.uniform().is_none())
    {
        reporter.op_error(
            op,
            format!(
                "spans the whole group, which takes a plain layout; name the axis it communicates over (`over \"{}\"`)",
                mesh.axes[0].0
            ),
        );
        return;
    }
    let result_rank = result.as_ref().map_or(0, |(t, _)| t.rank());
    for (a, (axis_name, _)) in mesh.axes.iter().enumerate() {
        let infos: Vec<Operand> = operands
            .iter()
            .map(|(t, p)| Operand {
                layout: p.0[a],
                rank: t.rank(),
            })
            .collect();
        let found = result.as_ref().map(|(_, p)| p.0[a]);
        // A slice changes nothing along an axis whose layout it keeps.
        if name == ops::SLICE && infos.first().map(|o| o.layout) == found {
            continue;
        }
        if communicates && over.is_some_and(|o| o != a) {
            let kept = infos.first().map(|o| o.layout);
            if let (Some(kept), Some(found)) = (kept, found) {
                if kept != found {
                    reporter.op_error(
                        op,
                        format!(
                            "communicates over \"{}\", so along axis \"{axis_name}\" the result keeps the operand's layout {kept}, found {found}",
                            mesh.axes[over.unwrap_or(0)].0
                        ),
                    );
                }
            }
            continue;
        }
        match op_rule(op, name, &infos, result_rank) {
            Err(message) => reporter.op_error(op, format!("along axis \"{axis_name}\": {message}")),
            Ok(Some(pattern)) => {
                if let Some(found) = found.filter(|f| !pattern.accepts(*f)) {
                    reporter.op_error(
                        op,
                        format!(
                            "along axis \"{axis_name}\": {}",
                            layout_mismatch(&pattern, &infos, found)
                        ),
                    );
                }
            }
            Ok(None) => {}
        }
    }
    // A dimension sliced over several axes splits outermost first, so a
    // collective (or a coco.slice) can only change how the innermost of
    // them slices it.
    let (Some((_, input)), Some((_, output))) = (operands.first(), &result) else {
        return;
    };
    let changed: Vec<usize> = match over {
        Some(a) => vec![a],
        None if name == ops::SLICE => (0..mesh.axes.len())
            .filter(|&a| input.0[a] != output.0[a])
            .collect(),
        None => Vec::new(),
    };
    for a in changed {
        for layout in [input.0[a], output.0[a]] {
            let Layout::Sliced(dim) = layout else {
                continue;
            };
            if let Some(b) = (a + 1..mesh.axes.len())
                .find(|&b| input.0[b] == Layout::Sliced(dim) || output.0[b] == Layout::Sliced(dim))
            {
                reporter.op_error(
                    op,
                    format!(
                        "dimension {dim} is also sliced over axis \"{}\", inside \"{}\" in the mesh {}; along \"{}\" this op can only change a dimension's innermost slicing",
                        mesh.axes[b].0,
                        mesh.axes[a].0,
                        mesh.text(),
                        mesh.axes[a].0
                    ),
                );
                return;
            }
        }
    }
}

fn verify_op(op: &Operation, name: &str, mesh: Option<&Mesh>, reporter: &mut Reporter) {
    verify_layouts(op, name, mesh, reporter);
    match name {
        ops::ALL_REDUCE | ops::REDUCE_SCATTER | ops::ALL_GATHER | ops::SLICE => {
            if let (Some(input), Some(result)) = unary_tensors(op) {
                expect_same_tensor(op, &input, &result, reporter);
            }
        }
        ops::BROADCAST | ops::REDUCE => {
            if let (Some(input), Some(result)) = unary_tensors(op) {
                expect_same_tensor(op, &input, &result, reporter);
            }
            verify_root(op, reporter);
        }
        ops::ALL_TO_ALL => {
            if let (Some(input), Some(result)) = unary_tensors(op) {
                expect_same_tensor(op, &input, &result, reporter);
                verify_all_to_all(op, &input, &result, mesh, reporter);
            }
        }
        ops::MATMUL => verify_matmul(op, reporter),
        ops::DROPOUT => {
            let prob = crate::ir::float_attr(op, "prob").unwrap_or(0.0);
            if !(0.0..1.0).contains(&prob) {
                reporter.op_error(op, format!("prob must be in [0, 1), found {prob}"));
            }
        }
        ops::LAYER_NORM => verify_layer_norm(op, reporter),
        ops::NORM => verify_scalar_reduction(op, true, reporter),
        ops::REDUCE_ELEMENTS => match crate::ir::i64_array_attr(op, "dims") {
            Some(dims) => verify_axis_reduction(op, &dims, reporter),
            None => verify_scalar_reduction(op, false, reporter),
        },
        ops::ARGMAX => verify_argmax(op, reporter),
        ops::CUMSUM => verify_cumsum(op, reporter),
        ops::GATHER | ops::SCATTER_ADD => verify_indexed(op, name, reporter),
        ops::CAST => verify_cast(op, reporter),
        ops::EXPAND => verify_expand(op, reporter),
        ops::TRANSPOSE => verify_transpose(op, reporter),
        ops::SPLIT_HEADS | ops::MERGE_HEADS => verify_heads(op, name, reporter),
        ops::UPDATE => verify_update(op, reporter),
        ops::FUSED_KERNEL | ops::FUSED_COLLECTIVE | ops::OVERLAP => {
            verify_region(op, name, reporter)
        }
        ops::YIELD => verify_yield(op, reporter),
        _ => {}
    }
}

/// An all_to_all must re-slice: along the axis it communicates over (the
/// whole group without `over`), `#coco.sliced<a>` to `#coco.sliced<b>`
/// with `a != b`. From a dimension to itself it means no exchange (each
/// rank keeps its block, as the interpreter ran it), while an executor's
/// exchange of blocks permutes them: refused, so no backend has to guess.
fn verify_all_to_all(
    op: &Operation,
    input: &DistTensor,
    result: &DistTensor,
    mesh: Option<&Mesh>,
    reporter: &mut Reporter,
) {
    let axis = crate::ir::str_attr(op, "axis");
    let along = match (mesh, &axis) {
        (Some(mesh), Some(name)) => {
            // A wrong axis or placement is `verify_layouts`'s error.
            let (Some(a), Ok(from), Ok(to)) = (
                mesh.axis(name),
                input.placement(mesh),
                result.placement(mesh),
            ) else {
                return;
            };
            Some((from.0[a], to.0[a]))
        }
        _ => input.layout.zip(result.layout),
    };
    let Some((from, to)) = along else {
        return;
    };
    if from == to && from.is_sliced() {
        let over = axis.map_or(String::new(), |a| format!(" over \"{a}\""));
        reporter.op_error(
            op,
            format!(
                "re-slices along the dimension it is already sliced on ({from}{over}); \
                 all_to_all goes from #coco.sliced<a> to #coco.sliced<b> with a != b"
            ),
        );
    }
}

fn verify_root(op: &Operation, reporter: &mut Reporter) {
    if let Some(root) = int_attr(op, "root") {
        if root < 0 {
            reporter.op_error(op, format!("root must be a rank (>= 0), found {root}"));
        }
    }
}

fn verify_matmul(op: &Operation, reporter: &mut Reporter) {
    let tensors: Vec<_> = operand_types(op).into_iter().map(tensor_of).collect();
    let result = op.result(0).ok().and_then(|v| tensor_of(v.r#type()));
    let (Some(Some(lhs)), Some(Some(rhs)), Some(result)) =
        (tensors.first(), tensors.get(1), result)
    else {
        return;
    };
    let rank = lhs.rank();
    for (what, t) in [("lhs", lhs), ("rhs", rhs), ("result", &result)] {
        if !(rank == 2 || rank == 3) || t.rank() != rank {
            reporter.op_error(
                op,
                format!(
                    "{what} must be 2-D (or all operands 3-D, batched), found shape {}",
                    t.shape_text()
                ),
            );
            return;
        }
    }
    if rank == 3 {
        if lhs.shape[0] != rhs.shape[0]
            || lhs.shape[2] != rhs.shape[1]
            || result.shape != [lhs.shape[0], lhs.shape[1], rhs.shape[2]]
        {
            reporter.op_error(
                op,
                format!(
                    "batched product needs [B, M, K] x [B, K, N] -> [B, M, N], found {} x {} -> {}",
                    lhs.shape_text(),
                    rhs.shape_text(),
                    result.shape_text()
                ),
            );
        }
        return;
    }
    if lhs.shape[1] != rhs.shape[0] {
        reporter.op_error(
            op,
            format!(
                "contraction sizes differ: lhs is {} and rhs is {}",
                lhs.shape_text(),
                rhs.shape_text()
            ),
        );
    } else if result.shape != [lhs.shape[0], rhs.shape[1]] {
        reporter.op_error(
            op,
            format!(
                "result shape must be {}x{} for lhs {} and rhs {}, found {}",
                lhs.shape[0].map_or("?".into(), |d| d.to_string()),
                rhs.shape[1].map_or("?".into(), |d| d.to_string()),
                lhs.shape_text(),
                rhs.shape_text(),
                result.shape_text()
            ),
        );
    }
    if lhs.element != rhs.element || lhs.element != result.element {
        reporter.op_error(
            op,
            format!(
                "element types must match: lhs {}, rhs {}, result {}",
                lhs.element, rhs.element, result.element
            ),
        );
    }
}

fn verify_layer_norm(op: &Operation, reporter: &mut Reporter) {
    let tensors: Vec<_> = operand_types(op).into_iter().map(tensor_of).collect();
    let result = op.result(0).ok().and_then(|v| tensor_of(v.r#type()));
    let (Some(Some(input)), Some(Some(gamma)), Some(Some(beta)), Some(result)) =
        (tensors.first(), tensors.get(1), tensors.get(2), result)
    else {
        return;
    };
    if input.rank() == 0 {
        reporter.op_error(op, "input must have at least one dimension");
        return;
    }
    let last = input.rank() - 1;
    for (what, param) in [("gamma", gamma), ("beta", beta)] {
        if param.shape != [input.shape[last]] {
            reporter.op_error(
                op,
                format!(
                    "{what} must be 1-D with the size of the last input dimension ({}), found {}",
                    input.shape[last].map_or("?".into(), |d| d.to_string()),
                    param.shape_text()
                ),
            );
        }
        if param.element != input.element {
            reporter.op_error(
                op,
                format!(
                    "{what} element type {} differs from input element type {}",
                    param.element, input.element
                ),
            );
        }
    }
    if result.shape != input.shape || result.element != input.element {
        reporter.op_error(
            op,
            format!(
                "result must have the input's shape {} and element type {}",
                input.shape_text(),
                input.element
            ),
        );
    }
}

/// `coco.norm` and `coco.reduce_elements`: 0-d results of the same element type.
fn verify_scalar_reduction(op: &Operation, is_norm: bool, reporter: &mut Reporter) {
    let (Some(input), Some(result)) = unary_tensors(op) else {
        return;
    };
    if result.rank() != 0 {
        reporter.op_error(
            op,
            format!(
                "result must be a 0-d tensor, found shape {}",
                result.shape_text()
            ),
        );
    }
    expect_same_element(op, &input, &result, reporter);
    if is_norm && !is_float(input.element) {
        reporter.op_error(
            op,
            format!(
                "needs a floating-point tensor, found element type {}",
                input.element
            ),
        );
    }
}

fn verify_cast(op: &Operation, reporter: &mut Reporter) {
    let (Some(input), Some(result)) = unary_tensors(op) else {
        return;
    };
    if input.shape != result.shape {
        reporter.op_error(
            op,
            format!(
                "changes only the element type: result must have shape {}",
                input.shape_text()
            ),
        );
    }
    for (what, element) in [("operand", input.element), ("result", result.element)] {
        if !is_float(element) {
            reporter.op_error(
                op,
                format!(
                    "{what} element type must be a float (f16, bf16, f32, f64), found {element}"
                ),
            );
        }
    }
}

/// Why `dims` cannot name dimensions of a rank-`rank` tensor (strictly
/// increasing, each below `rank`), if it cannot.
fn dims_problem(dims: &[i64], rank: usize) -> Option<String> {
    if let Some(d) = dims.iter().find(|&&d| d < 0 || d as usize >= rank) {
        return Some(format!(
            "dims entry {d} is not a dimension of a rank-{rank} tensor"
        ));
    }
    if dims.windows(2).any(|w| w[0] >= w[1]) {
        return Some(format!("dims {dims:?} must be strictly increasing"));
    }
    None
}

fn size_text(size: Option<i64>) -> String {
    size.map_or("?".into(), |s| s.to_string())
}

/// `shape` without the dimensions in `dims`.
fn without_dims(shape: &[Option<i64>], dims: &[i64]) -> Vec<Option<i64>> {
    shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !dims.contains(&(*i as i64)))
        .map(|(_, d)| *d)
        .collect()
}

/// The result has the operand's shape without `dims` (named `removed` in
/// the message).
fn expect_shape_without(
    op: &Operation,
    input: &DistTensor,
    result: &DistTensor,
    dims: &[i64],
    removed: &str,
    reporter: &mut Reporter,
) {
    let kept = without_dims(&input.shape, dims);
    if result.shape != kept {
        let text = DistTensor {
            shape: kept,
            ..input.clone()
        }
        .shape_text();
        reporter.op_error(
            op,
            format!(
                "result must have the operand's shape without {removed}: {text}, found {}",
                result.shape_text()
            ),
        );
    }
}

/// `coco.reduce_elements` with `dims`: the result is the operand without them.
fn verify_axis_reduction(op: &Operation, dims: &[i64], reporter: &mut Reporter) {
    let (Some(input), Some(result)) = unary_tensors(op) else {
        return;
    };
    if let Some(problem) = dims_problem(dims, input.rank()) {
        reporter.op_error(op, problem);
        return;
    }
    let removed = format!("dims {dims:?}");
    expect_shape_without(op, &input, &result, dims, &removed, reporter);
    expect_same_element(op, &input, &result, reporter);
}

/// `coco.gather` and `coco.scatter_add`: 1-D i64 indices; the rows they
/// move have the shape of the indexed tensor's rows.
fn verify_indexed(op: &Operation, name: &str, reporter: &mut Reporter) {
    let tensors: Vec<DistTensor> = operand_types(op)
        .into_iter()
        .filter_map(tensor_of)
        .collect();
    let Some(result) = op.result(0).ok().and_then(|r| tensor_of(r.r#type())) else {
        return;
    };
    let (Some(base), Some(indices)) = (tensors.first(), tensors.get(1)) else {
        return;
    };
    if indices.rank() != 1
        || crate::ir::element_dtype(indices.element) != Some(crate::ir::DType::I64)
    {
        reporter.op_error(
            op,
            format!(
                "indices must be a 1-D tensor of i64, found {}",
                crate::ir::type_text(op.operand(1).map(|v| v.r#type()).unwrap_or(indices.element))
            ),
        );
        return;
    }
    if base.rank() == 0 {
        reporter.op_error(op, "the indexed tensor needs a dimension to index");
        return;
    }
    let dim = int_attr(op, "dim").unwrap_or(0);
    if let Some(problem) = dims_problem(&[dim], base.rank()) {
        reporter.op_error(op, problem.replace("dims entry", "dim"));
        return;
    }
    let mut rows = base.shape.clone();
    rows[dim as usize] = indices.shape[0];
    let (moved, what) = if name == ops::GATHER {
        (&result, "result")
    } else {
        let Some(updates) = tensors.get(2) else {
            return;
        };
        if result.shape != base.shape {
            reporter.op_error(
                op,
                format!("result must have dest's shape {}", base.shape_text()),
            );
        }
        expect_same_element(op, base, updates, reporter);
        (updates, "updates")
    };
    if moved.shape != rows {
        let text = DistTensor {
            shape: rows,
            ..base.clone()
        }
        .shape_text();
        reporter.op_error(
            op,
            format!("{what} must have the indexed tensor's shape with dimension {dim} the indices' length: {text}, found {}", moved.shape_text()),
        );
    }
    expect_same_element(op, base, &result, reporter);
}

/// The operand, result and `dim` of an op along one dimension (argmax,
/// cumsum), once `dim` is one of the operand's.
fn along_dim<'c>(
    op: &Operation<'c>,
    reporter: &mut Reporter,
) -> Option<(DistTensor<'c>, DistTensor<'c>, i64)> {
    let (Some(input), Some(result)) = unary_tensors(op) else {
        return None;
    };
    let dim = int_attr(op, "dim").unwrap_or(0);
    if let Some(problem) = dims_problem(&[dim], input.rank()) {
        reporter.op_error(op, problem.replace("dims entry", "dim"));
        return None;
    }
    Some((input, result, dim))
}

fn verify_argmax(op: &Operation, reporter: &mut Reporter) {
    let Some((input, result, dim)) = along_dim(op, reporter) else {
        return;
    };
    let removed = format!("dimension {dim}");
    expect_shape_without(op, &input, &result, &[dim], &removed, reporter);
    if crate::ir::element_dtype(result.element) != Some(crate::ir::DType::I64) {
        reporter.op_error(
            op,
            format!(
                "result element type must be i64 (indices), found {}",
                result.element
            ),
        );
    }
}

fn verify_cumsum(op: &Operation, reporter: &mut Reporter) {
    let Some((input, result, _)) = along_dim(op, reporter) else {
        return;
    };
    expect_same_tensor(op, &input, &result, reporter);
    if crate::ir::element_dtype(input.element) == Some(crate::ir::DType::I1) {
        reporter.op_error(
            op,
            "sums numbers; an i1 operand has none (extend it to i32 or i64 first)",
        );
    }
}

fn verify_expand(op: &Operation, reporter: &mut Reporter) {
    let (Some(input), Some(result)) = unary_tensors(op) else {
        return;
    };
    if let Some(dims) = crate::ir::i64_array_attr(op, "dims") {
        if dims.len() != input.rank() {
            reporter.op_error(
                op,
                format!(
                    "dims needs one entry per operand dimension ({}), found {}",
                    input.rank(),
                    dims.len()
                ),
            );
            return;
        }
        if let Some(problem) = dims_problem(&dims, result.rank()) {
            reporter.op_error(op, problem);
            return;
        }
        for (i, &d) in dims.iter().enumerate() {
            if result.shape[d as usize] != input.shape[i] {
                reporter.op_error(
                    op,
                    format!(
                        "operand dimension {i} (size {}) must equal result dimension {d} (size {})",
                        size_text(input.shape[i]),
                        size_text(result.shape[d as usize])
                    ),
                );
                return;
            }
        }
        expect_same_element(op, &input, &result, reporter);
        return;
    }
    if result.rank() < input.rank()
        || result.shape[result.rank() - input.rank()..] != input.shape[..]
    {
        reporter.op_error(
            op,
            format!(
                "result shape {} must end with the operand shape {} (new dimensions go in front)",
                result.shape_text(),
                input.shape_text()
            ),
        );
        return;
    }
    expect_same_element(op, &input, &result, reporter);
}

fn verify_transpose(op: &Operation, reporter: &mut Reporter) {
    let (Some(input), Some(result)) = unary_tensors(op) else {
        return;
    };
    let mut swapped = input.shape.clone();
    let n = swapped.len();
    if n >= 2 {
        swapped.swap(n - 1, n - 2);
    }
    if !(n == 2 || n == 3) || result.shape != swapped {
        reporter.op_error(
            op,
            format!(
                "transposes the last two dimensions of 2-D or 3-D tensors: result shape must be the operand's swapped, found {} -> {}",
                input.shape_text(),
                result.shape_text()
            ),
        );
    }
    expect_same_element(op, &input, &result, reporter);
}

fn verify_heads(op: &Operation, name: &str, reporter: &mut Reporter) {
    let (Some(input), Some(result)) = unary_tensors(op) else {
        return;
    };
    let (flat, heads) = if name == ops::SPLIT_HEADS {
        (&input, &result)
    } else {
        (&result, &input)
    };
    let ok = flat.rank() == 2
        && heads.rank() == 3
        && heads.shape[1] == flat.shape[0]
        && matches!((heads.shape[0], heads.shape[2], flat.shape[1]), (Some(n), Some(d), Some(h)) if n * d == h);
    if !ok {
        reporter.op_error(
            op,
            format!(
                "needs [S, heads * d] and [heads, S, d], found {} and {}",
                flat.shape_text(),
                heads.shape_text()
            ),
        );
    }
    expect_same_element(op, &input, &result, reporter);
}

fn verify_update(op: &Operation, reporter: &mut Reporter) {
    let Some(func) = enclosing(op, "func.func") else {
        reporter.op_error(op, "must be inside a func.func");
        return;
    };
    let Ok(target) = op.operand(0) else {
        return;
    };
    if !is_entry_argument_of(target, as_op(&func)) {
        reporter.op_error(
            op,
            "target must be an argument of the enclosing function (a program input such as a weight or optimizer state)",
        );
    }
}

fn verify_region(op: &Operation, name: &str, reporter: &mut Reporter) {
    let inner: Vec<String> = nested_ops(op).iter().map(|o| op_name(as_op(o))).collect();
    let collectives: Vec<&String> = inner.iter().filter(|n| is_collective(n)).collect();
    let computes = inner.iter().filter(|n| is_computation(n)).count();
    match name {
        ops::FUSED_KERNEL => {
            if let Some(c) = collectives.first() {
                reporter.op_error(op, format!("must hold computations only, found '{c}'"));
            }
        }
        ops::FUSED_COLLECTIVE => {
            let scalar = |o: &Operation| {
                o.result(0)
                    .ok()
                    .and_then(|r| DistTensor::from_type(r.r#type()))
                    .is_some_and(|t| t.rank() == 0)
            };
            let stray = nested_ops(op).into_iter().find(|o| {
                let o = as_op(o);
                let n = op_name(o);
                is_collective(&n)
                    && n != ops::REDUCE_SCATTER
                    && n != ops::ALL_GATHER
                    && !(n == ops::ALL_REDUCE && scalar(o))
            });
            if let Some(c) = stray {
                reporter.op_error(
                    op,
                    format!(
                        "may only communicate with coco.reduce_scatter, coco.all_gather and a coco.all_reduce of a 0-d tensor, found '{}'",
                        op_name(as_op(&c))
                    ),
                );
            }
            for required in [ops::REDUCE_SCATTER, ops::ALL_GATHER] {
                if !inner.iter().any(|n| n == required) {
                    reporter.op_error(op, format!("must contain a '{required}'"));
                }
            }
        }
        ops::OVERLAP => {
            if let Some(chunks) = int_attr(op, "chunks") {
                if chunks < 1 {
                    reporter.op_error(op, format!("chunks must be at least 1, found {chunks}"));
                }
            }
            if collectives.is_empty() || computes == 0 {
                reporter.op_error(
                    op,
                    "must contain at least one computation and one collective to overlap",
                );
            }
        }
        _ => {}
    }
}

fn verify_yield(op: &Operation, reporter: &mut Reporter) {
    let Some(parent) = op.parent_operation() else {
        return;
    };
    let parent = as_op(&parent);
    let expected = result_types(parent);
    let found = operand_types(op);
    if expected.len() != found.len() {
        reporter.op_error(
            op,
            format!(
                "yields {} values, but its parent '{}' has {} results",
                found.len(),
                op_name(parent),
                expected.len()
            ),
        );
        return;
    }
    for (i, (e, f)) in expected.iter().zip(&found).enumerate() {
        if e != f {
            reporter.op_error(
                op,
                format!("value #{i} has type {f}, but parent result #{i} has type {e}"),
            );
        }
    }
}

/// Upstream element-wise ops on coco tensors: one layout for all operands and
/// results (layouts only change through coco ops).
fn verify_elementwise(op: &Operation, reporter: &mut Reporter) {
    let types = operand_types(op).into_iter().chain(result_types(op));
    let tensors: Vec<DistTensor> = types.filter_map(DistTensor::from_type).collect();
    let Some(first_laid_out) = tensors.iter().find(|t| t.has_coco_layout()) else {
        return;
    };
    let expected = layout_text(first_laid_out);
    if let Some(other) = tensors.iter().find(|t| layout_text(t) != expected) {
        reporter.op_error(
            op,
            format!(
                "mixes layouts {expected} and {}; element-wise ops need one layout, change it explicitly \
                 (coco.all_reduce, coco.all_gather, coco.slice)",
                layout_text(other)
            ),
        );
    }
}

fn verify_transfer<'c, 'a>(
    op_ref: OperationRef<'c, 'a>,
    name: &str,
    groups: &HashSet<String>,
    reporter: &mut Reporter,
) -> Option<Transfer<'c, 'a>> {
    let op = as_op(&op_ref);
    let peer = symbol_attr(op, "peer")?;
    if !groups.contains(&peer) {
        reporter.op_error(op, format!("peer @{peer} is not a coco.process_group"));
        return None;
    }
    let own = enclosing(op, "func.func").and_then(|f| symbol_attr(as_op(&f), ops::GROUP_ATTR));
    let Some(own) = own else {
        reporter.op_error(
            op,
            format!(
                "must be in a function that runs on a process group (set '{}' on the func.func)",
                ops::GROUP_ATTR
            ),
        );
        return None;
    };
    if own == peer {
        reporter.op_error(
            op,
            format!("peer @{peer} is the group this function runs on"),
        );
        return None;
    }
    let ty = if name == ops::SEND {
        op.operand(0).ok()?.r#type()
    } else {
        op.result(0).ok()?.r#type()
    };
    Some(Transfer {
        op: op_ref,
        group: own,
        peer,
        ty,
    })
}

/// The k-th send from group A to group B pairs with the k-th receive in B from
/// A, in program order; types must agree.
fn match_transfers(sends: &[Transfer], recvs: &[Transfer], reporter: &mut Reporter) {
    let mut pairs: Vec<(String, String)> = sends
        .iter()
        .map(|s| (s.group.clone(), s.peer.clone()))
        .chain(recvs.iter().map(|r| (r.peer.clone(), r.group.clone())))
        .collect();
    pairs.sort();
    pairs.dedup();
    for (from, to) in pairs {
        let s: Vec<&Transfer> = sends
            .iter()
            .filter(|t| t.group == from && t.peer == to)
            .collect();
        let r: Vec<&Transfer> = recvs
            .iter()
            .filter(|t| t.group == to && t.peer == from)
            .collect();
        for k in 0..s.len().max(r.len()) {
            match (s.get(k), r.get(k)) {
                (Some(send), Some(recv)) if send.ty != recv.ty => reporter.op_error(
                    as_op(&recv.op),
                    format!(
                        "receives {} but the matching coco.send #{k} from @{from} (at {}) sends {}",
                        recv.ty,
                        location_text(as_op(&send.op).location()),
                        send.ty
                    ),
                ),
                (Some(send), None) => reporter.op_error(
                    as_op(&send.op),
                    format!("has no matching coco.recv from @{from} in a function on @{to} (send #{k} of this pair)"),
                ),
                (None, Some(recv)) => reporter.op_error(
                    as_op(&recv.op),
                    format!("has no matching coco.send from a function on @{from} (receive #{k} of this pair)"),
                ),
                _ => {}
            }
        }
    }
}
