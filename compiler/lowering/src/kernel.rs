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

use coco_dialects::lifetime;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use coco_dialects::{
    coco::{ops, DistTensor, Layout, Reduction},
    ir::{as_op, defining_op, float_attr, int_attr, location_text, op_name},
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

/// SplitMix64's finaliser, as the interpreter's `rng::mix`.
fn rng_mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// `x` rounded to `element`, for compile-time constants.
fn round_to(element: &str, x: f64) -> f64 {
    match element {
        "f32" => x as f32 as f64,
        "f16" => half::f16::from_f64(x).to_f64(),
        "bf16" => half::bf16::from_f64(x).to_f64(),
        _ => x,
    }
}

/// A `linalg.generic` (without its result name) rounding `input`, a
/// `shape` tensor of `acc`, to `element` into `outs`: how matmuls finish.
fn narrowing(input: &str, outs: &str, shape: &[usize], acc: &str, element: &str) -> String {
    let rank = shape.len();
    let (round, r) = narrow(acc, element, "%a", "%r");
    format!(
        "linalg.generic {{indexing_maps = [{id}, {id}], iterator_types = {}}} ins({input} : {}) outs({outs} : {}) {{\n    ^bb0(%a: {acc}, %b: {element}):\n{round}      linalg.yield {r} : {element}\n    }} -> {}",
        iterators(&vec!["parallel"; rank]),
        tensor_type(shape, acc),
        tensor_type(shape, element),
        tensor_type(shape, element),
        id = identity_map(rank),
    )
}

/// `x` as an MLIR float literal (which needs a `.` before any exponent),
/// exact for f64 values.
fn float_literal(x: f64) -> String {
    let text = format!("{x:e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) if !mantissa.contains('.') => format!("{mantissa}.0e{exponent}"),
        _ => text,
    }
}

/// `(line, name)`: `from` (of type `element`) in the accumulation type.
fn widen(element: &str, acc: &str, from: &str, to: &str) -> (String, String) {
    if element == acc {
        (String::new(), from.to_string())
    } else {
        (
            format!("      {to} = arith.extf {from} : {element} to {acc}\n"),
            to.to_string(),
        )
    }
}

/// `(line, name)`: `from` rounded from `acc` to `element`.
fn narrow(acc: &str, element: &str, from: &str, to: &str) -> (String, String) {
    match cast_op(acc, element) {
        Some(cast) => (
            format!("      {to} = {cast} {from} : {acc} to {element}\n"),
            to.to_string(),
        ),
        None => (String::new(), from.to_string()),
    }
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
    /// Kernel outputs not yet written: value -> (parameter, memref type).
    destinations: HashMap<usize, (String, String)>,
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
            .map(lifetime::value)
            .collect();

        // One loop over all elements, whatever the rank: memory is dense
        // and row-major, so collapsing is free, and one dimension tiles and
        // maps to GPU threads without idle lanes.
        let full_shape = shape.clone();
        let flat = rank != 1;
        let (shape, rank) = if flat {
            (vec![shape.iter().product::<usize>()], 1)
        } else {
            (shape, rank)
        };
        // 0-d values become one-element vectors (`[]` reassociation).
        let all_dims = if full_shape.is_empty() {
            "[]".to_string()
        } else {
            format!(
                "[[{}]]",
                (0..full_shape.len())
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
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
            if flat && !t.shape.is_empty() {
                let collapsed = self.fresh("x");
                self.line(&format!(
                    "{collapsed} = tensor.collapse_shape {} {all_dims} : {} into {}",
                    t.name,
                    t.ty(),
                    tensor_type(&shape, &t.element)
                ));
                header.push((collapsed, tensor_type(&shape, &t.element)));
            } else {
                header.push((t.name.clone(), t.ty()));
            }
            block_args.push(format!("%bx{i}: {}", t.element));
            scalars.insert(*k, format!("%bx{i}"));
        }
        let mut outs = Vec::new();
        for (i, v) in outputs.iter().enumerate() {
            let (element, _) = self.local(*v, &location)?;
            // A kernel output is computed in its buffer: with flattening, the
            // reshapes around an empty tensor would defeat empty-tensor
            // elimination and cost a copy.
            let e = match self.destinations.remove(&key(*v)) {
                Some((param, memref)) => {
                    let d = self.fresh("d");
                    self.line(&format!(
                        "{d} = bufferization.to_tensor {param} restrict writable : {memref}"
                    ));
                    if flat {
                        let c = self.fresh("x");
                        let reshape = if full_shape.is_empty() {
                            format!("tensor.expand_shape {d} [] output_shape [1]")
                        } else {
                            format!("tensor.collapse_shape {d} {all_dims}")
                        };
                        self.line(&format!(
                            "{c} = {reshape} : {} into {}",
                            tensor_type(&full_shape, &element),
                            tensor_type(&shape, &element)
                        ));
                        c
                    } else {
                        d
                    }
                }
                None => self.empty(&shape, &element),
            };
            outs.push((e, tensor_type(&shape, &element)));
            maps.push(identity_map(rank));
            block_args.push(format!("%by{i}: {element}"));
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
            let name = format!("%bv{counter}");
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
            let mut name = if outs.len() > 1 {
                format!("{results}#{i}")
            } else {
                results.clone()
            };
            if flat {
                let expanded = self.fresh("x");
                let reshape = if full_shape.is_empty() {
                    format!("tensor.collapse_shape {name} []")
                } else {
                    format!(
                        "tensor.expand_shape {name} {all_dims} output_shape [{}]",
                        full_shape
                            .iter()
                            .map(|d| d.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                self.line(&format!(
                    "{expanded} = {reshape} : {} into {}",
                    tensor_type(&shape, &element),
                    tensor_type(&full_shape, &element)
                ));
                name = expanded;
            }
            self.set(
                *v,
                Tensor {
                    name,
                    element,
                    shape: full_shape.clone(),
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
                let name = format!("%bv{counter}");
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
        let result: Value<'c, 'a> = lifetime::value(result);
        let (element, shape) = self.local(result, location)?;
        Ok((result, element, shape))
    }

    fn operand(&mut self, op: &Operation<'c>, index: usize, location: &str) -> Result<Tensor> {
        let value = operand(op, index)
            .ok_or_else(|| Error::unsupported(location, format!("missing operand {index}")))?;
        self.tensor_of(value, location)
    }

    /// Accumulates along the last dimension of the first input into a
    /// fresh `rows` tensor filled with `init`: `body` reads `%acc` and the
    /// inputs `%a`, `%b`, ... (per-row inputs broadcast along the row) and
    /// defines `%n`.
    fn reduce_rows(
        &mut self,
        inputs: &[(&Tensor, bool)],
        acc: &str,
        init: &str,
        body: &str,
    ) -> String {
        let x = inputs[0].0;
        let rank = x.shape.len();
        let rows = &x.shape[..rank - 1];
        let f = self.filled(rows, acc, init);
        let row_map = map(rank, &(0..rank - 1).collect::<Vec<_>>());
        let mut maps = Vec::new();
        let mut args = Vec::new();
        for (i, (t, per_row)) in inputs.iter().enumerate() {
            maps.push(if *per_row {
                row_map.clone()
            } else {
                identity_map(rank)
            });
            args.push(format!("%{}: {}", (b'a' + i as u8) as char, t.element));
        }
        maps.push(row_map);
        let mut kinds = vec!["parallel"; rank - 1];
        kinds.push("reduction");
        let r = self.fresh("s");
        self.line(&format!(
            "{r} = linalg.generic {{indexing_maps = [{}], iterator_types = {}}} ins({} : {}) outs({f} : {}) {{\n    ^bb0({}, %acc: {acc}):\n{body}      linalg.yield %n : {acc}\n    }} -> {}",
            maps.join(", "),
            iterators(&kinds),
            inputs.iter().map(|(t, _)| t.name.clone()).collect::<Vec<_>>().join(", "),
            inputs.iter().map(|(t, _)| t.ty()).collect::<Vec<_>>().join(", "),
            tensor_type(rows, acc),
            args.join(", "),
            tensor_type(rows, acc)
        ));
        r
    }

    /// Per row: `exp(x - max) / sum(exp(x - max))` in the accumulation type.
    fn softmax(&mut self, x: &Tensor, out: &str, element: &str) {
        let acc = accumulator(&x.element);
        let rank = x.shape.len();
        let (wa, xa) = widen(&x.element, acc, "%a", "%x");
        let neg_inf = if acc == "f64" {
            "0xFFF0000000000000"
        } else {
            "0xFF800000"
        };
        let m = self.reduce_rows(
            &[(x, false)],
            acc,
            neg_inf,
            &format!("{wa}      %n = arith.maxnumf %acc, {xa} : {acc}\n"),
        );
        let rows = x.shape[..rank - 1].to_vec();
        let m_t = Tensor {
            name: m,
            element: acc.into(),
            shape: rows.clone(),
        };
        let sum = self.reduce_rows(
            &[(x, false), (&m_t, true)],
            acc,
            "0.0",
            &format!("{wa}      %d = arith.subf {xa}, %b : {acc}\n      %e = math.exp %d : {acc}\n      %n = arith.addf %acc, %e : {acc}\n"),
        );
        let row_map = map(rank, &(0..rank - 1).collect::<Vec<_>>());
        let e = self.empty(&x.shape, element);
        let (round, r) = narrow(acc, element, "%q", "%r");
        self.line(&format!(
            "{out} = linalg.generic {{indexing_maps = [{id}, {row_map}, {row_map}, {id}], iterator_types = {}}} ins({}, {}, {sum} : {}, {}, {}) outs({e} : {}) {{\n    ^bb0(%a: {}, %b: {acc}, %c: {acc}, %o: {element}):\n{wa}      %d = arith.subf {xa}, %b : {acc}\n      %ex = math.exp %d : {acc}\n      %q = arith.divf %ex, %c : {acc}\n{round}      linalg.yield {r} : {element}\n    }} -> {}",
            iterators(&vec!["parallel"; rank]),
            x.name,
            m_t.name,
            x.ty(),
            m_t.ty(),
            tensor_type(&rows, acc),
            tensor_type(&x.shape, element),
            x.element,
            tensor_type(&x.shape, element),
            id = identity_map(rank),
        ));
    }

    /// Per row of the last dimension, in the accumulation type:
    /// `(x - mean) * (1 / sqrt(var + eps)) * gamma + beta`, with the final
    /// sum rounded once to the element type, as the interpreter does.
    fn layer_norm(
        &mut self,
        x: &Tensor,
        gamma: &Tensor,
        beta: &Tensor,
        epsilon: f64,
        out: &str,
        element: &str,
    ) {
        let acc = accumulator(&x.element);
        let rank = x.shape.len();
        let width = x.shape[rank - 1];
        let (wa, xa) = widen(&x.element, acc, "%a", "%x");
        let sum = self.reduce_rows(
            &[(x, false)],
            acc,
            "0.0",
            &format!("{wa}      %n = arith.addf %acc, {xa} : {acc}\n"),
        );
        let rows = x.shape[..rank - 1].to_vec();
        let sum_t = Tensor {
            name: sum,
            element: acc.into(),
            shape: rows.clone(),
        };
        let mean = format!("      %w = arith.constant {width}.0 : {acc}\n      %mean = arith.divf %b, %w : {acc}\n");
        let var = self.reduce_rows(
            &[(x, false), (&sum_t, true)],
            acc,
            "0.0",
            &format!("{wa}{mean}      %d = arith.subf {xa}, %mean : {acc}\n      %sq = arith.mulf %d, %d : {acc}\n      %n = arith.addf %acc, %sq : {acc}\n"),
        );
        let row_map = map(rank, &(0..rank - 1).collect::<Vec<_>>());
        let last = map(rank, &[rank - 1]);
        let e = self.empty(&x.shape, element);
        let (wg, ga) = widen(&gamma.element, acc, "%g", "%gw");
        let (wb, ba) = widen(&beta.element, acc, "%be", "%bw");
        let eps = float_literal(if acc == "f32" {
            epsilon as f32 as f64
        } else {
            epsilon
        });
        let (round, r) = narrow(acc, element, "%y", "%r");
        self.line(&format!(
            "{out} = linalg.generic {{indexing_maps = [{id}, {row_map}, {row_map}, {last}, {last}, {id}], iterator_types = {}}} ins({}, {}, {var}, {}, {} : {}, {}, {}, {}, {}) outs({e} : {}) {{\n    ^bb0(%a: {}, %b: {acc}, %v: {acc}, %g: {}, %be: {}, %o: {element}):\n{wa}{mean}      %var = arith.divf %v, %w : {acc}\n      %eps = arith.constant {eps} : {acc}\n      %ve = arith.addf %var, %eps : {acc}\n      %sd = math.sqrt %ve : {acc}\n      %one = arith.constant 1.0 : {acc}\n      %inv = arith.divf %one, %sd : {acc}\n      %d = arith.subf {xa}, %mean : {acc}\n      %nm = arith.mulf %d, %inv : {acc}\n{wg}      %ng = arith.mulf %nm, {ga} : {acc}\n{wb}      %y = arith.addf %ng, {ba} : {acc}\n{round}      linalg.yield {r} : {element}\n    }} -> {}",
            iterators(&vec!["parallel"; rank]),
            x.name,
            sum_t.name,
            gamma.name,
            beta.name,
            x.ty(),
            sum_t.ty(),
            tensor_type(&rows, acc),
            gamma.ty(),
            beta.ty(),
            tensor_type(&x.shape, element),
            x.element,
            gamma.element,
            beta.element,
            tensor_type(&x.shape, element),
            id = identity_map(rank),
        ));
    }

    /// The interpreter's counter-based dropout: element `i` (global linear
    /// index) is dropped when `uniform(key(seed), i) < prob`; the hash is
    /// SplitMix64 in i64 inside the kernel, the key a compile-time constant.
    #[allow(clippy::too_many_arguments)]
    fn dropout(
        &mut self,
        x: &Tensor,
        out: &str,
        element: &str,
        layout: Option<Layout>,
        global: &[i64],
        prob: f64,
        seed: u64,
    ) {
        let rank = x.shape.len();
        let mixed_key = rng_mix(rng_mix(0x636f_636f ^ seed));
        // u < prob with u = n / 2^53 and an integer n: n < ceil(prob * 2^53).
        let threshold = (prob * (1u64 << 53) as f64).ceil().max(0.0) as u64;
        let scale = round_to(element, 1.0 / (1.0 - prob));
        let mut strides = vec![1i64; rank];
        for d in (0..rank.saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * global[d + 1];
        }
        let mut index = String::from("      %dgi0 = arith.constant 0 : i64\n");
        for (d, stride) in strides.iter().enumerate() {
            let _ = write!(
                index,
                "      %dl{d} = linalg.index {d} : index\n      %dli{d} = arith.index_cast %dl{d} : index to i64\n"
            );
            let coordinate = match layout {
                Some(Layout::Sliced(dim)) if dim as usize == d => {
                    let _ = write!(
                        index,
                        "      %dr{d} = arith.index_cast %rank : index to i64\n      %dn{d} = arith.constant {} : i64\n      %do{d} = arith.muli %dr{d}, %dn{d} : i64\n      %dc{d} = arith.addi %dli{d}, %do{d} : i64\n",
                        x.shape[d]
                    );
                    format!("%dc{d}")
                }
                _ => format!("%dli{d}"),
            };
            let _ = write!(
                index,
                "      %ds{d} = arith.constant {stride} : i64\n      %dp{d} = arith.muli {coordinate}, %ds{d} : i64\n      %dgi{} = arith.addi %dgi{d}, %dp{d} : i64\n",
                d + 1
            );
        }
        let constants = format!(
            "      %golden = arith.constant {} : i64\n      %mix1 = arith.constant {} : i64\n      %mix2 = arith.constant {} : i64\n      %sh30 = arith.constant 30 : i64\n      %sh27 = arith.constant 27 : i64\n      %sh31 = arith.constant 31 : i64\n      %sh11 = arith.constant 11 : i64\n      %key = arith.constant {} : i64\n      %spread = arith.constant {} : i64\n      %threshold = arith.constant {} : i64\n",
            0x9e37_79b9_7f4a_7c15u64 as i64,
            0xbf58_476d_1ce4_e5b9u64 as i64,
            0x94d0_49bb_1331_11ebu64 as i64,
            mixed_key as i64,
            0xd6e8_feb8_6659_fd93u64 as i64,
            threshold as i64,
        );
        let mix = "      %ha = arith.addi %in, %golden : i64\n      %hb = arith.shrui %ha, %sh30 : i64\n      %hc = arith.xori %ha, %hb : i64\n      %hd = arith.muli %hc, %mix1 : i64\n      %he = arith.shrui %hd, %sh27 : i64\n      %hf = arith.xori %hd, %he : i64\n      %hg = arith.muli %hf, %mix2 : i64\n      %hh = arith.shrui %hg, %sh31 : i64\n      %h = arith.xori %hg, %hh : i64\n";
        let body = format!(
            "{constants}{index}      %ctr = arith.muli %dgi{rank}, %spread : i64\n      %in = arith.xori %key, %ctr : i64\n{mix}      %bits = arith.shrui %h, %sh11 : i64\n      %drop = arith.cmpi ult, %bits, %threshold : i64\n      %scale = arith.constant {} : {element}\n      %kept = arith.mulf %a, %scale : {element}\n      %zero = arith.constant 0.0 : {element}\n      %y = arith.select %drop, %zero, %kept : {element}\n",
            float_literal(scale)
        );
        let e = self.empty(&x.shape, element);
        self.line(&format!(
            "{out} = linalg.generic {{indexing_maps = [{id}, {id}], iterator_types = {}}} ins({} : {}) outs({e} : {}) {{\n    ^bb0(%a: {element}, %o: {element}):\n{body}      linalg.yield %y : {element}\n    }} -> {}",
            iterators(&vec!["parallel"; rank]),
            x.name,
            x.ty(),
            tensor_type(&x.shape, element),
            tensor_type(&x.shape, element),
            id = identity_map(rank),
        ));
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
                // A gather rather than `tensor.extract_slice`: a subview at a
                // rank-dependent offset is a strided memref, which GPU
                // kernels cannot take as a bare pointer.
                let rank = shape.len();
                let mut index = String::new();
                let mut coordinates = Vec::new();
                for d in 0..rank {
                    let _ = writeln!(index, "      %gl{d} = linalg.index {d} : index");
                    if d == dim {
                        let _ =
                            writeln!(index, "      %gs{d} = arith.addi %gl{d}, {offset} : index");
                        coordinates.push(format!("%gs{d}"));
                    } else {
                        coordinates.push(format!("%gl{d}"));
                    }
                }
                let e = self.empty(&shape, &element);
                self.line(&format!(
                    "{out} = linalg.generic {{indexing_maps = [{}], iterator_types = {}}} outs({e} : {}) {{\n    ^bb0(%o: {element}):\n{index}      %v = tensor.extract {}[{}] : {}\n      linalg.yield %v : {element}\n    }} -> {}",
                    identity_map(rank),
                    iterators(&vec!["parallel"; rank]),
                    tensor_type(&shape, &element),
                    x.name,
                    coordinates.join(", "),
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
                // One (GPU: single-thread) parallel iteration around the
                // sequential reduction, so that the whole reduction runs in
                // a kernel rather than on the host; the order of the sum
                // stays the interpreter's.
                let f = self.filled(&[1], acc, init);
                let rank = x.shape.len() + 1;
                let mut wide = vec![1];
                wide.extend(&x.shape);
                let mut groups = vec!["[0, 1]".to_string()];
                groups.extend((2..rank).map(|d| format!("[{d}]")));
                let xe = self.fresh("x");
                if x.shape.is_empty() {
                    self.line(&format!(
                        "{xe} = tensor.expand_shape {} [] output_shape [1] : {} into {}",
                        x.name,
                        x.ty(),
                        tensor_type(&wide, &x.element)
                    ));
                } else {
                    self.line(&format!(
                        "{xe} = tensor.expand_shape {} [{}] output_shape [{}] : {} into {}",
                        x.name,
                        groups.join(", "),
                        wide.iter()
                            .map(|d| d.to_string())
                            .collect::<Vec<_>>()
                            .join(", "),
                        x.ty(),
                        tensor_type(&wide, &x.element)
                    ));
                }
                let mut kinds = vec!["parallel"];
                kinds.extend(vec!["reduction"; rank - 1]);
                let (widen, xin) = widen(&x.element, acc, "%a", "%x");
                let combine = match kind {
                    None => format!("      %sq = arith.mulf {xin}, {xin} : {acc}\n      %n = arith.addf %acc, %sq : {acc}\n"),
                    Some(Reduction::Sum | Reduction::Avg) => format!("      %n = arith.addf %acc, {xin} : {acc}\n"),
                    Some(Reduction::Prod) => format!("      %n = arith.mulf %acc, {xin} : {acc}\n"),
                    Some(Reduction::Min) => format!("      %n = arith.minnumf %acc, {xin} : {acc}\n"),
                    Some(Reduction::Max) => format!("      %n = arith.maxnumf %acc, {xin} : {acc}\n"),
                };
                let s = self.fresh("s");
                self.line(&format!(
                    "{s} = linalg.generic {{indexing_maps = [{}, {}], iterator_types = {}}} ins({xe} : {}) outs({f} : tensor<1x{acc}>) {{\n    ^bb0(%a: {}, %acc: {acc}):\n{widen}{combine}      linalg.yield %n : {acc}\n    }} -> tensor<1x{acc}>",
                    identity_map(rank),
                    map(rank, &[0]),
                    iterators(&kinds),
                    tensor_type(&wide, &x.element),
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
                let (round, r) = narrow(acc, &element, y, "%r");
                let e = match self.destinations.remove(&key(result)) {
                    Some((param, memref)) => {
                        let d = self.fresh("d");
                        self.line(&format!(
                            "{d} = bufferization.to_tensor {param} restrict writable : {memref}"
                        ));
                        let d1 = self.fresh("x");
                        self.line(&format!("{d1} = tensor.expand_shape {d} [] output_shape [1] : tensor<{element}> into tensor<1x{element}>"));
                        d1
                    }
                    None => self.empty(&[1], &element),
                };
                let y1 = self.fresh("y");
                self.line(&format!(
                    "{y1} = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}} ins({s} : tensor<1x{acc}>) outs({e} : tensor<1x{element}>) {{\n    ^bb0(%a: {acc}, %b: {element}):\n{finish}{round}      linalg.yield {r} : {element}\n    }} -> tensor<1x{element}>"
                ));
                self.line(&format!("{out} = tensor.collapse_shape {y1} [] : tensor<1x{element}> into tensor<{element}>"));
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
                    let e = self.empty(&shape, &element);
                    self.line(&format!(
                        "{out} = {}",
                        narrowing(&m, &e, &shape, acc, &element)
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
            ops::SPLIT_HEADS | ops::MERGE_HEADS => {
                // [S, H*d] <-> [H, S, d]: a reshape and a transpose.
                let x = self.operand(op, 0, &location)?;
                let (three, flat) = if name == ops::SPLIT_HEADS {
                    (shape.clone(), x.shape.clone())
                } else {
                    (x.shape.clone(), shape.clone())
                };
                if three.len() != 3
                    || flat.len() != 2
                    || flat[1] != three[0] * three[2]
                    || flat[0] != three[1]
                {
                    return Err(Error::unsupported(
                        &location,
                        format!("'{name}' between local shapes {flat:?} and {three:?} is not a head split"),
                    ));
                }
                let (_, _, d) = (three[0], three[1], three[2]);
                // One gather per output element, written in place: the
                // output map is the identity.
                let (rank, input_map) = if name == ops::SPLIT_HEADS {
                    (
                        3,
                        format!("affine_map<(d0, d1, d2) -> (d1, d0 * {d} + d2)>"),
                    )
                } else {
                    (
                        2,
                        format!("affine_map<(d0, d1) -> (d1 floordiv {d}, d0, d1 mod {d})>"),
                    )
                };
                let e = self.empty(&shape, &element);
                self.line(&format!(
                    "{out} = linalg.generic {{indexing_maps = [{input_map}, {}], iterator_types = {}}} ins({} : {}) outs({e} : {}) {{\n    ^bb0(%a: {element}, %b: {element}):\n      linalg.yield %a : {element}\n    }} -> {}",
                    identity_map(rank),
                    iterators(&vec!["parallel"; rank]),
                    x.name,
                    x.ty(),
                    tensor_type(&shape, &element),
                    tensor_type(&shape, &element)
                ));
            }
            ops::SOFTMAX => {
                let x = self.operand(op, 0, &location)?;
                self.softmax(&x, &out, &element);
            }
            ops::LAYER_NORM => {
                let x = self.operand(op, 0, &location)?;
                let gamma = self.operand(op, 1, &location)?;
                let beta = self.operand(op, 2, &location)?;
                let epsilon = float_attr(op, "epsilon").unwrap_or(1e-5);
                self.layer_norm(&x, &gamma, &beta, epsilon, &out, &element);
            }
            ops::DROPOUT => {
                let x = self.operand(op, 0, &location)?;
                let dist = DistTensor::from_type(result.r#type());
                let layout = dist.as_ref().and_then(|t| t.layout);
                let global = dist
                    .and_then(|t| t.static_shape())
                    .ok_or_else(|| Error::unsupported(&location, "dropout of a dynamic shape"))?;
                let prob = float_attr(op, "prob").unwrap_or(0.0);
                let seed = int_attr(op, "seed").unwrap_or(0) as u64;
                self.dropout(&x, &out, &element, layout, &global, prob, seed);
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
/// How the plan passes buffers to a kernel: for each of its values
/// (inputs, then outputs), the parameter that carries it (an output written
/// in place shares its input's parameter), and whether that parameter
/// aliases no other (so LLVM may assume `noalias`, which lets it hoist
/// scalar loads and vectorise without runtime checks).
pub struct Binding {
    pub parameter: Vec<usize>,
    pub noalias: Vec<bool>,
}

pub fn emit(
    unit: &KernelUnit,
    values: &Values,
    group: usize,
    binding: &Binding,
) -> Result<KernelText> {
    let mut emitter = Emitter {
        values,
        group,
        body: String::new(),
        tensors: HashMap::new(),
        destinations: HashMap::new(),
        counter: 0,
    };
    let mut params = Vec::new();
    for (i, v) in unit.inputs.iter().chain(&unit.outputs).enumerate() {
        let location = defining_op(*v)
            .map(|op| location_text(as_op(&op).location()))
            .unwrap_or_default();
        let (element, shape) = emitter.local(*v, &location)?;
        let p = binding.parameter[i];
        if p == i {
            let noalias = if binding.noalias[p] {
                " {llvm.noalias}"
            } else {
                ""
            };
            params.push(format!("%p{p}: {}{noalias}", memref_type(&shape, &element)));
        }
        if i >= unit.inputs.len() {
            emitter
                .destinations
                .insert(key(*v), (format!("%p{p}"), memref_type(&shape, &element)));
        }
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
        let index = binding.parameter[unit.inputs.len() + i];
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

/// The kernel of one row chunk of an overlap region's matmul:
/// `rows x k` by `k x n`, accumulated as `coco.matmul` is.
pub fn matmul_chunk(chunk: &crate::partition::MatmulChunk, binding: &Binding) -> KernelText {
    let (rows, k, n, element) = (chunk.rows, chunk.k, chunk.n, chunk.element.as_str());
    let acc = accumulator(element);
    let noalias = |i: usize| {
        if binding.noalias.get(i).copied().unwrap_or(false) {
            " {llvm.noalias}"
        } else {
            ""
        }
    };
    let a = memref_type(&[rows, k], element);
    let b = memref_type(&[k, n], element);
    let out = memref_type(&[rows, n], element);
    let (ta, tb, tacc, tout) = (
        tensor_type(&[rows, k], element),
        tensor_type(&[k, n], element),
        tensor_type(&[rows, n], acc),
        tensor_type(&[rows, n], element),
    );
    let mut body = format!(
        "    %lhs = bufferization.to_tensor %p0 restrict : {a}\n    %rhs = bufferization.to_tensor %p1 restrict : {b}\n    %zero = arith.constant 0.0 : {acc}\n    %e = tensor.empty() : {tacc}\n    %f = linalg.fill ins(%zero : {acc}) outs(%e : {tacc}) -> {tacc}\n    %m = linalg.matmul ins(%lhs, %rhs : {ta}, {tb}) outs(%f : {tacc}) -> {tacc}\n"
    );
    let result = if acc == element {
        "%m".to_string()
    } else {
        let _ = writeln!(
            body,
            "    %d = bufferization.to_tensor %p2 restrict writable : {out}\n    %r = {}",
            narrowing("%m", "%d", &[rows, n], acc, element)
        );
        "%r".to_string()
    };
    let _ = writeln!(
        body,
        "    bufferization.materialize_in_destination {result} in restrict writable %p2 : ({tout}, {out}) -> ()"
    );
    let text = format!(
        "  func.func @{}(%p0: {a}{}, %p1: {b}{}, %p2: {out}{}, %rank: index) {{\n{body}    return\n  }}\n",
        chunk.name,
        noalias(0),
        noalias(1),
        noalias(2)
    );
    KernelText {
        name: chunk.name.clone(),
        text,
        buffers: 3,
        computes: vec![format!("{} (rows {}..)", ops::MATMUL, rows)],
    }
}
