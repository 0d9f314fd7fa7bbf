//! Executing one function on the ranks of its process group.
//!
//! Every SSA value holds one [`Tensor`] per rank: the rank's local part (a
//! full tensor for `#coco.local` and `#coco.replicated`, its slice for
//! `#coco.sliced<d>`). Ops run rank by rank; collectives combine the ranks'
//! parts in rank order, which fixes the floating-point association.

use coco_dialects::lifetime;
use std::collections::{HashMap, VecDeque};

use coco_dialects::{
    coco::{ops as coco_ops, DistTensor, LocalShapeError, Mesh, Placement, Reduction},
    ir::{as_op, body_ops, int_attr, location_text, nested_ops, op_name, str_attr, symbol_attr},
};
use melior::ir::{
    operation::OperationRef, BlockLike, Operation, RegionLike, Type, Value, ValueLike,
};

use crate::{
    budget::{self, MemoryAccount},
    collective, compute, elementwise,
    error::{Error, Result},
    tensor::{DType, Tensor},
};

/// One value on every rank of the group.
pub type PerRank = Vec<Tensor>;

/// Messages between process groups: `(from, to)` → values in send order.
pub type Channels = HashMap<(String, String), VecDeque<PerRank>>;

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

/// Where a stage's run stands after [`Frame::resume`].
pub enum Progress {
    Finished(FunctionResult),
    Waiting(Waiting),
}

/// A `coco.recv` whose message is not there yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub location: String,
    pub peer: String,
    /// Its index in the function body: the same index on the next resume
    /// means the stage has not moved.
    pub at_op: usize,
}

/// What a function produced.
pub struct FunctionResult {
    pub results: Vec<PerRank>,
    /// Argument index → its value after `coco.update`.
    pub updates: Vec<(usize, PerRank)>,
}

/// The interpreter state for one function run.
pub struct Frame<'c> {
    pub group_size: usize,
    /// The group's ranks as the program's mesh (one flat axis without one).
    pub mesh: Mesh,
    values: HashMap<usize, PerRank>,
    pub group: Option<String>,
    updates: Vec<(usize, PerRank)>,
    arguments: Vec<Value<'c, 'c>>,
    /// Uses left per value; a value is dropped after its last use, which
    /// keeps memory at the live set (real tensor sizes x ranks).
    uses_left: HashMap<usize, usize>,
    /// What the live set, values in flight and the host's values take;
    /// each op's operands and results are checked against it first.
    pub memory: MemoryAccount,
    /// The index of the next top-level op to run (send and receive are
    /// top-level ops, so a stage only ever waits between them).
    next_op: usize,
}

/// The local shape of a value of type `tensor` on one rank of `mesh`, and
/// its placement.
pub fn local_shape(
    tensor: &DistTensor,
    mesh: &Mesh,
    what: &str,
) -> Result<(Vec<usize>, Placement)> {
    let placement = tensor
        .placement(mesh)
        .map_err(|why| Error::Program(format!("{what} {why}")))?;
    let global: Vec<usize> = tensor
        .static_shape()
        .ok_or_else(|| Error::Program(format!("{what} has a dynamic shape")))?
        .iter()
        .map(|&d| d as usize)
        .collect();
    let shape = placed_shape(&placement, mesh, &global, what)?;
    Ok((shape, placement))
}

/// The shape one rank of `mesh` holds of a tensor of `global` shape placed
/// as `placement`; a sliced dimension its ranks do not divide is an error
/// naming `what`.
pub fn placed_shape(
    placement: &Placement,
    mesh: &Mesh,
    global: &[usize],
    what: &str,
) -> Result<Vec<usize>> {
    placement.local_shape(mesh, global).map_err(|e| match e {
        LocalShapeError::Dynamic => Error::Program(format!("{what} has a dynamic shape")),
        LocalShapeError::NotDivisible { dim, size } => Error::NotDivisible {
            world: placement.parts(mesh, dim),
            dim,
            size,
            what: what.to_string(),
        },
    })
}

/// The dtype, local shape and placement of a value of type `ty` on one
/// rank of `mesh` (scalars are 0-d and have no placement).
pub fn local_type(
    ty: Type,
    mesh: &Mesh,
    what: &str,
) -> Result<(DType, Vec<usize>, Option<Placement>)> {
    match DistTensor::from_type(ty) {
        Some(tensor) => {
            let dtype = crate::tensor::dtype_of(tensor.element).ok_or_else(|| {
                Error::Program(format!(
                    "{what} has unsupported element type {}",
                    tensor.element
                ))
            })?;
            let (shape, placement) = local_shape(&tensor, mesh, what)?;
            Ok((dtype, shape, Some(placement)))
        }
        None => {
            let dtype = crate::tensor::dtype_of(ty)
                .ok_or_else(|| Error::Program(format!("{what} has unsupported type {ty}")))?;
            Ok((dtype, Vec::new(), None))
        }
    }
}

impl<'c> Frame<'c> {
    pub fn new(mesh: Mesh, group: Option<String>, memory: MemoryAccount) -> Self {
        Frame {
            group_size: mesh.size(),
            mesh,
            values: HashMap::new(),
            group,
            updates: Vec::new(),
            arguments: Vec::new(),
            uses_left: HashMap::new(),
            memory,
            next_op: 0,
        }
    }

    fn get(&self, value: Value, op: &Operation) -> Result<&PerRank> {
        self.values.get(&key(value)).ok_or_else(|| {
            Error::Program(format!(
                "{}: operand of '{}' has no value (it is defined later or outside the function)",
                location_text(op.location()),
                op_name(op)
            ))
        })
    }

    /// The value of an operand; moved out on its last use. Either way it
    /// leaves the account: the op that takes it accounts for it.
    fn take(&mut self, value: Value, op: &Operation) -> Result<PerRank> {
        let k = key(value);
        let left = self.uses_left.entry(k).or_insert(1);
        *left = left.saturating_sub(1);
        if *left == 0 {
            if let Some(data) = self.values.remove(&k) {
                self.memory.release(budget::value_bytes(&data));
                return Ok(data);
            }
        }
        self.get(value, op).cloned()
    }

    fn set(&mut self, value: Value, data: PerRank) {
        self.memory.add(budget::value_bytes(&data));
        if let Some(old) = self.values.insert(key(value), data) {
            self.memory.release(budget::value_bytes(&old));
        }
    }

    /// Binds `func`'s arguments (one `PerRank` per function argument) and
    /// counts the uses of its values; [`Frame::resume`] then runs it.
    pub fn start(&mut self, func: &'c Operation<'c>, arguments: Vec<PerRank>) -> Result<()> {
        let region = func.region(0).map_err(|e| Error::Program(e.to_string()))?;
        let block = region.first_block().ok_or_else(|| {
            Error::Program(format!(
                "{}: the function has no body",
                location_text(func.location())
            ))
        })?;
        for (i, data) in arguments.into_iter().enumerate() {
            let argument: Value = block
                .argument(i)
                .map_err(|e| Error::Program(e.to_string()))?
                .into();
            let argument: Value<'c, 'c> = lifetime::value(argument);
            self.arguments.push(argument);
            self.set(argument, data);
        }
        for op in nested_ops(func) {
            for operand in as_op(&op).operands() {
                *self.uses_left.entry(key(operand)).or_default() += 1;
            }
        }
        self.next_op = 0;
        Ok(())
    }

    /// Runs `func`'s body from where it stopped until it returns or reaches
    /// a `coco.recv` whose message has not been sent yet. Stages are
    /// coroutines over `channels`: the same rule the verifier's deadlock
    /// check and the executors follow (a send never waits, a receive waits
    /// for its peer's send), so a 1F1B schedule, where a stage receives
    /// after it sends, runs here as it does on the ranks.
    pub fn resume(&mut self, func: &'c Operation<'c>, channels: &mut Channels) -> Result<Progress> {
        let ops = body_ops(func);
        while let Some(op_ref) = ops.get(self.next_op) {
            let op = as_op(op_ref);
            let name = op_name(op);
            if name == "func.return" {
                let results = op
                    .operands()
                    .map(|v| self.take(v, op))
                    .collect::<Result<_>>()?;
                // Values never used die with the frame.
                for (_, data) in self.values.drain() {
                    self.memory.release(budget::value_bytes(&data));
                }
                self.next_op = ops.len();
                return Ok(Progress::Finished(FunctionResult {
                    results,
                    updates: std::mem::take(&mut self.updates),
                }));
            }
            if let Some(wait) = self.pending_receive(op, channels) {
                return Ok(Progress::Waiting(wait));
            }
            self.run_op(op, &name, channels)?;
            self.next_op += 1;
        }
        Err(Error::Program(format!(
            "{}: the function ends without func.return",
            location_text(func.location())
        )))
    }

    /// The first receive of `op` (itself, or one in its regions: an
    /// overlap may hold transfers) whose message has not been sent yet.
    fn pending_receive(&self, op: &Operation, channels: &Channels) -> Option<Waiting> {
        let own = self.group.clone().unwrap_or_default();
        let nested = nested_ops(op);
        let receives = std::iter::once(op)
            .chain(nested.iter().map(|o| as_op(o)))
            .filter(|o| op_name(o) == coco_ops::RECV);
        let mut needed: HashMap<String, usize> = HashMap::new();
        for receive in receives {
            let peer = symbol_attr(receive, "peer").unwrap_or_default();
            let count = needed.entry(peer.clone()).or_default();
            *count += 1;
            let queued = channels
                .get(&(peer.clone(), own.clone()))
                .map_or(0, VecDeque::len);
            if queued < *count {
                return Some(Waiting {
                    location: location_text(receive.location()),
                    peer,
                    at_op: self.next_op,
                });
            }
        }
        None
    }

    /// Runs a block's operations; returns the operands of its terminator
    /// (`func.return` or `coco.yield`).
    fn run_ops(
        &mut self,
        ops: Vec<OperationRef<'c, '_>>,
        channels: &mut Channels,
    ) -> Result<Vec<PerRank>> {
        for op_ref in ops {
            let op = as_op(&op_ref);
            let name = op_name(op);
            if name == "func.return" || name == coco_ops::YIELD {
                return op.operands().map(|v| self.take(v, op)).collect();
            }
            self.run_op(op, &name, channels)?;
        }
        Ok(Vec::new())
    }

    fn run_op(&mut self, op: &Operation<'c>, name: &str, channels: &mut Channels) -> Result<()> {
        let location = location_text(op.location());
        let unsupported = |detail: &str| Error::Unsupported {
            location: location.clone(),
            op: name.to_string(),
            detail: if detail.is_empty() {
                String::new()
            } else {
                format!(" ({detail})")
            },
        };
        let operands: Vec<PerRank> = op
            .operands()
            .map(|v| self.take(v, op))
            .collect::<Result<_>>()?;
        let result_type = op.result(0).ok().map(|r| r.r#type());
        let result_info = match result_type {
            Some(ty) => Some(local_type(
                ty,
                &self.mesh,
                &format!("{location}: the result of '{name}'"),
            )?),
            None => None,
        };
        let g = self.group_size;
        // The operands (taken out of the account above), and the results or
        // the copy a send or an update keeps, are all alive at once; an op
        // may also hold one temporary as large as its results (the index
        // map of an expand or a transpose, a gather's concatenation).
        let operand_bytes = operands
            .iter()
            .fold(0u64, |n, o| n.saturating_add(budget::value_bytes(o)));
        let new_bytes = match (name, &result_info) {
            (coco_ops::SEND | coco_ops::UPDATE, _) => {
                operands.last().map_or(0, |o| budget::value_bytes(o))
            }
            (coco_ops::FUSED_KERNEL | coco_ops::FUSED_COLLECTIVE | coco_ops::OVERLAP, _) => 0,
            (_, Some((_, shape, _))) => budget::bytes_of(
                shape
                    .iter()
                    .try_fold(2 * g as u64, |n, &d| n.checked_mul(d as u64))
                    .unwrap_or(u64::MAX),
            ),
            (_, None) => 0,
        };
        self.memory.check(
            &format!("'{name}' at {location}"),
            operand_bytes.saturating_add(new_bytes),
        )?;

        let results: Vec<PerRank> = match name {
            coco_ops::FUSED_KERNEL | coco_ops::FUSED_COLLECTIVE | coco_ops::OVERLAP => {
                let ops = body_ops(op);
                self.run_ops(ops, channels)?
            }
            coco_ops::UPDATE => {
                let target = op.operand(0).map_err(|e| Error::Program(e.to_string()))?;
                let index = self
                    .arguments
                    .iter()
                    .position(|a| key(*a) == key(target))
                    .ok_or_else(|| {
                        Error::Program(format!(
                            "{location}: coco.update target is not a function argument"
                        ))
                    })?;
                if let Some(previous) = self.updates.iter().position(|(i, _)| *i == index) {
                    let (_, old) = self.updates.remove(previous);
                    self.memory.release(budget::value_bytes(&old));
                }
                self.memory.add(budget::value_bytes(&operands[1]));
                self.updates.push((index, operands[1].clone()));
                Vec::new()
            }
            coco_ops::SEND => {
                let peer = symbol_attr(op, "peer").unwrap_or_default();
                let own = self.group.clone().ok_or_else(|| {
                    Error::Program(format!("{location}: coco.send outside a process group"))
                })?;
                self.memory.add(budget::value_bytes(&operands[0]));
                channels
                    .entry((own, peer))
                    .or_default()
                    .push_back(operands[0].clone());
                Vec::new()
            }
            coco_ops::RECV => {
                let peer = symbol_attr(op, "peer").unwrap_or_default();
                let own = self.group.clone().ok_or_else(|| {
                    Error::Program(format!("{location}: coco.recv outside a process group"))
                })?;
                // `resume` waits until every receive of a top-level op has
                // its message.
                let data = channels
                    .get_mut(&(peer.clone(), own))
                    .and_then(VecDeque::pop_front)
                    .ok_or_else(|| {
                        Error::Program(format!(
                            "{location}: coco.recv from @{peer} has no message to take"
                        ))
                    })?;
                // In flight it was on the account; `set` adds it again.
                self.memory.release(budget::value_bytes(&data));
                if data.len() != g {
                    return Err(Error::Program(format!(
                        "{location}: coco.recv from @{peer}: the sending group has {} ranks, this one {g}",
                        data.len()
                    )));
                }
                vec![data]
            }
            _ if collective::is_collective(name) => {
                let (dtype, shape, placement) = result_info
                    .clone()
                    .ok_or_else(|| unsupported("no result"))?;
                let kind = int_attr(op, "kind").and_then(Reduction::from_value);
                let input_placement = op
                    .operand(0)
                    .ok()
                    .and_then(|v| DistTensor::from_type(v.r#type()))
                    .and_then(|t| t.placement(&self.mesh).ok());
                let root = int_attr(op, "root").map(|r| r as usize);
                // Over one axis: each row of ranks along it is a group of
                // its own, with the layouts along that axis; over the whole
                // group: the (plain) layouts every axis shares.
                let (rows, axis) = match str_attr(op, "axis") {
                    Some(axis) => {
                        let a = self.mesh.axis(&axis).ok_or_else(|| {
                            Error::Program(format!("{location}: the mesh has no axis \"{axis}\""))
                        })?;
                        (self.mesh.rows(a), Some(a))
                    }
                    None => (vec![(0..g).collect()], None),
                };
                let along = |p: &Option<Placement>| {
                    p.as_ref().and_then(|p| match axis {
                        Some(a) => p.0.get(a).copied(),
                        None => p.uniform(),
                    })
                };
                let mut result: Vec<Option<Tensor>> = vec![None; g];
                for row in rows {
                    let values: PerRank = row.iter().map(|&r| operands[0][r].clone()).collect();
                    let out = collective::run(
                        name,
                        &values,
                        kind,
                        root,
                        along(&input_placement),
                        along(&placement),
                        (dtype, shape.clone()),
                        &location,
                    )?;
                    for (&r, value) in row.iter().zip(out) {
                        result[r] = Some(value);
                    }
                }
                vec![result.into_iter().flatten().collect()]
            }
            _ => {
                let (dtype, shape, placement) = result_info
                    .clone()
                    .ok_or_else(|| unsupported("no result"))?;
                let operand_placement = op
                    .operand(0)
                    .ok()
                    .and_then(|v| DistTensor::from_type(v.r#type()))
                    .and_then(|t| Some((t.placement(&self.mesh).ok()?, t.rank())));
                let mut per_rank = Vec::with_capacity(g);
                for rank in 0..g {
                    let inputs: Vec<&Tensor> = operands.iter().map(|o| &o[rank]).collect();
                    let blocks = placement
                        .as_ref()
                        .map_or_else(Vec::new, |p| p.blocks(&self.mesh, rank, shape.len()));
                    let operand_blocks = operand_placement
                        .as_ref()
                        .map_or_else(Vec::new, |(p, r)| p.blocks(&self.mesh, rank, *r));
                    let context = compute::Context {
                        op,
                        name,
                        dtype,
                        shape: &shape,
                        blocks: &blocks,
                        operand_blocks: &operand_blocks,
                        location: &location,
                    };
                    let value = match compute::run(&context, &inputs)? {
                        Some(value) => value,
                        None => {
                            elementwise::run(&context, &inputs)?.ok_or_else(|| unsupported(""))?
                        }
                    };
                    per_rank.push(value);
                }
                vec![per_rank]
            }
        };
        for (i, data) in results.into_iter().enumerate() {
            let result: Value = op
                .result(i)
                .map_err(|e| Error::Program(e.to_string()))?
                .into();
            self.set(result, data);
        }
        Ok(())
    }
}
