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

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use coco_dialects::{
    coco::{ops, DistTensor, Layout, Reduction},
    ir::{as_op, defining_op, int_attr, location_text, op_name},
};
use melior::ir::{
    operation::{OperationPrintingFlags, OperationRef},
    Attribute, AttributeLike, Operation, Type, Value, ValueLike,
};

use crate::{
    error::{Error, Result},
    partition::{is_elementwise, is_free, key, local_type, operand, KernelUnit, Values},
};

/// A tensor in the kernel: its SSA name, element type and local shape.
#[derive(Clone)]
struct Tensor {
    name: String,
    element: String,
    shape: Vec<usize>,
}

impl Tensor {
    fn ty(&self) -> String {
        tensor_type(&self.shape, &self.element)
    }
}

fn tensor_type(shape: &[usize], element: &str) -> String {
    let mut text = String::from("tensor<");
    for d in shape {
        let _ = write!(text, "{d}x");
    }
    text.push_str(element);
    text.push('>');
    text
}

fn memref_type(shape: &[usize], element: &str) -> String {
    tensor_type(shape, element).replacen("tensor", "memref", 1)
}

fn identity_map(rank: usize) -> String {
    let dims: Vec<String> = (0..rank).map(|i| format!("d{i}")).collect();
    format!("affine_map<({}) -> ({})>", dims.join(", "), dims.join(", "))
}

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

/// The element type reductions and matmuls accumulate in.
fn accumulator(element: &str) -> &'static str {
    if element == "f64" {
        "f64"
    } else {
        "f32"
    }
}

fn is_float(element: &str) -> bool {
    matches!(element, "f64" | "f32" | "f16" | "bf16")
}

fn int_width(element: &str) -> Option<u32> {
    match element {
        "index" => Some(64),
        _ => element.strip_prefix('i')?.parse().ok(),
    }
}

fn float_width(element: &str) -> u32 {
    match element {
        "f64" => 64,
        "f32" => 32,
        _ => 16,
    }
}

/// The scalar op converting `from` to `to` (coco.cast), `None` when equal.
fn cast_op(from: &str, to: &str) -> Option<&'static str> {
    if from == to {
        return None;
    }
    Some(match (is_float(from), is_float(to)) {
        (true, true) if float_width(to) > float_width(from) => "arith.extf",
        (true, true) => "arith.truncf",
        (false, true) => "arith.sitofp",
        (true, false) => "arith.fptosi",
        (false, false) => {
            if int_width(to) > int_width(from) {
                "arith.extsi"
            } else {
                "arith.trunci"
            }
        }
    })
}

/// `op`'s attributes as generic syntax (`<{...}> {...}`), cut from its
/// generic print, so every attribute of any arith/math op carries over.
fn generic_attributes(op: &Operation) -> String {
    let text = op
        .to_string_with_flags(
            OperationPrintingFlags::new()
                .print_generic_operation_form()
                .use_local_scope(),
        )
        .unwrap_or_default();
    let name = format!("\"{}\"(", op_name(op));
    let Some(start) = text.find(&name).map(|i| i + name.len()) else {
        return String::new();
    };
    let Some(close) = text[start..].find(')').map(|i| start + i + 1) else {
        return String::new();
    };
    let Some(signature) = text.rfind(" : (") else {
        return String::new();
    };
    if signature < close {
        return String::new();
    }
    text[close..signature].trim().to_string()
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

fn element_text(ty: Type) -> String {
    match DistTensor::from_type(ty) {
        Some(t) => t.element.to_string(),
        None => ty.to_string(),
    }
}

/// The upstream MLIR of one kernel and the number of buffers it takes.
pub struct KernelText {
    pub name: String,
    pub text: String,
    pub buffers: usize,
    pub computes: Vec<String>,
}

struct Emitter<'v, 'c, 'a> {
    values: &'v Values<'c, 'a>,
    group: usize,
    body: String,
    tensors: HashMap<usize, Tensor>,
    counter: usize,
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

    fn local(&self, value: Value, location: &str) -> Result<(String, Vec<usize>)> {
        let (_, shape) = local_type(value.r#type(), self.group, location)?;
        Ok((element_text(value.r#type()), shape))
    }

    /// `value` as a kernel tensor, materialising free ops.
    fn tensor_of(&mut self, value: Value<'c, 'a>, location: &str) -> Result<Tensor> {
        let value = self.values.resolve(value);
        if let Some(t) = self.tensors.get(&key(value)) {
            return Ok(t.clone());
        }
        let (element, shape) = self.local(value, location)?;
        let def = defining_op(value);
        let scalar = match def.as_ref().map(|d| op_name(as_op(d))) {
            Some(name) if name == "arith.constant" => {
                let op = as_op(def.as_ref().unwrap());
                let text = splat_text(op).ok_or_else(|| {
                    Error::unsupported(
                        location_text(op.location()),
                        "non-splat tensor constants are not compiled yet",
                    )
                })?;
                let c = self.fresh("c");
                self.line(&format!("{c} = arith.constant {text}"));
                c
            }
            Some(name) if name == "tensor.splat" => {
                let op = as_op(def.as_ref().unwrap());
                let source = operand(op, 0)
                    .ok_or_else(|| Error::unsupported(location, "tensor.splat without operand"))?;
                let zero_d = self.tensor_of(source, location)?;
                let s = self.fresh("s");
                self.line(&format!(
                    "{s} = tensor.extract {}[] : {}",
                    zero_d.name,
                    zero_d.ty()
                ));
                s
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
        if tensor.shape.is_empty() {
            self.line(&format!(
                "{} = tensor.from_elements {scalar} : {}",
                tensor.name,
                tensor.ty()
            ));
        } else {
            self.line(&format!(
                "{} = tensor.splat {scalar} : {}",
                tensor.name,
                tensor.ty()
            ));
        }
        Ok(tensor)
    }

    fn empty(&mut self, shape: &[usize], element: &str) -> String {
        let e = self.fresh("e");
        self.line(&format!(
            "{e} = tensor.empty() : {}",
            tensor_type(shape, element)
        ));
        e
    }

    /// `linalg.fill` of a fresh tensor with `value` (`0.0`-style literal).
    fn filled(&mut self, shape: &[usize], element: &str, literal: &str) -> String {
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

    fn set(&mut self, value: Value, tensor: Tensor) {
        self.tensors.insert(key(value), tensor);
    }

    /// A fused element-wise cluster: `ops` all produce tensors of `shape`;
    /// `live_out` are the values read after the cluster.
    fn cluster(&mut self, ops: &[OperationRef<'c, 'a>], live_out: &HashSet<usize>) -> Result<()> {
        let first = as_op(&ops[0]);
        let location = location_text(first.location());
        let result: Value = first
            .result(0)
            .map_err(|e| Error::unsupported(&location, e.to_string()))?
            .into();
        let (_, shape) = self.local(result, &location)?;
        let rank = shape.len();
        let produced: HashSet<usize> = ops
            .iter()
            .flat_map(|op| {
                as_op(op)
                    .results()
                    .map(|r| key(r.into()))
                    .collect::<Vec<_>>()
            })
            .collect();

        // Inputs: tensors of the cluster's shape and scalars (0-d).
        let mut inputs: Vec<(usize, Tensor)> = Vec::new();
        for op in ops {
            for i in 0..as_op(op).operand_count() {
                if let Some(v) = operand(as_op(op), i) {
                    self.cluster_inputs(v, &produced, &location, &mut inputs)?;
                }
            }
        }

        let outputs: Vec<Value<'c, 'a>> = ops
            .iter()
            .flat_map(|op| as_op(op).results().map(Value::from).collect::<Vec<_>>())
            .filter(|v| live_out.contains(&key(*v)))
            // SAFETY: values of the function outlive the kernel text.
            .map(|v| unsafe { Value::from_raw(v.to_raw()) })
            .collect();

        let mut header = Vec::new();
        let mut maps = Vec::new();
        let mut block_args = Vec::new();
        let mut scalars: HashMap<usize, String> = HashMap::new();
        for (i, (k, t)) in inputs.iter().enumerate() {
            maps.push(if t.shape.is_empty() {
                map(rank, &[])
            } else {
                identity_map(rank)
            });
            header.push((t.name.clone(), t.ty()));
            block_args.push(format!("%x{i}: {}", t.element));
            scalars.insert(*k, format!("%x{i}"));
        }
        let mut outs = Vec::new();
        for (i, v) in outputs.iter().enumerate() {
            let (element, _) = self.local(*v, &location)?;
            let e = self.empty(&shape, &element);
            outs.push((e, tensor_type(&shape, &element)));
            maps.push(identity_map(rank));
            block_args.push(format!("%y{i}: {element}"));
        }

        let mut body = String::new();
        let mut counter = 0;
        for op in ops {
            let op = as_op(op);
            let loc = location_text(op.location());
            let mut operand_names = Vec::new();
            let mut operand_types = Vec::new();
            for i in 0..op.operand_count() {
                let Some(v) = operand(op, i) else { continue };
                operand_names.push(self.scalar_in_body(
                    v,
                    &mut scalars,
                    &mut body,
                    &mut counter,
                    &loc,
                )?);
                operand_types.push(element_text(v.r#type()));
            }
            let result: Value = op
                .result(0)
                .map_err(|e| Error::unsupported(&loc, e.to_string()))?
                .into();
            let result_type = element_text(result.r#type());
            counter += 1;
            let name = format!("%v{counter}");
            if op_name(op) == ops::CAST {
                match cast_op(&operand_types[0], &result_type) {
                    Some(cast) => {
                        let _ = writeln!(
                            body,
                            "      {name} = {cast} {} : {} to {result_type}",
                            operand_names[0], operand_types[0]
                        );
                    }
                    None => {
                        scalars.insert(key(result), operand_names[0].clone());
                        continue;
                    }
                }
            } else {
                let _ = writeln!(
                    body,
                    "      {name} = \"{}\"({}) {} : ({}) -> {result_type}",
                    op_name(op),
                    operand_names.join(", "),
                    generic_attributes(op),
                    operand_types.join(", ")
                );
            }
            scalars.insert(key(result), name);
        }
        let yields: Vec<String> = outputs.iter().map(|v| scalars[&key(*v)].clone()).collect();
        let yield_types: Vec<String> = outputs.iter().map(|v| element_text(v.r#type())).collect();

        let results = self.fresh("r");
        let out_types: Vec<String> = outs.iter().map(|o| o.1.clone()).collect();
        let mut text = format!(
            "{results}{} = linalg.generic {{indexing_maps = [{}], iterator_types = {}}}",
            if outs.len() > 1 {
                format!(":{}", outs.len())
            } else {
                String::new()
            },
            maps.join(", "),
            iterators(&vec!["parallel"; rank])
        );
        if !header.is_empty() {
            let _ = write!(
                text,
                " ins({} : {})",
                header
                    .iter()
                    .map(|h| h.0.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
                header
                    .iter()
                    .map(|h| h.1.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let _ = write!(
            text,
            " outs({} : {}) {{\n    ^bb0({}):\n{body}      linalg.yield {} : {}\n    }} -> {}",
            outs.iter()
                .map(|o| o.0.clone())
                .collect::<Vec<_>>()
                .join(", "),
            out_types.join(", "),
            block_args.join(", "),
            yields.join(", "),
            yield_types.join(", "),
            if out_types.len() > 1 {
                format!("({})", out_types.join(", "))
            } else {
                out_types.join(", ")
            }
        );
        self.line(&text);
        for (i, v) in outputs.iter().enumerate() {
            let (element, _) = self.local(*v, &location)?;
            let name = if outs.len() > 1 {
                format!("{results}#{i}")
            } else {
                results.clone()
            };
            self.set(
                *v,
                Tensor {
                    name,
                    element,
                    shape: shape.clone(),
                },
            );
        }
        Ok(())
    }

    /// Collects what a cluster operand needs from outside the cluster.
    fn cluster_inputs(
        &mut self,
        operand: Value<'c, 'a>,
        produced: &HashSet<usize>,
        location: &str,
        inputs: &mut Vec<(usize, Tensor)>,
    ) -> Result<()> {
        let value = self.values.resolve(operand);
        if produced.contains(&key(value)) || inputs.iter().any(|(k, _)| *k == key(value)) {
            return Ok(());
        }
        if let Some(def) = defining_op(value) {
            let def_op = as_op(&def);
            match op_name(def_op).as_str() {
                "arith.constant" => return Ok(()),
                "tensor.splat" => {
                    let source = crate::partition::operand(def_op, 0).ok_or_else(|| {
                        Error::unsupported(location, "tensor.splat without operand")
                    })?;
                    return self.cluster_inputs(source, produced, location, inputs);
                }
                _ => {}
            }
        }
        let tensor = self.tensor_of(value, location)?;
        inputs.push((key(value), tensor));
        Ok(())
    }

    /// The scalar name of `operand` inside a cluster body.
    fn scalar_in_body(
        &mut self,
        operand: Value<'c, 'a>,
        scalars: &mut HashMap<usize, String>,
        body: &mut String,
        counter: &mut usize,
        location: &str,
    ) -> Result<String> {
        let value = self.values.resolve(operand);
        if let Some(name) = scalars.get(&key(value)) {
            return Ok(name.clone());
        }
        let def = defining_op(value).ok_or_else(|| {
            Error::unsupported(
                location,
                "internal error: an element-wise operand has no scalar",
            )
        })?;
        let def_op = as_op(&def);
        let name = match op_name(def_op).as_str() {
            "arith.constant" => {
                let text = splat_text(def_op).ok_or_else(|| {
                    Error::unsupported(
                        location_text(def_op.location()),
                        "non-splat constants in element-wise code are not compiled yet",
                    )
                })?;
                *counter += 1;
                let name = format!("%v{counter}");
                let _ = writeln!(body, "      {name} = arith.constant {text}");
                name
            }
            "tensor.splat" => {
                let source = crate::partition::operand(def_op, 0)
                    .ok_or_else(|| Error::unsupported(location, "tensor.splat without operand"))?;
                self.scalar_in_body(source, scalars, body, counter, location)?
            }
            other => {
                return Err(Error::unsupported(
                    location,
                    format!("internal error: element-wise operand from '{other}' has no scalar"),
                ))
            }
        };
        scalars.insert(key(value), name.clone());
        Ok(name)
    }

    fn result_of(
        &self,
        op: &Operation<'c>,
        location: &str,
    ) -> Result<(Value<'c, 'a>, String, Vec<usize>)> {
        let result: Value = op
            .result(0)
            .map_err(|e| Error::unsupported(location, e.to_string()))?
            .into();
        // SAFETY: results of the function's ops outlive the kernel text.
        let result: Value<'c, 'a> = unsafe { Value::from_raw(result.to_raw()) };
        let (element, shape) = self.local(result, location)?;
        Ok((result, element, shape))
    }

    fn operand(&mut self, op: &Operation<'c>, index: usize, location: &str) -> Result<Tensor> {
        let value = operand(op, index)
            .ok_or_else(|| Error::unsupported(location, format!("missing operand {index}")))?;
        self.tensor_of(value, location)
    }

    /// A non-element-wise computation.
    fn computation(&mut self, op: &Operation<'c>) -> Result<()> {
        let name = op_name(op);
        let location = location_text(op.location());
        let (result, element, shape) = self.result_of(op, &location)?;
        let out = self.fresh("t");
        match name.as_str() {
            ops::SLICE => {
                let x = self.operand(op, 0, &location)?;
                let dim = match DistTensor::from_type(result.r#type()).and_then(|t| t.layout) {
                    Some(Layout::Sliced(d)) => d as usize,
                    _ => {
                        return Err(Error::unsupported(
                            &location,
                            "coco.slice result is not sliced",
                        ))
                    }
                };
                let c = self.fresh("c");
                self.line(&format!("{c} = arith.constant {} : index", shape[dim]));
                let offset = self.fresh("o");
                self.line(&format!("{offset} = arith.muli %rank, {c} : index"));
                let offsets: Vec<String> = (0..shape.len())
                    .map(|d| if d == dim { offset.clone() } else { "0".into() })
                    .collect();
                let sizes: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
                let ones = vec!["1"; shape.len()].join(", ");
                self.line(&format!(
                    "{out} = tensor.extract_slice {}[{}] [{}] [{ones}] : {} to {}",
                    x.name,
                    offsets.join(", "),
                    sizes.join(", "),
                    x.ty(),
                    tensor_type(&shape, &element)
                ));
            }
            ops::EXPAND => {
                let x = self.operand(op, 0, &location)?;
                let rank = shape.len();
                if x.shape.len() > rank || shape[rank - x.shape.len()..] != x.shape[..] {
                    return Err(Error::unsupported(
                        &location,
                        format!(
                            "coco.expand from local shape {:?} to {:?} is not a broadcast along leading dimensions",
                            x.shape, shape
                        ),
                    ));
                }
                let trailing: Vec<usize> = (rank - x.shape.len()..rank).collect();
                let e = self.empty(&shape, &element);
                self.line(&format!(
                    "{out} = linalg.generic {{indexing_maps = [{}, {}], iterator_types = {}}} ins({} : {}) outs({e} : {}) {{\n    ^bb0(%a: {element}, %b: {element}):\n      linalg.yield %a : {element}\n    }} -> {}",
                    map(rank, &trailing),
                    identity_map(rank),
                    iterators(&vec!["parallel"; rank]),
                    x.name,
                    x.ty(),
                    tensor_type(&shape, &element),
                    tensor_type(&shape, &element)
                ));
            }
            ops::NORM | ops::REDUCE_ELEMENTS => {
                let x = self.operand(op, 0, &location)?;
                if !is_float(&x.element) {
                    return Err(Error::unsupported(
                        &location,
                        format!("'{name}' of {} is not compiled yet", x.element),
                    ));
                }
                let acc = accumulator(&x.element);
                let kind = if name == ops::NORM {
                    None
                } else {
                    Some(
                        int_attr(op, "kind")
                            .and_then(Reduction::from_value)
                            .unwrap_or(Reduction::Sum),
                    )
                };
                let init = match kind {
                    Some(Reduction::Prod) => "1.0",
                    Some(Reduction::Min) => "0x7F800000",
                    Some(Reduction::Max) => "0xFF800000",
                    _ => "0.0",
                };
                let init = if acc == "f64" {
                    match init {
                        "0x7F800000" => "0x7FF0000000000000",
                        "0xFF800000" => "0xFFF0000000000000",
                        other => other,
                    }
                } else {
                    init
                };
                let f = self.filled(&[], acc, init);
                let rank = x.shape.len();
                let (widen, xin) = if x.element == acc {
                    (String::new(), "%a")
                } else {
                    (
                        format!("      %x = arith.extf %a : {} to {acc}\n", x.element),
                        "%x",
                    )
                };
                let combine = match kind {
                    None => format!("      %sq = arith.mulf {xin}, {xin} : {acc}\n      %n = arith.addf %acc, %sq : {acc}\n"),
                    Some(Reduction::Sum | Reduction::Avg) => format!("      %n = arith.addf %acc, {xin} : {acc}\n"),
                    Some(Reduction::Prod) => format!("      %n = arith.mulf %acc, {xin} : {acc}\n"),
                    Some(Reduction::Min) => format!("      %n = arith.minnumf %acc, {xin} : {acc}\n"),
                    Some(Reduction::Max) => format!("      %n = arith.maxnumf %acc, {xin} : {acc}\n"),
                };
                let s = self.fresh("s");
                self.line(&format!(
                    "{s} = linalg.generic {{indexing_maps = [{}, {}], iterator_types = {}}} ins({} : {}) outs({f} : tensor<{acc}>) {{\n    ^bb0(%a: {}, %acc: {acc}):\n{widen}{combine}      linalg.yield %n : {acc}\n    }} -> tensor<{acc}>",
                    identity_map(rank),
                    map(rank, &[]),
                    iterators(&vec!["reduction"; rank]),
                    x.name,
                    x.ty(),
                    x.element,
                ));
                let count = x.shape.iter().product::<usize>().max(1);
                let (finish, y) = match kind {
                    None => (format!("      %y = math.sqrt %a : {acc}\n"), "%y"),
                    Some(Reduction::Avg) => (
                        format!("      %cnt = arith.constant {count}.0 : {acc}\n      %y = arith.divf %a, %cnt : {acc}\n"),
                        "%y",
                    ),
                    _ => (String::new(), "%a"),
                };
                let (round, r) = match cast_op(acc, &element) {
                    Some(cast) => (
                        format!("      %r = {cast} {y} : {acc} to {element}\n"),
                        "%r",
                    ),
                    None => (String::new(), y),
                };
                let e = self.empty(&[], &element);
                self.line(&format!(
                    "{out} = linalg.generic {{indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}} ins({s} : tensor<{acc}>) outs({e} : tensor<{element}>) {{\n    ^bb0(%a: {acc}, %b: {element}):\n{finish}{round}      linalg.yield {r} : {element}\n    }} -> tensor<{element}>"
                ));
            }
            ops::MATMUL => {
                let a = self.operand(op, 0, &location)?;
                let b = self.operand(op, 1, &location)?;
                let acc = accumulator(&element);
                let named = if shape.len() == 3 {
                    "linalg.batch_matmul"
                } else {
                    "linalg.matmul"
                };
                let f = self.filled(&shape, acc, "0.0");
                let m = if acc == element {
                    out.clone()
                } else {
                    self.fresh("m")
                };
                self.line(&format!(
                    "{m} = {named} ins({}, {} : {}, {}) outs({f} : {}) -> {}",
                    a.name,
                    b.name,
                    a.ty(),
                    b.ty(),
                    tensor_type(&shape, acc),
                    tensor_type(&shape, acc)
                ));
                if acc != element {
                    let rank = shape.len();
                    let e = self.empty(&shape, &element);
                    self.line(&format!(
                        "{out} = linalg.generic {{indexing_maps = [{id}, {id}], iterator_types = {}}} ins({m} : {}) outs({e} : {}) {{\n    ^bb0(%a: {acc}, %b: {element}):\n      %r = arith.truncf %a : {acc} to {element}\n      linalg.yield %r : {element}\n    }} -> {}",
                        iterators(&vec!["parallel"; rank]),
                        tensor_type(&shape, acc),
                        tensor_type(&shape, &element),
                        tensor_type(&shape, &element),
                        id = identity_map(rank),
                    ));
                }
            }
            ops::TRANSPOSE => {
                let x = self.operand(op, 0, &location)?;
                let rank = shape.len();
                let mut permutation: Vec<usize> = (0..rank).collect();
                permutation.swap(rank - 1, rank - 2);
                let e = self.empty(&shape, &element);
                self.line(&format!(
                    "{out} = linalg.transpose ins({} : {}) outs({e} : {}) permutation = [{}]",
                    x.name,
                    x.ty(),
                    tensor_type(&shape, &element),
                    permutation
                        .iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            other => {
                return Err(Error::unsupported(
                    &location,
                    format!("'{other}' is not compiled to native or PTX code yet"),
                ))
            }
        }
        self.set(
            result,
            Tensor {
                name: out,
                element,
                shape,
            },
        );
        Ok(())
    }
}

/// Emits `unit` as a `func.func` for a stage of `group` ranks.
pub fn emit(unit: &KernelUnit, values: &Values, group: usize) -> Result<KernelText> {
    let mut emitter = Emitter {
        values,
        group,
        body: String::new(),
        tensors: HashMap::new(),
        counter: 0,
    };
    let mut params = Vec::new();
    for (i, v) in unit.inputs.iter().chain(&unit.outputs).enumerate() {
        let location = defining_op(*v)
            .map(|op| location_text(as_op(&op).location()))
            .unwrap_or_default();
        let (element, shape) = emitter.local(*v, &location)?;
        params.push(format!("%p{i}: {}", memref_type(&shape, &element)));
        if i < unit.inputs.len() {
            let name = format!("%in{i}");
            emitter.line(&format!(
                "{name} = bufferization.to_tensor %p{i} restrict : {}",
                memref_type(&shape, &element)
            ));
            emitter.set(
                *v,
                Tensor {
                    name,
                    element,
                    shape,
                },
            );
        }
    }

    // Slices of kernel inputs are views (a subview after bufferization):
    // taking them first lets the element-wise code around them fuse into
    // one loop.
    let inputs: HashSet<usize> = unit.inputs.iter().map(|v| key(*v)).collect();
    let is_input_view = |op: &OperationRef| {
        let op = as_op(op);
        op_name(op) == ops::SLICE
            && operand(op, 0).is_some_and(|v| inputs.contains(&key(values.resolve(v))))
    };
    let ordered: Vec<OperationRef> = unit
        .ops
        .iter()
        .filter(|op| is_input_view(op))
        .chain(unit.ops.iter().filter(|op| !is_input_view(op)))
        .copied()
        .collect();
    let unit_ops = &ordered;

    // What each op reads, to know which cluster values are live after it.
    let reads: Vec<HashSet<usize>> = unit_ops
        .iter()
        .map(|op| {
            as_op(op)
                .operands()
                .flat_map(|o| values.sources(o))
                .map(key)
                .collect()
        })
        .collect();
    let outputs: HashSet<usize> = unit.outputs.iter().map(|v| key(*v)).collect();

    let mut i = 0;
    while i < unit_ops.len() {
        let op = as_op(&unit_ops[i]);
        if is_elementwise(op) {
            let shape_of = |op: &Operation| {
                op.result(0)
                    .ok()
                    .and_then(|r| local_type(r.r#type(), group, "").ok())
                    .map(|t| t.1)
            };
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
            emitter.cluster(&unit_ops[i..j], &live_out)?;
            i = j;
        } else {
            if is_free(&op_name(op)) {
                i += 1;
                continue;
            }
            emitter.computation(op)?;
            i += 1;
        }
    }

    for (i, v) in unit.outputs.iter().enumerate() {
        let index = unit.inputs.len() + i;
        let t = emitter.tensors.get(&key(*v)).cloned().ok_or_else(|| {
            Error::unsupported(
                unit.name.clone(),
                "internal error: a kernel output was not computed",
            )
        })?;
        emitter.line(&format!(
            "bufferization.materialize_in_destination {} in restrict writable %p{index} : ({}, {}) -> ()",
            t.name,
            t.ty(),
            memref_type(&t.shape, &t.element)
        ));
    }
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
        buffers: params.len(),
        computes,
    })
}
