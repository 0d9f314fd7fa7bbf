//! The peer side of a one-kernel fused collective (`Step::PeerLaunch`):
//! parameters for the peers' parts, the rank-order fold of a
//! reduce_scatter's parts, and the extra destinations of an all_gather's
//! operand.
//!
//! ```text
//! func.func @adam_k1(%p0: memref<4096xf32>, ...,          // own buffers
//!                    %q0_0: memref<4096xf32>, %q0_1: ...,  // part `rank` of the gradient on ranks 0, 1
//!                    %w0_1: memref<4096xf32>,              // part `rank` of the parameters on rank + 1
//!                    %rank: index)
//! ```
//!
//! A fold inside an element-wise cluster is a few scalar ops at the top of
//! its body (`%g = ((%q0 + %q1) + %q2)`, then `/ 3.0` for avg), so reading
//! the peers' gradients, reducing them and updating is one pass over
//! memory; an output written to the peers is yielded once per destination
//! by the same loop. The fold rounds after every step in rank order, as
//! `coco_interp::collective::reduce_ranks` does, so a peer launch is
//! bitwise equal to the interpreter's reduce_scatter on any world size.

use std::fmt::Write as _;

use coco_bundle::{BufferType, DType};
use coco_dialects::coco::Reduction;
use melior::ir::Value;

use super::{identity_map, parallel, types::memref_type, Emitter, Tensor};
use crate::{
    error::{Error, Result},
    ir::key,
    partition::KernelUnit,
};

/// A reduce_scatter result the kernel folds from the peers' parts.
pub(super) struct PeerSum {
    pub parts: Vec<Tensor>,
    pub reduction: Reduction,
}

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    /// The peer parameters after the kernel's own ones: `group` parts per
    /// folded value, `group - 1` destinations per value written to the
    /// peers (`Step::PeerLaunch` in `plan.rs` fixes the order).
    pub(super) fn peer_parameters(
        &mut self,
        unit: &KernelUnit<'c, 'a>,
        params: &mut Vec<String>,
        types: &mut Vec<BufferType>,
    ) -> Result<()> {
        for (j, read) in unit.peer_reads.iter().enumerate() {
            let (element, shape) = self.local(read.value, &unit.name)?;
            let memref = memref_type(&shape, element);
            let mut parts = Vec::new();
            for q in 0..self.group.size() {
                params.push(format!("%q{j}_{q}: {memref} {{llvm.noalias}}"));
                types.push(BufferType {
                    dtype: element,
                    shape: shape.clone(),
                });
                let name = format!("%qin{j}_{q}");
                self.line(&format!(
                    "{name} = bufferization.to_tensor %q{j}_{q} restrict : {memref}"
                ));
                parts.push(Tensor {
                    name,
                    element,
                    shape: shape.clone(),
                });
            }
            self.peer_sums.insert(
                key(read.value),
                PeerSum {
                    parts,
                    reduction: read.reduction,
                },
            );
        }
        for (j, value) in unit.peer_writes.iter().enumerate() {
            let (element, shape) = self.local(*value, &unit.name)?;
            let memref = memref_type(&shape, element);
            let mut destinations = Vec::new();
            for k in 1..self.group.size() {
                params.push(format!("%w{j}_{k}: {memref} {{llvm.noalias}}"));
                types.push(BufferType {
                    dtype: element,
                    shape: shape.clone(),
                });
                destinations.push((format!("%w{j}_{k}"), memref.clone()));
            }
            self.peer_destinations.insert(key(*value), destinations);
        }
        Ok(())
    }

    /// A folded value as a tensor of its own (for a consumer outside an
    /// element-wise cluster): one generic over the parts.
    pub(super) fn peer_sum_tensor(
        &mut self,
        value: Value<'c, 'a>,
        location: &str,
    ) -> Option<Result<Tensor>> {
        let sum = self.peer_sums.get(&key(value))?;
        let parts = sum.parts.clone();
        let reduction = sum.reduction;
        let first = parts[0].clone();
        let rank = first.shape.len();
        let ty = first.ty();
        let e = self.empty(&first.shape, first.element);
        let args: Vec<String> = (0..parts.len()).map(|q| format!("%a{q}")).collect();
        let (lines, result) = match fold_lines(reduction, &args, first.element, "%f") {
            Ok(folded) => folded,
            Err(message) => return Some(Err(Error::unsupported(location, message))),
        };
        let tensor = Tensor {
            name: self.fresh("t"),
            ..first.clone()
        };
        let mut block: Vec<String> = args
            .iter()
            .map(|a| format!("{a}: {}", first.element))
            .collect();
        block.push(format!("%o: {}", first.element));
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{}], iterator_types = {}}} ins({} : {}) outs({e} : {ty}) {{\n    ^bb0({}):\n{lines}      linalg.yield {result} : {}\n    }} -> {ty}",
            tensor.name,
            vec![identity_map(rank); parts.len() + 1].join(", "),
            parallel(rank),
            parts.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(", "),
            vec![ty.clone(); parts.len()].join(", "),
            block.join(", "),
            first.element,
        ));
        self.set(value, tensor.clone());
        Some(Ok(tensor))
    }
}

/// The scalar lines that fold `parts` (in rank order) with `reduction`,
/// names starting with `prefix`; returns the lines and the result's name.
pub(super) fn fold_lines(
    reduction: Reduction,
    parts: &[String],
    element: DType,
    prefix: &str,
) -> std::result::Result<(String, String), String> {
    let float = element.is_float();
    let op = match (reduction, float) {
        (Reduction::Sum | Reduction::Avg, true) => "arith.addf",
        (Reduction::Prod, true) => "arith.mulf",
        (Reduction::Min, true) => "arith.minnumf",
        (Reduction::Max, true) => "arith.maxnumf",
        (Reduction::Sum, false) => "arith.addi",
        (Reduction::Prod, false) => "arith.muli",
        (Reduction::Min, false) => "arith.minsi",
        (Reduction::Max, false) => "arith.maxsi",
        (Reduction::Avg, false) => {
            return Err("an integer avg is not folded in a peer launch".into())
        }
    };
    let mut lines = String::new();
    let mut acc = parts[0].clone();
    for (q, part) in parts.iter().enumerate().skip(1) {
        let next = format!("{prefix}{q}");
        let _ = writeln!(lines, "      {next} = {op} {acc}, {part} : {element}");
        acc = next;
    }
    if reduction == Reduction::Avg && parts.len() > 1 {
        let _ = writeln!(
            lines,
            "      {prefix}n = arith.constant {}.0 : {element}\n      {prefix}avg = arith.divf {acc}, {prefix}n : {element}",
            parts.len()
        );
        acc = format!("{prefix}avg");
    }
    Ok((lines, acc))
}
