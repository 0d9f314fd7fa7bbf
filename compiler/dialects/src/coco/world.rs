//! What a world size must satisfy for a program to run on it: it splits
//! into the pipeline stages (`coco.process_group`: every stage gets the same
//! number of ranks), and every sliced tensor divides over its group. Both
//! backends ask here about the stages, so a bad world size reads the same,
//! at the same line, whichever runs the program; the autotuner asks about
//! everything before it picks a schedule.

use melior::ir::{Operation, ValueLike};

use super::{layout::LocalShapeError, ops, DistTensor, Mesh};
use crate::ir::{
    as_op, body_ops, function_signature, int_attr, location_text, nested_ops, op_name, str_attr,
    symbol_attr,
};

/// Where and why `ranks` cannot be split into the program's stages:
/// `(location, message)` at the first `coco.process_group`, or `None` when
/// it can (or the program has no stages).
pub fn stage_split_error(module: &Operation, ranks: usize) -> Option<(String, String)> {
    body_ops(module).iter().find_map(|op| {
        let op = as_op(op);
        if op_name(op) != ops::PROCESS_GROUP {
            return None;
        }
        let stages = usize::try_from(int_attr(op, "num_stages").unwrap_or(1)).unwrap_or(1);
        (stages > 1 && !ranks.is_multiple_of(stages)).then(|| {
            (
                location_text(op.location()),
                format!(
                    "world size {ranks} does not divide into the {stages} pipeline stages of coco.process_group @{} (every stage needs the same number of ranks: run on a multiple of {stages})",
                    str_attr(op, "sym_name").unwrap_or_default()
                ),
            )
        })
    })
}

/// Where and why the program's `coco.mesh` does not span each function's
/// group on `ranks` ranks (the world, or a pipeline stage's share of it).
pub fn mesh_size_error(module: &Operation, ranks: usize) -> Option<(String, String)> {
    let declared = Mesh::declared(module)?;
    let stages = num_stages(module);
    let group = ranks / stages;
    let needed = declared.mesh.size();
    (group != needed || !ranks.is_multiple_of(stages)).then(|| {
        let found = if stages > 1 {
            format!(
                "each of the {stages} pipeline stages has {group} of the world's {ranks}; run on {} ranks",
                stages * needed
            )
        } else {
            format!("the world has {ranks}; run on {needed} ranks")
        };
        (
            declared.location,
            format!(
                "the mesh @{} {} spans {needed} ranks, but {found}",
                declared.name,
                declared.mesh.text()
            ),
        )
    })
}

fn num_stages(module: &Operation) -> usize {
    body_ops(module)
        .iter()
        .find(|op| op_name(as_op(op)) == ops::PROCESS_GROUP)
        .and_then(|op| int_attr(as_op(op), "num_stages"))
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(1)
        .max(1)
}

/// Where and why `module` cannot run on `ranks` ranks: the stage split, then
/// the first sliced function argument or op result whose sliced dimension
/// its group does not divide. `None` when it can run.
pub fn world_size_problem(module: &Operation, ranks: usize) -> Option<(String, String)> {
    if let Some(problem) = stage_split_error(module, ranks) {
        return Some(problem);
    }
    if let Some(problem) = mesh_size_error(module, ranks) {
        return Some(problem);
    }
    let stages = num_stages(module);
    let divides = |ty: melior::ir::Type, group: usize| -> Result<(), String> {
        let Some(tensor) = DistTensor::from_type(ty) else {
            return Ok(());
        };
        let mesh = Mesh::of_group(module, group);
        let (Ok(placement), Some(global)) = (tensor.placement(&mesh), tensor.static_shape()) else {
            return Ok(());
        };
        let global: Vec<usize> = global.iter().map(|&d| d as usize).collect();
        match placement.local_shape(&mesh, &global) {
            Err(LocalShapeError::NotDivisible { dim, size }) => {
                let over = placement.parts(&mesh, dim);
                Err(format!(
                    "dimension {dim} of size {size} is sliced over {over} ranks, which does not divide it"
                ))
            }
            _ => Ok(()),
        }
    };
    for func in body_ops(module) {
        let func = as_op(&func);
        if op_name(func) != "func.func" {
            continue;
        }
        let group = if symbol_attr(func, ops::GROUP_ATTR).is_some() {
            ranks / stages
        } else {
            ranks
        }
        .max(1);
        let location = location_text(func.location());
        if let Some((inputs, _)) = function_signature(func) {
            for (i, ty) in inputs.iter().enumerate() {
                if let Err(message) = divides(*ty, group) {
                    return Some((format!("{location}: argument {i}"), message));
                }
            }
        }
        for op in nested_ops(func) {
            let op = as_op(&op);
            for result in op.results() {
                if let Err(message) = divides(result.r#type(), group) {
                    let location = location_text(op.location());
                    // Ops a pass made may carry no location of their own.
                    let at = if location == "an unknown location" {
                        format!("a '{}' the schedule made", op_name(op))
                    } else {
                        format!("{location}: the result of '{}'", op_name(op))
                    };
                    return Some((at, message));
                }
            }
        }
    }
    None
}
