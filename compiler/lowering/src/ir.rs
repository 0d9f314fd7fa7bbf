//! The IR questions the partitioner, the fused-collective rewrite and the
//! kernel emitter share: value identity, operands with the IR's lifetime,
//! which ops are free (rematerialised by kernels), element-wise or
//! communication (by the op facts table, `coco_dialects::coco::facts`),
//! local types, and value resolution through regions and free ops
//! ([`Values`]).

use std::collections::{HashMap, HashSet};

use coco_bundle::DType;
use coco_dialects::{
    coco::{
        facts::{facts, Class, Elementwise},
        ops, DistTensor, Layout, LocalShapeError, Mesh,
    },
    ir::{as_op, body_ops, defining_op, element_dtype, op_name},
    lifetime,
};
use melior::ir::{operation::OperationRef, Operation, Type, Value, ValueLike};

use crate::error::{Error, Result};

/// Identity of an SSA value across handles.
pub fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

pub fn op_key(op: &OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// Operand `index` of `op`, with the lifetime of the IR rather than of the
/// handle (melior ties values to the borrow they came from).
pub fn operand<'c, 'a>(op: &Operation<'c>, index: usize) -> Option<Value<'c, 'a>> {
    // SAFETY: every caller keeps the module alive while it uses the value.
    op.operand(index).ok().map(lifetime::value)
}

/// The identities of every result of `ops`.
pub fn results_of(ops: &[OperationRef]) -> HashSet<usize> {
    ops.iter()
        .flat_map(|op| {
            as_op(op)
                .results()
                .map(|r| key(r.into()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Ops that kernels rematerialise instead of reading from a buffer:
/// constants, splats (and broadcasts or slices of one value, such as LAMB's
/// trust ratio), arithmetic on builtin scalars and scalars read out of 0-d
/// tensors.
pub fn is_free(op: &Operation) -> bool {
    facts(&op_name(op)).class == Class::Constant
        || is_scalar_arithmetic(op)
        || is_scalar_read(op)
        || splat_source(op).is_some()
}

/// `tensor.extract %t[]` of a 0-d tensor (the verifier allows no other):
/// every kernel that reads the scalar is given the 0-d buffer and reads it
/// there, as it reads a scalar input.
pub fn is_scalar_read(op: &Operation) -> bool {
    op_name(op) == "tensor.extract" && op.operand_count() == 1
}

/// For a `coco.expand` of a 0-d tensor, or a `coco.slice` of such a
/// broadcast (every element the same value), the 0-d tensor or scalar
/// whose value fills it: kernels splat it at their local shape instead of
/// materialising the full-size broadcast and slicing it.
pub fn splat_source<'c, 'a>(op: &Operation<'c>) -> Option<Value<'c, 'a>> {
    let input = operand(op, 0)?;
    match op_name(op).as_str() {
        ops::EXPAND => DistTensor::from_type(input.r#type())
            .is_some_and(|t| t.rank() == 0)
            .then_some(input),
        ops::SLICE => {
            let def = defining_op(input)?;
            let def_op = as_op(&def);
            match op_name(def_op).as_str() {
                "tensor.splat" => operand(def_op, 0),
                _ => splat_source(def_op),
            }
        }
        _ => None,
    }
}

/// An arith or math op on builtin scalars (`math.powf %beta, %step : f32`
/// for a bias correction). No step or buffer holds its result: every kernel
/// that reads it recomputes it from its scalar inputs, once per launch, as
/// it rematerialises splat constants.
pub fn is_scalar_arithmetic(op: &Operation) -> bool {
    facts(&op_name(op)).elementwise == Elementwise::Upstream
        && op.result_count() == 1
        && op
            .operands()
            .chain(op.results().map(Value::from))
            .all(|v| element_dtype(v.r#type()).is_some())
}

/// A `coco.slice` whose part on each rank is contiguous in memory (every
/// dimension before the sliced one has size 1): a view at a rank-dependent
/// offset, `rank_stride` elements apart, rather than a computation.
pub fn contiguous_slice<'c: 'a, 'a>(
    op: &Operation<'c>,
    group: &Mesh,
    values: &Values<'c, 'a>,
) -> Option<usize> {
    if op_name(op) != ops::SLICE {
        return None;
    }
    // Only values that always live in buffers (arguments, communication
    // results) can be viewed; a slice of a value computed in the same
    // kernel is part of that kernel.
    let base = values.resolve(operand(op, 0)?);
    if let Some(producer) = defining_op(base) {
        if !is_communication(&op_name(as_op(&producer))) {
            return None;
        }
    }
    let result = DistTensor::from_type(op.result(0).ok()?.r#type())?;
    let Some(Layout::Sliced(dim)) = result.layout else {
        return None;
    };
    // The view's offset is the position times the part's size, into a
    // whole (plain-layout) tensor; a base on a #coco.mesh layout holds
    // only a block.
    if DistTensor::from_type(base.r#type()).is_some_and(|t| t.axes.is_some()) {
        return None;
    }
    let global = result.static_shape()?;
    if global[..dim as usize].iter().any(|&d| d != 1) {
        return None;
    }
    Some(result.local_shape(group.size()).ok()?.iter().product())
}

/// An op that communicates between ranks (`coco.send` and `coco.recv`
/// included): a plan step, never kernel code.
pub fn is_communication(name: &str) -> bool {
    ops::is_collective(name)
}

/// An element-wise op the kernel emitter fuses into one `linalg.generic`:
/// `coco.cast`, and arith/math ops on tensors that are not free.
pub fn is_elementwise(op: &Operation) -> bool {
    match facts(&op_name(op)).elementwise {
        Elementwise::Coco => true,
        Elementwise::Upstream => {
            !is_free(op)
                && op
                    .result(0)
                    .ok()
                    .is_some_and(|r| DistTensor::from_type(r.r#type()).is_some())
        }
        Elementwise::No | Elementwise::OwnKernel => false,
    }
}

/// Element type and local shape of a value of type `ty` on one rank of
/// `group` (the stage's mesh; one flat axis without a `coco.mesh`).
pub fn local_type(ty: Type, group: &Mesh, location: &str) -> Result<(DType, Vec<usize>)> {
    match DistTensor::from_type(ty) {
        Some(tensor) => {
            let dtype = element_dtype(tensor.element).ok_or_else(|| {
                Error::unsupported(
                    location,
                    format!("element type {} is not supported", tensor.element),
                )
            })?;
            let dynamic = || Error::unsupported(location, format!("{ty} has a dynamic shape"));
            // A `#coco.mesh` layout cuts each dimension by the axes that
            // slice it; a plain layout slices along every axis at once.
            let placement = match &tensor.axes {
                Some(_) => Some(
                    tensor
                        .placement(group)
                        .map_err(|why| Error::unsupported(location, format!("{ty} {why}")))?,
                ),
                None => None,
            };
            let shape = match &placement {
                Some(placement) => {
                    let global: Vec<usize> = tensor
                        .static_shape()
                        .ok_or_else(dynamic)?
                        .iter()
                        .map(|&d| d as usize)
                        .collect();
                    placement.local_shape(group, &global)
                }
                None => tensor.local_shape(group.size()),
            };
            let parts = |dim| {
                placement
                    .as_ref()
                    .map_or(group.size(), |p| p.parts(group, dim))
            };
            let shape = shape.map_err(|e| match e {
                LocalShapeError::Dynamic => dynamic(),
                LocalShapeError::NotDivisible { dim, size } => Error::unsupported(
                    location,
                    format!(
                        "dimension {dim} of size {size} is sliced over {} ranks, which does not divide it",
                        parts(dim)
                    ),
                ),
            })?;
            Ok((dtype, shape))
        }
        None => Ok((
            element_dtype(ty).ok_or_else(|| {
                Error::unsupported(location, format!("type {ty} is not supported"))
            })?,
            Vec::new(),
        )),
    }
}

/// Value resolution through region results and free ops.
pub struct Values<'c, 'a> {
    /// Region result -> the value its `coco.yield` returns.
    yields: HashMap<usize, Value<'c, 'a>>,
    /// Results of free ops that a collective, an update or the return
    /// reads: a kernel of their own stores them (the partitioner's
    /// `materialise`, through [`Values::store`]).
    stored_free: HashSet<usize>,
}

impl<'c: 'a, 'a> Values<'c, 'a> {
    pub fn new(function: &'a Operation<'c>) -> Self {
        let mut yields = HashMap::new();
        collect_yields(function, &mut yields);
        Values {
            yields,
            stored_free: HashSet::new(),
        }
    }

    /// Marks the free value `value` as stored by a kernel of its own, so
    /// that uses read it from that kernel's buffer; false when it already
    /// was.
    pub(crate) fn store(&mut self, value: Value<'c, 'a>) -> bool {
        self.stored_free.insert(key(value))
    }

    /// The value a use of `value` reads: region results are the values
    /// their regions yield.
    pub fn resolve(&self, mut value: Value<'c, 'a>) -> Value<'c, 'a> {
        while let Some(yielded) = self.yields.get(&key(value)) {
            value = *yielded;
        }
        value
    }

    /// The value a use of `value` reads from a buffer; `None` when it is a
    /// constant (a free op, which only kernels can rematerialise).
    pub(crate) fn stored(&self, value: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
        let sources = self.sources(value);
        (sources.len() == 1 && key(sources[0]) == key(self.resolve(value))).then(|| sources[0])
    }

    /// The values a use of `value` needs from buffers: itself, or for a
    /// free op, what that op is computed from.
    pub fn sources(&self, value: Value<'c, 'a>) -> Vec<Value<'c, 'a>> {
        let value = self.resolve(value);
        match defining_op(value) {
            Some(op) if is_free(as_op(&op)) && !self.stored_free.contains(&key(value)) => {
                let op = as_op(&op);
                let mut out = Vec::new();
                for i in 0..op.operand_count() {
                    if let Some(v) = operand(op, i) {
                        out.extend(self.sources(v));
                    }
                }
                out
            }
            _ => vec![value],
        }
    }
}

fn collect_yields<'c, 'a>(op: &'a Operation<'c>, yields: &mut HashMap<usize, Value<'c, 'a>>) {
    for child in body_ops(op) {
        let child_op = as_op(&child);
        let name = op_name(child_op);
        if [ops::FUSED_KERNEL, ops::FUSED_COLLECTIVE, ops::OVERLAP].contains(&name.as_str()) {
            // SAFETY: `child` lives as long as `op`; the reference only
            // re-borrows it for that lifetime.
            let child_op: &'a Operation<'c> = unsafe { &*(child_op as *const Operation<'c>) };
            let body = body_ops(child_op);
            if let Some(terminator) = body.last() {
                let terminator = as_op(terminator);
                if op_name(terminator) == ops::YIELD {
                    for i in 0..terminator.operand_count() {
                        if let (Some(yielded), Ok(result)) =
                            (operand(terminator, i), child_op.result(i))
                        {
                            yields.insert(key(result.into()), yielded);
                        }
                    }
                }
            }
            collect_yields(child_op, yields);
        }
    }
}
