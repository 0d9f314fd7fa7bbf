//! Cutting a coco function into kernels and runtime steps: the execution
//! plan of one stage.
//!
//! The schedule the passes chose is kept as is: outside fused regions every
//! computation is its own kernel (so CoCoNet's unfused AR_C baseline stays
//! unfused), a `coco.fused_kernel` becomes one kernel, and inside a
//! `coco.fused_collective` or `coco.overlap` each run of computations
//! between two communication ops becomes one kernel. Splat constants and
//! `tensor.splat` are not computations of their own: every kernel that uses
//! one rematerialises it as a scalar, so no full-size constant tensor is
//! ever stored.
//!
//! Every value that crosses a kernel or collective boundary gets a buffer of
//! its local shape. `coco.update` writes the new value into the argument's
//! buffer at the end of the function (the interpreter's semantics); when the
//! producer of the new value is the last step touching the argument, the
//! producer writes the argument's buffer directly instead of a copy.
//!
//! The IR questions this shares with the kernel emitter (free ops, values
//! through regions, local types) are in `ir.rs`; the units it cuts a
//! function into, in `units.rs`.

use coco_dialects::lifetime;
use std::{
    collections::{HashMap, HashSet},
    ops::Range,
};

use coco_bundle::{
    Buffer, DType, Io, IoLayout, MeshAxis, Reduction as PlanReduction, Stage, Step, View,
};
use coco_dialects::{
    coco::{ops, verify::TILE_ATTR, DistTensor, Layout, Mesh, Reduction},
    ir::{
        as_op, body_ops, defining_op, element_dtype, function_signature, i64_array_attr, int_attr,
        location_text, op_name, str_attr, symbol_attr,
    },
};
use melior::ir::{
    operation::OperationRef, BlockLike, Operation, RegionLike, Type, Value, ValueLike,
};

use crate::{
    error::{Error, Result},
    fused_collective,
    ir::{
        contiguous_slice, is_communication, is_elementwise, is_free, key, local_type, operand,
        results_of, Values,
    },
    units::{readers, Readers, Unit},
    FusedCollectives,
};

/// How the file of an input or output of type `ty` maps to the ranks of
/// `group`: a plain layout (along every axis), or on a mesh one layout
/// per axis when they differ.
fn io_of(name: String, ty: Type, group: &Mesh) -> Io {
    let plain = |layout: Option<Layout>| match layout {
        Some(Layout::Local) => IoLayout::Local,
        Some(Layout::Replicated) => IoLayout::Replicated,
        Some(Layout::Sliced(d)) => IoLayout::Sliced(d as usize),
        None => IoLayout::Replicated,
    };
    let Some(tensor) = DistTensor::from_type(ty) else {
        return Io {
            name,
            layout: IoLayout::Scalar,
            axes: Vec::new(),
        };
    };
    let placement = tensor
        .axes
        .as_ref()
        .and_then(|_| tensor.placement(group).ok())
        .filter(|p| p.uniform().is_none());
    match placement {
        Some(placement) => Io {
            name,
            layout: if placement.has_local() {
                IoLayout::Local
            } else {
                IoLayout::Replicated
            },
            axes: placement.0.iter().map(|l| plain(Some(*l))).collect(),
        },
        None => Io {
            name,
            layout: plain(
                tensor
                    .layout
                    .or_else(|| tensor.placement(group).ok().and_then(|p| p.uniform())),
            ),
            axes: Vec::new(),
        },
    }
}

/// The ops one kernel computes, with the values it reads and writes.
pub struct KernelUnit<'c, 'a> {
    pub name: String,
    pub ops: Vec<OperationRef<'c, 'a>>,
    pub inputs: Vec<Value<'c, 'a>>,
    pub outputs: Vec<Value<'c, 'a>>,
    /// Values the kernel folds from every peer's part (a peer launch's
    /// reduce_scatter results), in `Step::PeerLaunch::peer_reads` order.
    pub peer_reads: Vec<PeerRead<'c, 'a>>,
    /// Outputs the kernel also writes into every other peer's part (a peer
    /// launch's all_gather operands), in `peer_writes` order.
    pub peer_writes: Vec<Value<'c, 'a>>,
}

/// A reduce_scatter result a peer launch computes itself: `reduction` of
/// part `rank` of the operand on every rank, folded in rank order.
pub struct PeerRead<'c, 'a> {
    pub value: Value<'c, 'a>,
    pub reduction: Reduction,
}

/// A matmul kernel on `rows` of the `m x k` by `k x n` product (one chunk
/// of an overlap region), in `element` with its accumulation type.
pub struct MatmulChunk {
    pub name: String,
    pub rows: usize,
    pub k: usize,
    pub n: usize,
    pub element: DType,
    /// The matmul's `coco.tile`, if it has one.
    pub tile: Option<Vec<i64>>,
}

/// The overlap region `op` as chunks, when it is a 2-D matmul feeding an
/// all_reduce whose rows divide by the chunk count; `None` runs it in
/// order, unchunked (a fused collective consumer would need per-chunk
/// slicing of its element-wise code).
fn overlap_unit<'c: 'a, 'a>(
    op: &'a Operation<'c>,
    values: &Values<'c, 'a>,
    group: &Mesh,
) -> Option<Unit<'c, 'a>> {
    let chunks = usize::try_from(int_attr(op, "chunks")?)
        .ok()
        .filter(|&c| c > 1)?;
    let body: Vec<OperationRef<'c, 'a>> = body_ops(op)
        .into_iter()
        .filter(|o| op_name(as_op(o)) != ops::YIELD)
        .collect();
    let [matmul, all_reduce] = body[..] else {
        return None;
    };
    if op_name(as_op(&matmul)) != ops::MATMUL || op_name(as_op(&all_reduce)) != ops::ALL_REDUCE {
        return None;
    }
    let product: Value = as_op(&matmul).result(0).ok()?.into();
    if key(values.resolve(operand(as_op(&all_reduce), 0)?)) != key(product) {
        return None;
    }
    let (_, shape) = local_type(product.r#type(), group, "").ok()?;
    if shape.len() != 2 || shape[0] % chunks != 0 {
        return None;
    }
    for i in 0..2 {
        let input = operand(as_op(&matmul), i)?;
        if values.sources(input).len() != 1 {
            return None;
        }
    }
    Some(Unit::Overlap {
        matmul,
        all_reduce,
        chunks,
    })
}

/// A function cut into kernels and the stage that runs them.
pub struct StagePlan<'c, 'a> {
    pub kernels: Vec<KernelUnit<'c, 'a>>,
    pub matmul_chunks: Vec<MatmulChunk>,
    pub stage: Stage,
}

/// Free values (constants, splats, scalar arithmetic) that kernels
/// rematerialise but a collective, an update or the return reads (a
/// gradient accumulator reset with `coco.update %acc, %zeros`, a returned
/// bias correction): each gets a kernel of its own, first in the plan,
/// that stores it. Their sources are function arguments and constants, so
/// the start of the function is where they are defined.
fn materialise<'c: 'a, 'a>(
    units: Vec<Unit<'c, 'a>>,
    tail: &[OperationRef<'c, 'a>],
    values: &mut Values<'c, 'a>,
) -> Vec<Unit<'c, 'a>> {
    let mut stores: Vec<Unit<'c, 'a>> = Vec::new();
    let readers = units
        .iter()
        .filter(|u| !matches!(u, Unit::Kernel(_)))
        .flat_map(Unit::ops)
        .chain(tail.iter().copied());
    for op in readers {
        for i in 0..as_op(&op).operand_count() {
            let Some(value) = operand(as_op(&op), i).map(|v| values.resolve(v)) else {
                continue;
            };
            let Some(def) = defining_op(value) else {
                continue;
            };
            if is_free(as_op(&def)) && values.store(value) {
                stores.push(Unit::Kernel(vec![def]));
            }
        }
    }
    stores.extend(units);
    stores
}

/// Walks `ops` in program order into kernels and communication, and
/// collects the ops that act at the end (updates, return).
fn cut<'c: 'a, 'a>(
    ops: Vec<OperationRef<'c, 'a>>,
    values: &Values<'c, 'a>,
    group: &Mesh,
    fused: bool,
    units: &mut Vec<Unit<'c, 'a>>,
    tail: &mut Vec<OperationRef<'c, 'a>>,
    regions: &mut Vec<Range<usize>>,
) -> Result<()> {
    let mut current = Vec::new();
    let flush = |current: &mut Vec<OperationRef<'c, 'a>>, units: &mut Vec<Unit<'c, 'a>>| {
        if !current.is_empty() {
            units.push(Unit::Kernel(std::mem::take(current)));
        }
    };
    for op_ref in ops {
        let op = as_op(&op_ref);
        let name = op_name(op);
        // SAFETY: as in `collect_yields`.
        let op_long: &'a Operation<'c> = unsafe { &*(op as *const Operation<'c>) };
        match name.as_str() {
            ops::FUSED_KERNEL => {
                flush(&mut current, units);
                let mut inner = Vec::new();
                let mut nested = Vec::new();
                cut(
                    body_ops(op_long),
                    values,
                    group,
                    true,
                    &mut inner,
                    &mut nested,
                    &mut Vec::new(),
                )?;
                for unit in inner {
                    match unit {
                        Unit::Kernel(k) => current.extend(k),
                        Unit::Peer { ops: c, .. } => current.extend(c),
                        Unit::Overlap { matmul: c, .. } | Unit::Communication(c) => {
                            return Err(Error::unsupported(
                                location_text(as_op(&c).location()),
                                "communication inside coco.fused_kernel",
                            ))
                        }
                    }
                }
                flush(&mut current, units);
                tail.extend(nested);
            }
            ops::OVERLAP if overlap_unit(op_long, values, group).is_some() => {
                flush(&mut current, units);
                units.extend(overlap_unit(op_long, values, group));
            }
            ops::FUSED_COLLECTIVE | ops::OVERLAP => {
                flush(&mut current, units);
                let start = units.len();
                cut(body_ops(op_long), values, group, true, units, tail, regions)?;
                if name == ops::FUSED_COLLECTIVE {
                    regions.push(start..units.len());
                }
            }
            ops::YIELD => {}
            ops::UPDATE | "func.return" => tail.push(op_ref),
            _ if is_free(op) => {}
            _ if contiguous_slice(op, group, values).is_some() => {}
            _ if is_communication(&name) => {
                flush(&mut current, units);
                units.push(Unit::Communication(op_ref));
            }
            _ if ops::is_computation(&name) => {
                if fused {
                    current.push(op_ref);
                } else {
                    units.push(Unit::Kernel(vec![op_ref]));
                }
            }
            _ => {
                return Err(Error::unsupported(
                    location_text(op.location()),
                    format!(
                        "'{name}' cannot be compiled (not a coco computation or communication op)"
                    ),
                ))
            }
        }
    }
    flush(&mut current, units);
    Ok(())
}

fn plan_reduction(kind: Reduction) -> PlanReduction {
    match kind {
        Reduction::Sum => PlanReduction::Sum,
        Reduction::Prod => PlanReduction::Prod,
        Reduction::Min => PlanReduction::Min,
        Reduction::Max => PlanReduction::Max,
        Reduction::Avg => PlanReduction::Avg,
    }
}

/// The stage being built: buffers and steps in program order, and the
/// kernels the steps launch.
struct Builder<'c, 'a, 'v> {
    values: &'v Values<'c, 'a>,
    /// The stage's ranks as its mesh (one flat axis without a coco.mesh).
    group: Mesh,
    /// The function's name and location (for names and messages).
    function: String,
    location: String,
    buffers: Vec<Buffer>,
    /// Value identity -> its buffer.
    names: HashMap<usize, String>,
    arguments: Vec<Value<'c, 'a>>,
    counter: usize,
    steps: Vec<Step>,
    /// The step index that writes each buffer.
    writer: HashMap<String, usize>,
    /// Steps that launch a pure element-wise kernel (which may write in
    /// place).
    elementwise_steps: HashSet<usize>,
    kernels: Vec<KernelUnit<'c, 'a>>,
    matmul_chunks: Vec<MatmulChunk>,
}

impl<'c: 'a, 'a, 'v> Builder<'c, 'a, 'v> {
    fn new(values: &'v Values<'c, 'a>, group: &Mesh, function: String, location: String) -> Self {
        Builder {
            values,
            group: group.clone(),
            function,
            location,
            buffers: Vec::new(),
            names: HashMap::new(),
            arguments: Vec::new(),
            counter: 0,
            steps: Vec::new(),
            writer: HashMap::new(),
            elementwise_steps: HashSet::new(),
            kernels: Vec::new(),
            matmul_chunks: Vec::new(),
        }
    }

    /// The buffer of `value`, made on first use: a view when `value` is a
    /// contiguous slice, else a buffer of its local shape named
    /// `<hint><n>`.
    fn buffer(&mut self, value: Value<'c, 'a>, hint: &str, location: &str) -> Result<String> {
        if let Some(name) = self.names.get(&key(value)) {
            return Ok(name.clone());
        }
        let (dtype, shape) = local_type(value.r#type(), &self.group, location)?;
        let mut view = None;
        if let Some(slice) = defining_op(value) {
            if let Some(rank_stride) = contiguous_slice(as_op(&slice), &self.group, self.values) {
                let base = operand(as_op(&slice), 0)
                    .ok_or_else(|| Error::unsupported(location, "coco.slice without an operand"))?;
                let base = self.values.resolve(base);
                let of = self.buffer(base, "t", location)?;
                let base_view = self
                    .buffers
                    .iter()
                    .find(|b| b.name == of)
                    .and_then(|b| b.view.clone());
                view = Some(match base_view {
                    // A slice of a slice: offsets add up.
                    Some(outer) => View {
                        of: outer.of,
                        offset: outer.offset,
                        rank_stride: outer.rank_stride + rank_stride,
                    },
                    None => View {
                        of,
                        offset: 0,
                        rank_stride,
                    },
                });
            }
        }
        let name = format!(
            "{}{}",
            if view.is_some() { "slice" } else { hint },
            self.counter
        );
        self.counter += 1;
        self.buffers.push(Buffer {
            name: name.clone(),
            dtype,
            shape,
            input: None,
            output: None,
            view,
        });
        self.names.insert(key(value), name.clone());
        Ok(name)
    }

    /// The buffer a use of `value` reads. A constant (a splat, which
    /// kernels rematerialise) has none: that is the error `message`.
    fn stored_buffer(
        &mut self,
        value: Value<'c, 'a>,
        location: &str,
        message: impl Into<String>,
    ) -> Result<String> {
        let source = self
            .values
            .stored(value)
            .ok_or_else(|| Error::unsupported(location, message))?;
        self.buffer(source, "t", location)
    }

    /// A view of `shape` at element `offset` of buffer `of` (through `of`'s
    /// own view, if it is one).
    fn view(&mut self, of: &str, offset: usize, shape: Vec<usize>) -> String {
        self.add_view(of, offset, 0, shape, format!("{of}_at{offset}"))
    }

    /// View `name` of `shape` at element `offset + rank * rank_stride` of
    /// buffer `of`, offsets and strides added to `of`'s own view if it is
    /// one; made once.
    fn add_view(
        &mut self,
        of: &str,
        offset: usize,
        rank_stride: usize,
        shape: Vec<usize>,
        name: String,
    ) -> String {
        let base = self
            .buffers
            .iter()
            .find(|b| b.name == of)
            .expect("viewed buffers exist")
            .clone();
        let view = match &base.view {
            Some(outer) => View {
                of: outer.of.clone(),
                offset: outer.offset + offset,
                rank_stride: outer.rank_stride + rank_stride,
            },
            None => View {
                of: of.to_string(),
                offset,
                rank_stride,
            },
        };
        if !self.buffers.iter().any(|b| b.name == name) {
            self.buffers.push(Buffer {
                name: name.clone(),
                dtype: base.dtype,
                shape,
                input: None,
                output: None,
                view: Some(view),
            });
        }
        name
    }

    fn buffer_mut(&mut self, name: &str) -> &mut Buffer {
        self.buffers
            .iter_mut()
            .find(|b| b.name == name)
            .expect("buffers are created before use")
    }

    /// Where `value` is defined, for messages (the function for arguments).
    fn location_of(&self, value: Value) -> String {
        defining_op(value)
            .map(|op| location_text(as_op(&op).location()))
            .unwrap_or_else(|| self.location.clone())
    }

    /// The next kernel's name: `<function>_k<n>`.
    fn kernel_name(&self) -> String {
        format!(
            "{}_k{}",
            self.function,
            self.kernels.len() + self.matmul_chunks.len()
        )
    }

    /// One buffer per argument, `arg<i>`, filled from input
    /// `<function>.arg<i>`: first, so that the buffers read as the
    /// signature does.
    fn argument_buffers(&mut self, function: &'a Operation<'c>, types: &[Type<'c>]) -> Result<()> {
        let entry = function
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .ok_or_else(|| Error::unsupported(&self.location, "function without a body"))?;
        for (i, ty) in types.iter().enumerate() {
            let arg: Value<'c, 'a> = entry
                .argument(i)
                .map_err(|e| Error::unsupported(&self.location, e.to_string()))?
                .into();
            let arg: Value<'c, 'a> = lifetime::value(arg);
            let (dtype, shape) = local_type(
                *ty,
                &self.group,
                &format!("{}: argument {i}", self.location),
            )?;
            let name = format!("arg{i}");
            self.buffers.push(Buffer {
                name: name.clone(),
                dtype,
                shape,
                input: Some(io_of(format!("{}.arg{i}", self.function), *ty, &self.group)),
                output: None,
                view: None,
            });
            self.names.insert(key(arg), name);
            self.arguments.push(arg);
        }
        Ok(())
    }

    /// `coco.overlap chunks N` around `matmul` and the `all_reduce` of its
    /// result: per row chunk, the chunk's kernel on stream 0, an event, and
    /// the chunk's all_reduce on stream 1 once the event is reached.
    fn overlap_steps(
        &mut self,
        matmul: &OperationRef<'c, 'a>,
        all_reduce: &OperationRef<'c, 'a>,
        chunks: usize,
    ) -> Result<()> {
        let group = &self.group.clone();
        let mm = as_op(matmul);
        let location = location_text(mm.location());
        let lhs = self
            .values
            .sources(operand(mm, 0).expect("checked by overlap_unit"))[0];
        let rhs = self
            .values
            .sources(operand(mm, 1).expect("checked by overlap_unit"))[0];
        let product: Value<'c, 'a> = lifetime::value(
            mm.result(0)
                .map_err(|e| Error::unsupported(&location, e.to_string()))?,
        );
        let reduced: Value<'c, 'a> = lifetime::value(
            as_op(all_reduce)
                .result(0)
                .map_err(|e| Error::unsupported(&location, e.to_string()))?,
        );
        let a = self.buffer(lhs, "t", &location)?;
        let w = self.buffer(rhs, "t", &location)?;
        let partial = self.buffer(product, "t", &location)?;
        let out = self.buffer(reduced, "all_reduce_", &location)?;
        let (dtype, shape) = local_type(product.r#type(), group, &location)?;
        let (_, a_shape) = local_type(lhs.r#type(), group, &location)?;
        let (m, n, k) = (shape[0], shape[1], a_shape[1]);
        let rows = m / chunks;
        let kernel = self.kernel_name();
        self.matmul_chunks.push(MatmulChunk {
            name: kernel.clone(),
            rows,
            k,
            n,
            element: dtype,
            tile: i64_array_attr(mm, TILE_ATTR),
        });
        let kind = reduction_of(as_op(all_reduce));
        let axis = str_attr(as_op(all_reduce), "axis");
        for c in 0..chunks {
            let a_c = self.view(&a, c * rows * k, vec![rows, k]);
            let p_c = self.view(&partial, c * rows * n, vec![rows, n]);
            let o_c = self.view(&out, c * rows * n, vec![rows, n]);
            let event = format!("{kernel}_chunk{c}");
            self.steps.push(Step::Launch {
                kernel: kernel.clone(),
                buffers: vec![a_c, w.clone(), p_c.clone()],
                stream: 0,
            });
            self.steps.push(Step::RecordEvent {
                event: event.clone(),
                stream: 0,
            });
            self.steps.push(Step::WaitEvent { event, stream: 1 });
            self.steps.push(Step::AllReduce {
                reduction: kind,
                input: p_c,
                output: o_c,
                stream: 1,
                axis: axis.clone(),
            });
        }
        // Whatever comes next runs on stream 0, after the last chunk.
        let done = format!("{kernel}_reduced");
        self.steps.push(Step::RecordEvent {
            event: done.clone(),
            stream: 1,
        });
        self.steps.push(Step::WaitEvent {
            event: done,
            stream: 0,
        });
        self.writer.insert(out, self.steps.len() - 1);
        Ok(())
    }

    /// What a kernel of `ops` (unit `index`) reads from buffers and writes
    /// for other units: values in `given` (peer reads) are neither, values
    /// in `written` (all_gather operands) are outputs whoever reads them.
    fn kernel_values(
        &self,
        index: usize,
        ops: &[OperationRef<'c, 'a>],
        readers: &Readers,
        given: &HashSet<usize>,
        written: &HashSet<usize>,
    ) -> (Vec<Value<'c, 'a>>, Vec<Value<'c, 'a>>) {
        let produced = results_of(ops);
        let mut inputs: Vec<Value<'c, 'a>> = Vec::new();
        let mut outputs: Vec<Value<'c, 'a>> = Vec::new();
        for op in ops {
            let op = as_op(op);
            for operand in op.operands() {
                for source in self.values.sources(operand) {
                    if !produced.contains(&key(source))
                        && !given.contains(&key(source))
                        && !inputs.iter().any(|v| key(*v) == key(source))
                    {
                        inputs.push(lifetime::value(source));
                    }
                }
            }
            for result in op.results() {
                let result: Value = result.into();
                let used_elsewhere = readers
                    .get(&key(result))
                    .is_some_and(|r| r.iter().any(|&u| u != index));
                if used_elsewhere || written.contains(&key(result)) {
                    outputs.push(lifetime::value(result));
                }
            }
        }
        (inputs, outputs)
    }

    /// The buffers of a kernel's inputs and outputs, in that order; records
    /// the next step as the writer of each output.
    fn kernel_buffers(
        &mut self,
        inputs: &[Value<'c, 'a>],
        outputs: &[Value<'c, 'a>],
    ) -> Result<Vec<String>> {
        let mut buffers = Vec::new();
        for v in inputs {
            let location = self.location_of(*v);
            buffers.push(self.buffer(*v, "t", &location)?);
        }
        for v in outputs {
            let location = self.location_of(*v);
            let buffer = self.buffer(*v, "t", &location)?;
            self.writer.insert(buffer.clone(), self.steps.len());
            buffers.push(buffer);
        }
        Ok(buffers)
    }

    /// The kernel computing `ops` (unit `index`) and its launch: it reads
    /// what the ops use from other units and writes what other units read.
    /// A kernel whose results nobody reads is dropped.
    fn kernel_step(
        &mut self,
        index: usize,
        ops: &[OperationRef<'c, 'a>],
        readers: &Readers,
    ) -> Result<()> {
        let none = HashSet::new();
        let (inputs, outputs) = self.kernel_values(index, ops, readers, &none, &none);
        if outputs.is_empty() {
            // Nothing reads what this kernel computes.
            return Ok(());
        }
        let name = self.kernel_name();
        let buffers = self.kernel_buffers(&inputs, &outputs)?;
        if is_elementwise_kernel(ops, &self.group) {
            self.elementwise_steps.insert(self.steps.len());
        }
        self.steps.push(Step::Launch {
            kernel: name.clone(),
            buffers,
            stream: 0,
        });
        self.kernels.push(KernelUnit {
            name,
            ops: ops.to_vec(),
            inputs,
            outputs,
            peer_reads: Vec::new(),
            peer_writes: Vec::new(),
        });
        Ok(())
    }

    /// The one-kernel fused collective (`Unit::Peer`): one
    /// `Step::PeerLaunch` whose kernel folds each reduce_scatter's operand
    /// from every peer's buffer, computes `ops`, and writes each
    /// all_gather's operand into its own part of the gathered buffer (an
    /// ordinary output, a view) and into that part on every other rank.
    fn peer_kernel_step(
        &mut self,
        index: usize,
        reduce_scatters: &[OperationRef<'c, 'a>],
        ops: &[OperationRef<'c, 'a>],
        all_gathers: &[OperationRef<'c, 'a>],
        readers: &Readers,
    ) -> Result<()> {
        let mut peer_reads = Vec::new();
        let mut read_buffers = Vec::new();
        for rs in reduce_scatters {
            let op = as_op(rs);
            let location = location_text(op.location());
            let operand = operand(op, 0).ok_or_else(|| {
                Error::unsupported(&location, "reduce_scatter without an operand")
            })?;
            read_buffers.push(self.stored_buffer(
                operand,
                &location,
                "'coco.reduce_scatter' of a constant is not supported by the lowering",
            )?);
            let result: Value<'c, 'a> = lifetime::value(
                op.result(0)
                    .map_err(|e| Error::unsupported(&location, e.to_string()))?,
            );
            peer_reads.push(PeerRead {
                value: result,
                reduction: int_attr(op, "kind")
                    .and_then(Reduction::from_value)
                    .unwrap_or(Reduction::Sum),
            });
        }
        let mut peer_writes = Vec::new();
        let mut write_buffers = Vec::new();
        for ag in all_gathers {
            let op = as_op(ag);
            let location = location_text(op.location());
            let part =
                self.values.resolve(operand(op, 0).ok_or_else(|| {
                    Error::unsupported(&location, "all_gather without an operand")
                })?);
            let gathered: Value<'c, 'a> = lifetime::value(
                op.result(0)
                    .map_err(|e| Error::unsupported(&location, e.to_string()))?,
            );
            let whole = self.buffer(gathered, "all_gather_", &location)?;
            // This rank's part of the gathered buffer holds the operand.
            let (_, shape) = local_type(part.r#type(), &self.group, &location)?;
            let own = self.part_view(&whole, shape);
            self.names.insert(key(part), own);
            self.writer.insert(whole.clone(), self.steps.len());
            write_buffers.push(whole);
            peer_writes.push(part);
        }
        let given: HashSet<usize> = peer_reads.iter().map(|r| key(r.value)).collect();
        let written: HashSet<usize> = peer_writes.iter().map(|v| key(*v)).collect();
        let (inputs, outputs) = self.kernel_values(index, ops, readers, &given, &written);
        let name = self.kernel_name();
        let buffers = self.kernel_buffers(&inputs, &outputs)?;
        if is_elementwise_kernel(ops, &self.group) {
            self.elementwise_steps.insert(self.steps.len());
        }
        self.steps.push(Step::PeerLaunch {
            kernel: name.clone(),
            buffers,
            peer_reads: read_buffers,
            peer_writes: write_buffers,
            stream: 0,
        });
        self.kernels.push(KernelUnit {
            name,
            ops: ops.to_vec(),
            inputs,
            outputs,
            peer_reads,
            peer_writes,
        });
        Ok(())
    }

    /// Stage position `rank`'s part of buffer `of` (split along its first
    /// dimension into one part per rank): a view at a rank-dependent offset.
    fn part_view(&mut self, of: &str, shape: Vec<usize>) -> String {
        let elements = self
            .buffers
            .iter()
            .find(|b| b.name == of)
            .expect("viewed buffers exist")
            .len();
        self.add_view(
            of,
            0,
            elements / self.group.size(),
            shape,
            format!("{of}_part"),
        )
    }

    /// `coco.send` / `coco.recv`: a step paired with the peer group's stage.
    fn send_recv_step(&mut self, op: &Operation<'c>, peers: &HashMap<String, usize>) -> Result<()> {
        let name = op_name(op);
        let location = location_text(op.location());
        let peer = symbol_attr(op, "peer").unwrap_or_default();
        let peer_stage = *peers.get(&peer).ok_or_else(|| {
            Error::unsupported(
                &location,
                format!("'{name}' names @{peer}, which runs no function"),
            )
        })?;
        if name == ops::SEND {
            let value = operand(op, 0)
                .ok_or_else(|| Error::unsupported(&location, "coco.send without an operand"))?;
            let input = self.stored_buffer(
                value,
                &location,
                "sending a constant is not supported by the lowering; compute the value first",
            )?;
            self.steps.push(Step::Send {
                input,
                peer_stage,
                stream: 0,
            });
        } else {
            let result: Value<'c, 'a> = lifetime::value(
                op.result(0)
                    .map_err(|_| Error::unsupported(&location, "coco.recv without a result"))?,
            );
            let output = self.buffer(result, "recv_", &location)?;
            self.writer.insert(output.clone(), self.steps.len());
            self.steps.push(Step::Recv {
                output,
                peer_stage,
                stream: 0,
            });
        }
        Ok(())
    }

    /// A collective: one step from the operand's buffer to a new buffer
    /// `<collective>_<n>` for the result.
    fn collective_step(&mut self, op: &Operation<'c>) -> Result<()> {
        let name = op_name(op);
        let location = location_text(op.location());
        let operand: Value<'c, 'a> = lifetime::value(
            op.operand(0)
                .map_err(|_| Error::unsupported(&location, "communication without an operand"))?,
        );
        let input = self.stored_buffer(
            operand,
            &location,
            format!(
                "'{name}' of a constant is not supported by the lowering; compute the value first"
            ),
        )?;
        let result: Value<'c, 'a> = lifetime::value(
            op.result(0)
                .map_err(|_| Error::unsupported(&location, "collective without a result"))?,
        );
        let output = self.buffer(
            result,
            &format!("{}_", name.trim_start_matches("coco.")),
            &location,
        )?;
        self.writer.insert(output.clone(), self.steps.len());
        let kind = reduction_of(op);
        let root = int_attr(op, "root").unwrap_or(0).max(0) as usize;
        // Over one mesh axis, each row of ranks along it is a group, with
        // the layouts along that axis; else the whole stage, with the
        // layout every axis shares.
        let axis = str_attr(op, "axis");
        let axis_index = match &axis {
            Some(name) => Some(self.group.axis(name).ok_or_else(|| {
                Error::unsupported(
                    &location,
                    format!("the mesh {} has no axis \"{name}\"", self.group.text()),
                )
            })?),
            None => None,
        };
        let size = axis_index.map_or(self.group.size(), |a| self.group.axes[a].1);
        if matches!(name.as_str(), ops::BROADCAST | ops::REDUCE) && root >= size {
            // The interpreter's words, at the op: the plan check would
            // only name plan.toml.
            return Err(Error::unsupported(
                &location,
                format!("root {root} is not a rank of a group of {size}"),
            ));
        }
        let group = &self.group;
        let dim_of = |ty: Type, what: &str| {
            let tensor = DistTensor::from_type(ty);
            let placement = tensor.and_then(|t| t.placement(group).ok());
            let along = placement.and_then(|p| match axis_index {
                Some(a) => p.0.get(a).copied(),
                None => p.uniform(),
            });
            match along {
                Some(Layout::Sliced(d)) => Ok(d as usize),
                _ => Err(Error::unsupported(
                    &location,
                    format!("{what} of '{name}' is not sliced"),
                )),
            }
        };
        let step = match name.as_str() {
            ops::ALL_REDUCE => Step::AllReduce {
                reduction: kind,
                input,
                output,
                stream: 0,
                axis: axis.clone(),
            },
            ops::REDUCE_SCATTER => Step::ReduceScatter {
                reduction: kind,
                input,
                output,
                dim: dim_of(result.r#type(), "the result")?,
                stream: 0,
                axis: axis.clone(),
            },
            ops::ALL_GATHER => Step::AllGather {
                input,
                output,
                dim: dim_of(operand.r#type(), "the operand")?,
                stream: 0,
                axis: axis.clone(),
            },
            ops::BROADCAST => Step::Broadcast {
                root,
                input,
                output,
                stream: 0,
                axis: axis.clone(),
            },
            ops::REDUCE => Step::Reduce {
                root,
                reduction: kind,
                input,
                output,
                stream: 0,
                axis: axis.clone(),
            },
            ops::ALL_TO_ALL => Step::AllToAll {
                input,
                output,
                split_dim: dim_of(result.r#type(), "the result")?,
                concat_dim: dim_of(operand.r#type(), "the operand")?,
                stream: 0,
                axis: axis.clone(),
            },
            _ => {
                return Err(Error::unsupported(
                    &location,
                    format!("'{name}' is not compiled yet"),
                ))
            }
        };
        self.steps.push(step);
        Ok(())
    }

    /// `coco.update %arg, %new`: the argument's buffer is written back as
    /// output `<function>.arg<i>` and holds the new value at the end, by
    /// forwarding or by a copy.
    fn bind_update(&mut self, op: &Operation<'c>, argument_types: &[Type<'c>]) -> Result<()> {
        let location = location_text(op.location());
        let (Ok(target), Ok(value)) = (op.operand(0), op.operand(1)) else {
            return Ok(());
        };
        let index = self
            .arguments
            .iter()
            .position(|a| key(*a) == key(target))
            .ok_or_else(|| {
                Error::unsupported(&location, "coco.update of a value that is not an argument")
            })?;
        let target_name = format!("arg{index}");
        let value_name = self.stored_buffer(
            lifetime::value(value),
            &location,
            "coco.update with a constant is not supported by the lowering",
        )?;
        let io = Some(io_of(
            format!("{}.arg{index}", self.function),
            argument_types[index],
            &self.group,
        ));
        self.write_into(value_name, &target_name);
        self.buffer_mut(&target_name).output = io;
        Ok(())
    }

    /// Makes buffer `target` hold `value` at the end: the step that writes
    /// `value` writes `target` instead when that is safe (`forwardable`),
    /// else a copy at the end.
    fn write_into(&mut self, value: String, target: &str) {
        if forwardable(
            &self.steps,
            &self.writer,
            &self.elementwise_steps,
            &value,
            target,
            &self.buffers,
        ) {
            rename_buffer(&mut self.steps, &value, target);
            self.buffers.retain(|buf| buf.name != value);
            // Views of the value (a peer launch's own part) view the target.
            for view in self.buffers.iter_mut().filter_map(|b| b.view.as_mut()) {
                if view.of == value {
                    view.of = target.to_string();
                }
            }
            self.names.retain(|_, n| *n != value);
        } else {
            self.steps.push(Step::Copy {
                input: value,
                output: target.to_string(),
                stream: 0,
            });
        }
    }

    /// `return`: result i is written as output `<function>.result<i>`, from
    /// a copy `result<i>` when its buffer is already a program input or
    /// output.
    fn bind_results(&mut self, op: &Operation<'c>, result_types: &[Type<'c>]) -> Result<()> {
        let location = location_text(op.location());
        for (i, value) in op.operands().enumerate() {
            let mut name = self.stored_buffer(
                lifetime::value(value),
                &location,
                "returning a constant is not supported by the lowering",
            )?;
            let buffer = self.buffer_mut(&name).clone();
            if buffer.input.is_some() || buffer.output.is_some() {
                let copy = format!("result{i}");
                self.buffers.push(Buffer {
                    name: copy.clone(),
                    input: None,
                    output: None,
                    ..buffer
                });
                self.steps.push(Step::Copy {
                    input: name,
                    output: copy.clone(),
                    stream: 0,
                });
                name = copy;
            }
            self.buffer_mut(&name).output = Some(io_of(
                format!("{}.result{i}", self.function),
                result_types[i],
                &self.group,
            ));
        }
        Ok(())
    }

    fn finish(mut self, first_rank: usize) -> StagePlan<'c, 'a> {
        merge_identical_views(&mut self.buffers, &mut self.steps);
        StagePlan {
            kernels: self.kernels,
            matmul_chunks: self.matmul_chunks,
            stage: Stage {
                function: self.function,
                first_rank,
                size: self.group.size(),
                // A flat group's one unnamed axis is no mesh.
                mesh: self
                    .group
                    .axes
                    .iter()
                    .filter(|(name, _)| !name.is_empty())
                    .map(|(name, size)| MeshAxis {
                        name: name.clone(),
                        size: *size,
                    })
                    .collect(),
                buffers: self.buffers,
                steps: self.steps,
            },
        }
    }
}

/// The reduction of a collective (`sum` when it names none).
fn reduction_of(op: &Operation) -> PlanReduction {
    int_attr(op, "kind")
        .and_then(Reduction::from_value)
        .map(plan_reduction)
        .unwrap_or(PlanReduction::Sum)
}

/// Whether the kernel reads each element of its inputs before it writes
/// that element of any output, so an output may take an input's buffer: one
/// run of element-wise ops of one shape (one pass in the emitter), then ops
/// that read only what the kernel computes, 0-d values and rematerialised
/// values (the partial sums of a norm of the updated slice), never an
/// input the run may already have overwritten.
fn is_elementwise_kernel(ops: &[OperationRef], group: &Mesh) -> bool {
    let shape = |op: &OperationRef| {
        as_op(op).result(0).ok().map(|r| {
            local_type(r.r#type(), group, "")
                .ok()
                .map(|(_, shape)| shape)
        })
    };
    // Element-wise arithmetic on 0-d values first (a clipping coefficient
    // from an all_reduced norm) is a loop of its own that reads no buffer
    // an output may take.
    let scalar = |op: &OperationRef| {
        is_elementwise(as_op(op)) && shape(op).is_some_and(|s| s.is_some_and(|s| s.is_empty()))
    };
    let ops = &ops[ops.iter().take_while(|op| scalar(op)).count()..];
    let first = ops.first().and_then(shape);
    let run = ops
        .iter()
        .take_while(|op| is_elementwise(as_op(op)) && shape(op) == first)
        .count();
    if run == 0 {
        return false;
    }
    let produced = results_of(ops);
    ops[run..].iter().all(|op| {
        as_op(op).operands().all(|v| {
            let zero_d = DistTensor::from_type(v.r#type()).is_some_and(|t| t.rank() == 0);
            let free = defining_op(v).is_some_and(|d| is_free(as_op(&d)));
            produced.contains(&key(v)) || zero_d || free || element_dtype(v.r#type()).is_some()
        })
    })
}

/// Cuts `function` (run by `group` ranks) into kernels and steps.
/// `peers` maps each process group to its stage's index in the plan (for
/// `coco.send`/`coco.recv`).
pub fn plan_function<'c, 'a>(
    function: &'a Operation<'c>,
    group: &Mesh,
    first_rank: usize,
    peers: &HashMap<String, usize>,
    fused_collectives: FusedCollectives,
) -> Result<StagePlan<'c, 'a>> {
    let fname = str_attr(function, "sym_name").unwrap_or_default();
    let flocation = location_text(function.location());
    let (arg_types, result_types) = function_signature(function)
        .ok_or_else(|| Error::unsupported(&flocation, "function without a signature"))?;
    let mut values = Values::new(function);

    let mut units = Vec::new();
    let mut tail = Vec::new();
    let mut regions = Vec::new();
    cut(
        body_ops(function),
        &values,
        group,
        false,
        &mut units,
        &mut tail,
        &mut regions,
    )?;
    let count = units.len();
    let mut units = materialise(units, &tail, &mut values);
    if fused_collectives == FusedCollectives::Peer {
        // `materialise` put its stores first.
        let stored = units.len() - count;
        let regions: Vec<Range<usize>> = regions
            .into_iter()
            .map(|r| r.start + stored..r.end + stored)
            .collect();
        units = fused_collective::peer_units(units, &regions, &tail, &values, group);
    }

    let mut b = Builder::new(&values, group, fname, flocation);
    b.argument_buffers(function, &arg_types)?;
    let readers = readers(&units, &tail, &values, group);
    for (index, unit) in units.iter().enumerate() {
        match unit {
            Unit::Overlap {
                matmul,
                all_reduce,
                chunks,
            } => b.overlap_steps(matmul, all_reduce, *chunks)?,
            Unit::Kernel(ops) => b.kernel_step(index, ops, &readers)?,
            Unit::Peer {
                reduce_scatters,
                ops,
                all_gathers,
            } => b.peer_kernel_step(index, reduce_scatters, ops, all_gathers, &readers)?,
            Unit::Communication(op) => {
                let op = as_op(op);
                let name = op_name(op);
                if name == ops::SEND || name == ops::RECV {
                    b.send_recv_step(op, peers)?;
                } else {
                    b.collective_step(op)?;
                }
            }
        }
    }
    // The end of the function: updates and results.
    for op in &tail {
        let op = as_op(op);
        if op_name(op) == ops::UPDATE {
            b.bind_update(op, &arg_types)?;
        } else {
            b.bind_results(op, &result_types)?;
        }
    }
    Ok(b.finish(first_rank))
}

/// Whether the step that writes `value` may write `target` instead: nothing
/// after it touches `target`, and it reads `target` (if at all) only as an
/// element-wise kernel, which reads each element before writing it.
fn forwardable(
    steps: &[Step],
    writer: &HashMap<String, usize>,
    elementwise: &HashSet<usize>,
    value: &str,
    target: &str,
    buffers: &[Buffer],
) -> bool {
    let Some(&at) = writer.get(value) else {
        return false;
    };
    let plain = buffers
        .iter()
        .find(|b| b.name == value)
        .is_some_and(|b| b.input.is_none() && b.output.is_none() && b.view.is_none());
    // Views touch the buffer they view.
    let base = |name: &str| -> String {
        buffers
            .iter()
            .find(|b| b.name == name)
            .and_then(|b| b.view.as_ref().map(|v| v.of.clone()))
            .unwrap_or_else(|| name.to_string())
    };
    let touches = |step: &Step| step.buffers().iter().any(|b| base(b) == target);
    let later_touch = steps[at + 1..].iter().any(touches);
    let reads_target = touches(&steps[at]);
    plain && !later_touch && (!reads_target || elementwise.contains(&at))
}

fn rename_buffer(steps: &mut [Step], from: &str, to: &str) {
    for step in steps {
        for name in step.buffers_mut() {
            if name == from {
                *name = to.to_string();
            }
        }
    }
}

/// Gives views of the same part of the same buffer one name, so a kernel
/// that reads and writes that part (a peer launch updating its own part in
/// place) takes it as one parameter rather than two that alias.
fn merge_identical_views(buffers: &mut Vec<Buffer>, steps: &mut [Step]) {
    let mut kept: Vec<Buffer> = Vec::new();
    for buffer in std::mem::take(buffers) {
        let same = kept.iter().find(|k| {
            buffer.view.is_some()
                && k.view == buffer.view
                && k.dtype == buffer.dtype
                && k.shape == buffer.shape
                && k.input.is_none()
                && k.output.is_none()
                && buffer.input.is_none()
                && buffer.output.is_none()
        });
        match same {
            Some(first) => rename_buffer(steps, &buffer.name, &first.name.clone()),
            None => kept.push(buffer),
        }
    }
    *buffers = kept;
}
