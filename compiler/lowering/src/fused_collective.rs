//! CoCoNet's one-kernel fused collective: inside a `coco.fused_collective`,
//! a kernel takes in the reduce_scatters right before it and the
//! all_gathers right after it, and becomes one `Step::PeerLaunch`.
//!
//! The kernel reads part `rank` of each reduce_scatter operand straight
//! from every peer's buffer and folds the parts in rank order (the
//! interpreter's order, so exact on any world size), computes, and writes
//! each all_gather operand into its own part of the gathered buffer and
//! into that part of every other rank's copy. No collective step and no
//! copy is left: the peers' buffers live in memory every rank of the node
//! maps (`runtime/executor/src/cpu/peers.rs`), and the executor
//! synchronises the stage before and after the launch.
//!
//! What is taken in, and why the rest is not:
//! - a reduce_scatter along dimension 0, so a part is contiguous memory,
//!   whose result only this kernel reads (anything else would need the
//!   reduced part in a buffer after all), of a stored value (a constant has
//!   no buffer to read), and not an integer `avg` (whose rounding the fold
//!   in the kernel does not reproduce); `i1` stays with MPI too;
//! - an all_gather along dimension 0 of a value this kernel computes;
//! - neither over one axis of a mesh: a peer launch spans the whole stage.
//!
//! Anything else in the region keeps its collective step, so the rewrite
//! never changes what a program computes, only where the work runs.

use std::ops::Range;

use coco_dialects::{
    coco::{ops, DistTensor, Layout, Mesh, Reduction},
    ir::{as_op, int_attr, op_name, str_attr, DType},
};
use melior::ir::{operation::OperationRef, Value, ValueLike};

use crate::{
    ir::{key, local_type, operand, results_of, Values},
    units::{readers, Unit},
};

/// `units` with each kernel of a fused-collective region (`regions`, unit
/// index ranges) merged with the reduce_scatters before it and the
/// all_gathers after it that it can take in.
pub(crate) fn peer_units<'c: 'a, 'a>(
    units: Vec<Unit<'c, 'a>>,
    regions: &[Range<usize>],
    tail: &[OperationRef<'c, 'a>],
    values: &Values<'c, 'a>,
    group: &Mesh,
) -> Vec<Unit<'c, 'a>> {
    let read_by = readers(&units, tail, values, group);
    let in_region = |i: usize| regions.iter().any(|r| r.contains(&i));
    let communication = |unit: &Unit<'c, 'a>, name: &str| match unit {
        Unit::Communication(op) if op_name(as_op(op)) == name => Some(*op),
        _ => None,
    };
    // Which units each kernel takes in: (first, kernel, last).
    let mut merged: Vec<(usize, usize, usize)> = Vec::new();
    for (k, unit) in units.iter().enumerate() {
        let Unit::Kernel(kernel_ops) = unit else {
            continue;
        };
        if !in_region(k) {
            continue;
        }
        let taken = merged.last().map_or(0, |m| m.2 + 1);
        let mut first = k;
        while first > taken && in_region(first - 1) {
            let Some(rs) = communication(&units[first - 1], ops::REDUCE_SCATTER) else {
                break;
            };
            let result: Value = as_op(&rs)
                .result(0)
                .map(Into::into)
                .ok()
                .unwrap_or_else(|| unreachable!("a verified reduce_scatter has a result"));
            let only_this_kernel = read_by
                .get(&key(result))
                .is_some_and(|r| r.len() == 1 && r.contains(&k));
            if !only_this_kernel || !reduce_scatter_fits(&rs, values, group) {
                break;
            }
            first -= 1;
        }
        let produced = results_of(kernel_ops);
        let mut last = k;
        while last + 1 < units.len() && in_region(last + 1) {
            let Some(ag) = communication(&units[last + 1], ops::ALL_GATHER) else {
                break;
            };
            let computed_here =
                operand(as_op(&ag), 0).is_some_and(|v| produced.contains(&key(values.resolve(v))));
            if !computed_here || !along_first_dim(operand(as_op(&ag), 0)) || over_axis(&ag) {
                break;
            }
            last += 1;
        }
        if first < k || last > k {
            merged.push((first, k, last));
        }
    }
    if merged.is_empty() {
        return units;
    }
    let mut out = Vec::new();
    let mut units: Vec<Option<Unit<'c, 'a>>> = units.into_iter().map(Some).collect();
    let mut next = merged.iter().peekable();
    let mut i = 0;
    while i < units.len() {
        match next.peek() {
            Some(&&(first, k, last)) if first == i => {
                let op_of = |u: &mut Option<Unit<'c, 'a>>| match u.take() {
                    Some(Unit::Communication(op)) => op,
                    _ => unreachable!("merged units are collectives around a kernel"),
                };
                let reduce_scatters = units[first..k].iter_mut().map(op_of).collect();
                let all_gathers = units[k + 1..=last].iter_mut().map(op_of).collect();
                let Some(Unit::Kernel(kernel_ops)) = units[k].take() else {
                    unreachable!("the middle unit is the kernel")
                };
                out.push(Unit::Peer {
                    reduce_scatters,
                    ops: kernel_ops,
                    all_gathers,
                });
                next.next();
                i = last + 1;
            }
            _ => {
                out.extend(units[i].take());
                i += 1;
            }
        }
    }
    out
}

/// A reduce_scatter a peer kernel computes itself (see the module docs).
fn reduce_scatter_fits(rs: &OperationRef, values: &Values, group: &Mesh) -> bool {
    let op = as_op(rs);
    let Ok(result) = op.result(0) else {
        return false;
    };
    let Some(input) = operand(op, 0) else {
        return false;
    };
    let sliced_first = DistTensor::from_type(result.r#type())
        .is_some_and(|t| t.layout == Some(Layout::Sliced(0)) && t.rank() > 0);
    let kind = int_attr(op, "kind")
        .and_then(Reduction::from_value)
        .unwrap_or(Reduction::Sum);
    let exact_fold = match local_type(input.r#type(), group, "") {
        Ok((e, _)) if e.is_float() => true,
        Ok((DType::I64 | DType::I32, _)) => kind != Reduction::Avg,
        _ => false,
    };
    sliced_first && exact_fold && values.stored(input).is_some() && !over_axis(rs)
}

/// Whether a collective runs over one axis of a mesh, not the whole stage.
fn over_axis(op: &OperationRef) -> bool {
    str_attr(as_op(op), "axis").is_some()
}

/// Whether `value` (an all_gather operand) is sliced along dimension 0.
fn along_first_dim(value: Option<Value>) -> bool {
    value
        .and_then(|v| DistTensor::from_type(v.r#type()))
        .is_some_and(|t| t.layout == Some(Layout::Sliced(0)) && t.rank() > 0)
}
