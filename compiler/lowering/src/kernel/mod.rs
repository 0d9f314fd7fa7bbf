//! One kernel as upstream MLIR: a `func.func` over memrefs whose body is
//! linalg / tensor / arith / math on tensors, in destination-passing style.
//!
//! ```text
//! func.func @adam_k0(%p0: memref<65536xf32>, ..., %rank: index) {
//!   %t0 = bufferization.to_tensor %p0 restrict : memref<65536xf32>
//!   %r:3 = linalg.generic ... ins(%t0, ...) outs(...) { scalar arith/math }
//!   bufferization.materialize_in_destination %r#0 in restrict writable %p5
//!   return
//! }
//! ```
//!
//! Runs of element-wise ops of one shape become a single `linalg.generic`
//! (one pass over memory, whatever the number of ops), with splat constants
//! as scalar constants in its body and scalar inputs broadcast through a
//! `() -> ()` indexing map. Other coco computations become named linalg ops
//! or small generics. Buffers are tensors only between `to_tensor` and
//! `materialize_in_destination`, so one-shot bufferization with empty-tensor
//! elimination writes results straight into the output buffers.
//!
//! Precision follows the reference interpreter: reductions and matmuls
//! accumulate in f32 for 16- and 32-bit floats (f64 for f64), in index
//! order, without reassociation, so kernels and interpreter agree bitwise
//! on element-wise code and up to rounding of libm functions elsewhere.
//! The one exception is the GPU's text ([`Target::Gpu`]): whole-tensor and
//! row reductions there are trees (`tree_reduction`), in a documented
//! order of their own.
//!
//! This file holds the emitter's plumbing (parameters, fresh names, values
//! as tensors) and the dispatch to one file per op family:
//! `elementwise` (fused clusters), `reduction` (and its GPU form,
//! `tree_reduction`), `matmul`, `nn`
//! (softmax, layer norm, dropout) and `movement` (slices, broadcasts,
//! transposes, head reshapes); `types` holds the element types, `blocks`
//! a rank's block on the stage's mesh.

mod blocked_reduction;
mod blocks;
mod elementwise;
mod math;
mod matmul;
mod movement;
mod nn;
mod peers;
mod reduction;
mod tree_reduction;
mod types;

use std::collections::{HashMap, HashSet};

use coco_bundle::{BufferType, DType};
use coco_dialects::{
    coco::{ops, DistTensor, Mesh},
    ir::{as_op, defining_op, location_text, op_name},
    lifetime,
};
use melior::ir::{
    operation::OperationRef, r#type::RankedTensorType, Attribute, AttributeLike, Operation,
    TypeLike, Value, ValueLike,
};

use crate::{
    error::{Error, Result},
    gemm::{tuned::Tuning, Arithmetic, CpuGemm, Gemm},
    ir::{
        is_elementwise, is_free, is_scalar_arithmetic, key, local_type, operand, splat_source,
        Values,
    },
    partition::KernelUnit,
    ReductionOrder,
};
pub use matmul::matmul_chunk;
use types::{memref_type, tensor_type};

/// A tensor in the kernel: its SSA name, element type and local shape.
#[derive(Clone)]
struct Tensor {
    name: String,
    element: DType,
    shape: Vec<usize>,
}

impl Tensor {
    fn ty(&self) -> String {
        tensor_type(&self.shape, self.element)
    }
}

/// What a non-element-wise computation defines: its result value, the SSA
/// name the kernel gives it, and its local type.
struct Computed<'c, 'a> {
    value: Value<'c, 'a>,
    name: String,
    element: DType,
    shape: Vec<usize>,
    location: String,
}

/// The upstream MLIR of one kernel and the buffers it takes (its memref
/// parameters' element types and shapes, which the plan records so that
/// the executor checks every launch against them).
pub struct KernelText {
    pub name: String,
    pub text: String,
    pub buffers: Vec<BufferType>,
    pub computes: Vec<String>,
    /// The GEMM helpers the kernel calls, `(symbol, text)`: the module
    /// holds each once (`crate::gemm`).
    pub helpers: Vec<(String, String)>,
    /// The CPU GEMMs those helpers compute.
    pub gemms: Vec<Gemm>,
}

/// How the plan passes buffers to a kernel: for each of its values
/// (inputs, then outputs), the parameter that carries it (an output written
/// in place shares its input's parameter), and whether that parameter
/// aliases no other (so LLVM may assume `noalias`, which lets it hoist
/// scalar loads and vectorise without runtime checks).
pub struct Binding {
    pub parameter: Vec<usize>,
    pub noalias: Vec<bool>,
}

/// What the kernel text is for. The GPU's whole-tensor and row reductions
/// are trees (`tree_reduction`); the CPU's keep the interpreter's index
/// order, unless `tree` asks for the GPU's order (its stage 2 as a loop):
/// to run the trees' indexing on a CPU, and for sums with less rounding.
/// With `gemm`, the CPU's float matmuls call generated GEMM helpers
/// (`crate::gemm`), and the GPU's are tiled kernels accumulating with
/// that arithmetic (`crate::gemm::gpu`); without, they are `linalg.matmul`
/// loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `lanes`: f32 elements per vector register of the host CPU.
    Cpu {
        reductions: ReductionOrder,
        gemm: Option<CpuGemm>,
        lanes: usize,
    },
    Gpu {
        gemm: Option<Arithmetic>,
    },
}

impl Target {
    fn is_gpu(self) -> bool {
        matches!(self, Target::Gpu { .. })
    }

    fn trees(self) -> bool {
        matches!(
            self,
            Target::Gpu { .. }
                | Target::Cpu {
                    reductions: ReductionOrder::Tree,
                    ..
                }
        )
    }

    /// Whether whole-tensor float sums take the blocked order (the
    /// interpreter's); otherwise a tree, or index order.
    fn blocked_sums(self) -> bool {
        matches!(
            self,
            Target::Cpu {
                reductions: ReductionOrder::Interpreter,
                ..
            }
        )
    }

    /// The tile of a row reduction vectorised across rows (see
    /// [`ROW_REDUCTION_ATTR`]): `lanes` rows by `lanes` columns.
    fn row_tile(self) -> Option<usize> {
        match self {
            Target::Cpu {
                reductions, lanes, ..
            } if reductions != ReductionOrder::Tree && lanes > 1 => Some(lanes),
            _ => None,
        }
    }

    fn gemm(self) -> Option<CpuGemm> {
        match self {
            Target::Cpu { gemm, .. } => gemm,
            Target::Gpu { .. } => None,
        }
    }

    /// The arithmetic of the GPU's tiled GEMM kernels, where they run: on
    /// the GPU, or on the CPU as loops (`--gemm gpu-tiles`).
    fn gpu_gemm(self) -> Option<Arithmetic> {
        match self {
            Target::Gpu { gemm } => gemm,
            Target::Cpu { gemm, .. } => gemm.filter(|g| g.gpu_tiles).map(|g| g.arithmetic),
        }
    }
}

/// The unit attribute on a CPU row reduction (a 2-D `linalg.generic`
/// reducing its last dimension, both dimensions multiples of the lanes)
/// that [`crate::pipelines::with_row_reductions`] vectorises across rows: each
/// lane sums its own row in order, so the result stays the interpreter's
/// bit for bit (LLVM and `affine-super-vectorize` would leave the loop
/// scalar, or reassociate it).
pub const ROW_REDUCTION_ATTR: &str = "coco.row_reduction";

struct Emitter<'v, 'c, 'a> {
    target: Target,
    values: &'v Values<'c, 'a>,
    /// The stage's ranks as its mesh (one flat axis without a coco.mesh).
    group: Mesh,
    body: String,
    tensors: HashMap<usize, Tensor>,
    /// Kernel outputs not yet written: value -> (parameter, memref type).
    destinations: HashMap<usize, (String, String)>,
    /// Values folded from the peers' parts (a peer launch).
    peer_sums: HashMap<usize, peers::PeerSum>,
    /// Outputs also written to the peers, not yet written there: value ->
    /// (parameter, memref type) per other rank.
    peer_destinations: HashMap<usize, Vec<(String, String)>>,
    /// Folds the element-wise cluster being built reads: (value, the
    /// input keys of its parts).
    cluster_folds: Vec<(usize, Vec<usize>)>,
    /// Outputs already stored into their parameter (no materialisation).
    written: HashSet<usize>,
    /// GEMM helpers the kernel calls, and the GEMMs they compute.
    helpers: Vec<(String, String)>,
    gemms: Vec<Gemm>,
    /// Measured blockings for the CPU's GEMM helpers.
    tuning: Tuning<'v>,
    counter: usize,
}

/// Emits `unit` as a `func.func` for a stage of `group` ranks.
pub fn emit(
    unit: &KernelUnit,
    values: &Values,
    group: &Mesh,
    binding: &Binding,
    target: Target,
    tuning: Tuning,
) -> Result<KernelText> {
    let mut emitter = Emitter {
        target,
        tuning,
        values,
        group: group.clone(),
        body: String::new(),
        tensors: HashMap::new(),
        destinations: HashMap::new(),
        peer_sums: HashMap::new(),
        peer_destinations: HashMap::new(),
        cluster_folds: Vec::new(),
        written: HashSet::new(),
        helpers: Vec::new(),
        gemms: Vec::new(),
        counter: 0,
    };
    reject_empty_buffers(unit, group)?;
    let (params, buffers) = emitter.parameters(unit, binding)?;
    let ordered = views_first(unit, values);
    emitter.lower(&ordered, &unit.outputs)?;
    emitter.materialize(unit, binding)?;
    let computes = unit.ops.iter().map(|op| op_name(as_op(op))).collect();
    let text = format!(
        "  func.func @{}({}, %rank: index) {{\n{}    return\n  }}\n",
        unit.name,
        params.join(", "),
        emitter.body
    );
    Ok(KernelText {
        name: unit.name.clone(),
        text,
        buffers,
        computes,
        helpers: emitter.helpers,
        gemms: emitter.gemms,
    })
}

/// Kernels take buffers as bare pointers (`docs/bundle.md`), which MLIR
/// gives only memrefs with at least one element: a zero-sized dimension
/// would leave the kernel untranslatable ("MLIR could not translate the
/// kernels"), so it is an error here, located at the op that reads or
/// writes the buffer. The reference backend runs such programs.
fn reject_empty_buffers(unit: &KernelUnit, group: &Mesh) -> Result<()> {
    let first = unit
        .ops
        .first()
        .map(|op| location_text(as_op(op).location()))
        .unwrap_or_else(|| unit.name.clone());
    for v in unit.inputs.iter().chain(&unit.outputs) {
        let location = defining_op(*v)
            .filter(|op| unit.ops.iter().any(|o| o == op))
            .map_or_else(|| first.clone(), |op| location_text(as_op(&op).location()));
        let (_, shape) = local_type(v.r#type(), group, &location)?;
        if let Some(dim) = shape.iter().position(|&d| d == 0) {
            return Err(Error::unsupported(
                location,
                format!(
                    "{}: dimension {dim} is 0; zero-sized tensors are not compiled to kernels \
                     (run the program with --backend reference)",
                    v.r#type()
                ),
            ));
        }
    }
    Ok(())
}

/// `unit`'s ops with slices of kernel inputs first: those are views (a
/// subview after bufferization), and taking them first lets the
/// element-wise code around them fuse into one loop.
fn views_first<'c, 'a>(
    unit: &KernelUnit<'c, 'a>,
    values: &Values<'c, 'a>,
) -> Vec<OperationRef<'c, 'a>> {
    let inputs: HashSet<usize> = unit.inputs.iter().map(|v| key(*v)).collect();
    let is_input_view = |op: &OperationRef| {
        let op = as_op(op);
        op_name(op) == ops::SLICE
            && operand(op, 0).is_some_and(|v| inputs.contains(&key(values.resolve(v))))
    };
    unit.ops
        .iter()
        .filter(|op| is_input_view(op))
        .chain(unit.ops.iter().filter(|op| !is_input_view(op)))
        .copied()
        .collect()
}

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    fn fresh(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("%{prefix}{}", self.counter)
    }

    fn line(&mut self, text: &str) {
        self.body.push_str("    ");
        self.body.push_str(text);
        self.body.push('\n');
    }

    fn local(&self, value: Value, location: &str) -> Result<(DType, Vec<usize>)> {
        let (_, shape) = local_type(value.r#type(), &self.group, location)?;
        Ok((types::element(value.r#type(), location)?, shape))
    }

    fn set(&mut self, value: Value, tensor: Tensor) {
        self.tensors.insert(key(value), tensor);
    }

    /// The function's parameters (each buffer once) and a tensor for each
    /// input; outputs are remembered as destinations, to be computed in
    /// place.
    /// The kernel's parameters as MLIR text, and their types.
    fn parameters(
        &mut self,
        unit: &KernelUnit<'c, 'a>,
        binding: &Binding,
    ) -> Result<(Vec<String>, Vec<BufferType>)> {
        let mut params = Vec::new();
        let mut types = Vec::new();
        for (i, v) in unit.inputs.iter().chain(&unit.outputs).enumerate() {
            let location = defining_op(*v)
                .map(|op| location_text(as_op(&op).location()))
                .unwrap_or_default();
            let (element, shape) = self.local(*v, &location)?;
            let p = binding.parameter[i];
            if p == i {
                let noalias = if binding.noalias[p] {
                    " {llvm.noalias}"
                } else {
                    ""
                };
                params.push(format!("%p{p}: {}{noalias}", memref_type(&shape, element)));
                types.push(BufferType {
                    dtype: element,
                    shape: shape.clone(),
                });
            }
            if i < unit.inputs.len() {
                let name = format!("%in{i}");
                self.line(&format!(
                    "{name} = bufferization.to_tensor %p{i} restrict : {}",
                    memref_type(&shape, element)
                ));
                self.set(
                    *v,
                    Tensor {
                        name,
                        element,
                        shape,
                    },
                );
            } else {
                self.destinations
                    .insert(key(*v), (format!("%p{p}"), memref_type(&shape, element)));
            }
        }
        self.peer_parameters(unit, &mut params, &mut types)?;
        Ok((params, types))
    }

    /// Lowers `unit_ops` in order: each maximal run of element-wise ops of
    /// one shape as one cluster, every other computation by its family.
    fn lower(
        &mut self,
        unit_ops: &[OperationRef<'c, 'a>],
        outputs: &[Value<'c, 'a>],
    ) -> Result<()> {
        // What each op reads, to know which cluster values are live after it.
        // A sum of squares reads what is squared (see `squared_source`).
        let reads: Vec<HashSet<usize>> = unit_ops
            .iter()
            .map(|op| {
                let op = as_op(op);
                match reduction::squared_source(op) {
                    Some(base) => self.values.sources(base).into_iter().map(key).collect(),
                    None => op
                        .operands()
                        .flat_map(|o| self.values.sources(o))
                        .map(key)
                        .collect(),
                }
            })
            .collect();
        let outputs: HashSet<usize> = outputs.iter().map(|v| key(*v)).collect();
        let group = &self.group.clone();
        let shape_of = |op: &Operation| {
            op.result(0)
                .ok()
                .and_then(|r| local_type(r.r#type(), group, "").ok())
                .map(|t| t.1)
        };
        let mut i = 0;
        while i < unit_ops.len() {
            let op = as_op(&unit_ops[i]);
            if is_elementwise(op) {
                let shape = shape_of(op);
                let mut j = i + 1;
                while j < unit_ops.len()
                    && is_elementwise(as_op(&unit_ops[j]))
                    && shape_of(as_op(&unit_ops[j])) == shape
                {
                    j += 1;
                }
                let mut live_out = outputs.clone();
                for r in &reads[j..] {
                    live_out.extend(r);
                }
                self.cluster(&unit_ops[i..j], &live_out)?;
                i = j;
            } else {
                if !is_free(op) {
                    self.computation(op)?;
                }
                i += 1;
            }
        }
        Ok(())
    }

    /// Writes every output of `unit` into its parameter.
    fn materialize(&mut self, unit: &KernelUnit<'c, 'a>, binding: &Binding) -> Result<()> {
        for (i, v) in unit.outputs.iter().enumerate() {
            if self.written.contains(&key(*v)) {
                continue;
            }
            let index = binding.parameter[unit.inputs.len() + i];
            // A free value stored by a kernel of its own is built here.
            let t = match self.tensors.get(&key(*v)).cloned() {
                Some(t) => t,
                None => self.tensor_of(*v, &unit.name)?,
            };
            self.line(&format!(
                "bufferization.materialize_in_destination {} in restrict writable %p{index} : ({}, {}) -> ()",
                t.name,
                t.ty(),
                memref_type(&t.shape, t.element)
            ));
            // Written to the peers too, when no cluster loop did it.
            for (param, memref) in self.peer_destinations.remove(&key(*v)).unwrap_or_default() {
                self.line(&format!(
                    "bufferization.materialize_in_destination {} in restrict writable {param} : ({}, {memref}) -> ()",
                    t.name,
                    t.ty(),
                ));
            }
        }
        Ok(())
    }

    /// `value` as a kernel tensor, materialising free ops.
    fn tensor_of(&mut self, value: Value<'c, 'a>, location: &str) -> Result<Tensor> {
        let value = self.values.resolve(value);
        if let Some(t) = self.tensors.get(&key(value)) {
            return Ok(t.clone());
        }
        if let Some(folded) = self.peer_sum_tensor(value, location) {
            return folded;
        }
        let (element, shape) = self.local(value, location)?;
        let def = defining_op(value);
        let scalar = match def.as_ref().map(|d| op_name(as_op(d))) {
            Some(name) if name == "arith.constant" => {
                let op = as_op(def.as_ref().unwrap());
                let Some(text) = splat_text(op) else {
                    // Every element spelled out: the constant itself, which
                    // is the same on every rank unless it is sliced.
                    let sliced = DistTensor::from_type(value.r#type()).is_some_and(|t| {
                        t.layout.is_some_and(|l| l.is_sliced())
                            || t.axes.iter().flatten().any(|(_, l)| l.is_sliced())
                    });
                    let text = dense_text(op).filter(|_| !sliced).ok_or_else(|| {
                        Error::unsupported(
                            location_text(op.location()),
                            "a non-splat constant is compiled when it is #coco.replicated or #coco.local; \
                             declare it replicated and coco.slice it",
                        )
                    })?;
                    let tensor = Tensor {
                        name: self.fresh("t"),
                        element,
                        shape,
                    };
                    // Each element read from the constant inside a parallel
                    // loop: on the GPU route the loop becomes a kernel that
                    // takes the constant along (a constant tensor outside
                    // any loop would stay on the host).
                    let rank = tensor.shape.len();
                    let e = self.empty(&tensor.shape, element);
                    let indices: Vec<String> = (0..rank).map(|d| format!("%i{d}")).collect();
                    let index_lines: String = (0..rank)
                        .map(|d| format!("      %i{d} = linalg.index {d} : index\n"))
                        .collect();
                    let ty = tensor.ty();
                    self.line(&format!(
                        "{} = linalg.generic {{indexing_maps = [{}], iterator_types = {}}} outs({e} : {ty}) {{\n    ^bb0(%o: {element}):\n      %k = arith.constant {text}\n{index_lines}      %v = tensor.extract %k[{}] : {ty}\n      linalg.yield %v : {element}\n    }} -> {ty}",
                        tensor.name,
                        identity_map(rank),
                        parallel(rank),
                        indices.join(", "),
                    ));
                    self.set(value, tensor.clone());
                    return Ok(tensor);
                };
                let c = self.fresh("c");
                self.line(&format!("{c} = arith.constant {text}"));
                c
            }
            Some(_) if splat_source(as_op(def.as_ref().unwrap())).is_some() => {
                let source = splat_source(as_op(def.as_ref().unwrap())).expect("checked");
                self.scalar_of(source, location)?.0
            }
            Some(_) if is_scalar_arithmetic(as_op(def.as_ref().unwrap())) => {
                let op = as_op(def.as_ref().unwrap());
                let op_location = location_text(op.location());
                let mut names = Vec::new();
                let mut types = Vec::new();
                for i in 0..op.operand_count() {
                    let Some(v) = operand(op, i) else { continue };
                    let (name, element) = self.scalar_of(v, &op_location)?;
                    names.push(name);
                    types.push(element);
                }
                let a = self.fresh("a");
                let (lines, result) = elementwise::scalar_op_text(
                    self.target,
                    op,
                    &a,
                    &names,
                    &types,
                    element,
                    &op_location,
                )?;
                for line in lines.lines() {
                    self.line(line.trim_start());
                }
                result
            }
            Some(name) if name == "tensor.splat" || name == "tensor.extract" => {
                let op = as_op(def.as_ref().unwrap());
                let source = operand(op, 0).ok_or_else(|| {
                    Error::unsupported(location, format!("{name} without operand"))
                })?;
                self.scalar_of(source, location)?.0
            }
            _ => {
                return Err(Error::unsupported(
                    location,
                    "internal error: a kernel reads a value it was not given",
                ))
            }
        };
        let name = self.fresh("t");
        let tensor = Tensor {
            name,
            element,
            shape,
        };
        let build = if tensor.shape.is_empty() {
            "tensor.from_elements"
        } else {
            "tensor.splat"
        };
        self.line(&format!(
            "{} = {build} {scalar} : {}",
            tensor.name,
            tensor.ty()
        ));
        Ok(tensor)
    }

    /// A 0-d or builtin scalar `value` as a scalar SSA name, and its type.
    fn scalar_of(&mut self, value: Value<'c, 'a>, location: &str) -> Result<(String, DType)> {
        let zero_d = self.tensor_of(value, location)?;
        let s = self.fresh("s");
        self.line(&format!(
            "{s} = tensor.extract {}[] : {}",
            zero_d.name,
            zero_d.ty()
        ));
        Ok((s, zero_d.element))
    }

    fn empty(&mut self, shape: &[usize], element: DType) -> String {
        let e = self.fresh("e");
        self.line(&format!(
            "{e} = tensor.empty() : {}",
            tensor_type(shape, element)
        ));
        e
    }

    /// `linalg.fill` of a fresh tensor with `value` (`0.0`-style literal).
    fn filled(&mut self, shape: &[usize], element: DType, literal: &str) -> String {
        let e = self.empty(shape, element);
        let c = self.fresh("c");
        self.line(&format!("{c} = arith.constant {literal} : {element}"));
        let f = self.fresh("f");
        self.line(&format!(
            "{f} = linalg.fill ins({c} : {element}) outs({e} : {}) -> {}",
            tensor_type(shape, element),
            tensor_type(shape, element)
        ));
        f
    }

    fn operand(&mut self, op: &Operation<'c>, index: usize, location: &str) -> Result<Tensor> {
        let value = operand(op, index)
            .ok_or_else(|| Error::unsupported(location, format!("missing operand {index}")))?;
        self.tensor_of(value, location)
    }

    /// A non-element-wise computation, lowered by its op family.
    fn computation(&mut self, op: &Operation<'c>) -> Result<()> {
        let name = op_name(op);
        let location = location_text(op.location());
        let value: Value = op
            .result(0)
            .map_err(|e| Error::unsupported(&location, e.to_string()))?
            .into();
        let value: Value<'c, 'a> = lifetime::value(value);
        let (element, shape) = self.local(value, &location)?;
        let out = Computed {
            value,
            name: self.fresh("t"),
            element,
            shape,
            location,
        };
        match name.as_str() {
            ops::SLICE => self.slice(op, &out)?,
            ops::EXPAND => self.expand(op, &out)?,
            ops::TRANSPOSE => self.transpose(op, &out)?,
            ops::SPLIT_HEADS | ops::MERGE_HEADS => self.heads(op, &out)?,
            ops::NORM | ops::REDUCE_ELEMENTS => self.reduce_elements(op, &out)?,
            ops::ARGMAX => self.argmax(op, &out)?,
            ops::CUMSUM => self.cumsum(op, &out)?,
            ops::GATHER => self.gather(op, &out)?,
            ops::SCATTER_ADD => self.scatter_add(op, &out)?,
            ops::MATMUL => self.matmul(op, &out)?,
            ops::SOFTMAX => self.softmax(op, &out)?,
            ops::LAYER_NORM => self.layer_norm(op, &out)?,
            ops::DROPOUT => self.dropout(op, &out)?,
            other => {
                return Err(Error::unsupported(
                    &out.location,
                    format!("'{other}' is not compiled to native or PTX code yet"),
                ))
            }
        }
        self.set(
            out.value,
            Tensor {
                name: out.name,
                element: out.element,
                shape: out.shape,
            },
        );
        Ok(())
    }
}

/// The scalar a splat `arith.constant` holds, as `value : type`.
fn splat_text(op: &Operation) -> Option<String> {
    let value = op.attribute("value").ok()?;
    let raw = value.to_raw();
    // SAFETY: attribute queries on a live attribute.
    unsafe {
        if mlir_sys::mlirAttributeIsADenseElements(raw) {
            if !mlir_sys::mlirDenseElementsAttrIsSplat(raw) {
                return None;
            }
            Some(Attribute::from_raw(mlir_sys::mlirDenseElementsAttrGetSplatValue(raw)).to_string())
        } else {
            Some(value.to_string())
        }
    }
}

/// A non-splat dense `arith.constant`'s value retyped without its coco
/// layout (kernels hold plain tensors), as `dense<...> : tensor<...>`.
fn dense_text(op: &Operation) -> Option<String> {
    let value = op.attribute("value").ok()?;
    let tensor = DistTensor::from_type(op.result(0).ok()?.r#type())?;
    let dims: Vec<u64> = tensor.static_shape()?.iter().map(|&d| d as u64).collect();
    let plain = RankedTensorType::new(&dims, tensor.element, None);
    // SAFETY: `value` is a dense elements attribute (checked first) with as
    // many elements as `plain` has.
    unsafe {
        if !mlir_sys::mlirAttributeIsADenseElements(value.to_raw()) {
            return None;
        }
        let retyped = mlir_sys::mlirDenseElementsAttrReshapeGet(value.to_raw(), plain.to_raw());
        (!retyped.ptr.is_null()).then(|| Attribute::from_raw(retyped).to_string())
    }
}

fn identity_map(rank: usize) -> String {
    map(rank, &(0..rank).collect::<Vec<_>>())
}

/// The affine map from `rank` loop dimensions to the dimensions `results`.
fn map(rank: usize, results: &[usize]) -> String {
    let dims: Vec<String> = (0..rank).map(|i| format!("d{i}")).collect();
    let results: Vec<String> = results.iter().map(|i| format!("d{i}")).collect();
    format!(
        "affine_map<({}) -> ({})>",
        dims.join(", "),
        results.join(", ")
    )
}

fn iterators(kinds: &[&str]) -> String {
    let quoted: Vec<String> = kinds.iter().map(|k| format!("\"{k}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The iterator types of an all-parallel loop nest of `rank` dimensions.
fn parallel(rank: usize) -> String {
    iterators(&vec!["parallel"; rank])
}
