//! Element-wise ops: a run of `arith`/`math` ops on coco tensors of one
//! shape, `coco.cast` among them, becomes one `linalg.generic` whose body
//! re-emits each op on scalars (`arith.extf`/`arith.truncf`/... for casts,
//! `arith.select` and comparisons like any other op). Splat constants and
//! `tensor.splat` operands become scalars in the body or `() -> ()` inputs,
//! so they never take a buffer.
//!
//! ```text
//! %r = linalg.generic {indexing_maps = [#id, #id, affine_map<(d0) -> ()>, #id],
//!                      iterator_types = ["parallel"]}
//!     ins(%a, %b, %lr : tensor<32xf32>, tensor<32xf32>, tensor<f32>) outs(%d : tensor<32xf32>) {
//!   ^bb0(%bx0: f32, %bx1: f32, %bx2: f32, %by0: f32):
//!     %bv1 = "arith.addf"(%bx0, %bx1) ...
//!     %bv2 = arith.constant 2.0 : f32
//!     ...
//! }
//! ```

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use coco_bundle::DType;
use coco_dialects::{
    coco::ops,
    ir::{as_op, defining_op, location_text, op_name},
    lifetime,
};
use melior::ir::{
    operation::{OperationPrintingFlags, OperationRef},
    Operation, Value, ValueLike,
};

use super::{
    identity_map, map, math, parallel, splat_text,
    types::{convert, element, float_literal, tensor_type},
    Emitter, Target, Tensor,
};
use crate::{
    error::{Error, Result},
    ir::{is_scalar_arithmetic, is_scalar_read, key, operand, results_of, splat_source},
};

/// How a cluster's values map onto its one loop. The loop is
/// one-dimensional whatever the rank: memory is dense and row-major, so
/// collapsing is free, and one dimension tiles and maps to GPU threads
/// without idle lanes.
struct Flattening {
    /// The values' local shape.
    full: Vec<usize>,
    /// The loop's shape: `full` collapsed to one dimension.
    shape: Vec<usize>,
    /// Whether values need reshaping between `full` and `shape`.
    flat: bool,
    /// The reassociation between the two (`[]` for 0-d values, which
    /// become one-element vectors).
    dims: String,
}

impl Flattening {
    fn new(full: Vec<usize>) -> Flattening {
        let flat = full.len() != 1;
        let shape = if flat {
            vec![full.iter().product::<usize>()]
        } else {
            full.clone()
        };
        let dims = if full.is_empty() {
            "[]".to_string()
        } else {
            format!(
                "[[{}]]",
                (0..full.len())
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Flattening {
            full,
            shape,
            flat,
            dims,
        }
    }

    fn rank(&self) -> usize {
        self.shape.len()
    }
}

/// The `linalg.generic` of a cluster, gathered operand by operand.
#[derive(Default)]
struct Generic {
    /// `ins`: (name, type).
    ins: Vec<(String, String)>,
    /// `outs`: (name, type).
    outs: Vec<(String, String)>,
    /// One indexing map per input, then per output.
    maps: Vec<String>,
    block_args: Vec<String>,
    /// The scalar body, ending before `linalg.yield`.
    body: String,
    /// What the body yields, and the types.
    yields: Vec<String>,
    yield_types: Vec<String>,
}

impl Generic {
    fn text(&self, results: &str, rank: usize) -> String {
        let names =
            |v: &[(String, String)]| v.iter().map(|h| h.0.clone()).collect::<Vec<_>>().join(", ");
        let types =
            |v: &[(String, String)]| v.iter().map(|h| h.1.clone()).collect::<Vec<_>>().join(", ");
        let mut text = format!(
            "{results}{} = linalg.generic {{indexing_maps = [{}], iterator_types = {}}}",
            if self.outs.len() > 1 {
                format!(":{}", self.outs.len())
            } else {
                String::new()
            },
            self.maps.join(", "),
            parallel(rank)
        );
        if !self.ins.is_empty() {
            let _ = write!(text, " ins({} : {})", names(&self.ins), types(&self.ins));
        }
        let out_types = types(&self.outs);
        let _ = write!(
            text,
            " outs({} : {out_types}) {{\n    ^bb0({}):\n{}      linalg.yield {} : {}\n    }} -> {}",
            names(&self.outs),
            self.block_args.join(", "),
            self.body,
            self.yields.join(", "),
            self.yield_types.join(", "),
            if self.outs.len() > 1 {
                format!("({out_types})")
            } else {
                out_types.clone()
            }
        );
        text
    }
}

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    /// A fused element-wise cluster: `ops` all produce tensors of one
    /// shape; `live_out` are the values read after the cluster.
    pub(super) fn cluster(
        &mut self,
        ops: &[OperationRef<'c, 'a>],
        live_out: &HashSet<usize>,
    ) -> Result<()> {
        let first = as_op(&ops[0]);
        let location = location_text(first.location());
        let result: Value = first
            .result(0)
            .map_err(|e| Error::unsupported(&location, e.to_string()))?
            .into();
        let (_, shape) = self.local(result, &location)?;
        let produced = results_of(ops);

        // Inputs: tensors of the cluster's shape and scalars (0-d).
        let mut inputs: Vec<(usize, Tensor)> = Vec::new();
        for op in ops {
            for i in 0..as_op(op).operand_count() {
                if let Some(v) = operand(as_op(op), i) {
                    self.collect_cluster_input(v, &produced, &location, &mut inputs)?;
                }
            }
        }
        let outputs: Vec<Value<'c, 'a>> = ops
            .iter()
            .flat_map(|op| as_op(op).results().map(Value::from).collect::<Vec<_>>())
            .filter(|v| live_out.contains(&key(*v)))
            .map(lifetime::value)
            .collect();
        // Nothing reads it (squares a reduction computes itself).
        if outputs.is_empty() {
            return Ok(());
        }

        let flat = Flattening::new(shape);
        let mut generic = Generic::default();
        let mut scalars = self.cluster_ins(&inputs, &flat, &mut generic);
        self.cluster_folds(&mut scalars, &mut generic, &location)?;
        self.cluster_outs(&outputs, &flat, &location, &mut generic)?;
        let to_peers = self.cluster_peer_outs(&outputs, &flat, &location, &mut generic)?;
        self.cluster_body(ops, &mut scalars, &mut generic)?;
        generic.yields = outputs
            .iter()
            .chain(to_peers.iter().map(|(v, _, _)| v))
            .map(|v| scalars[&key(*v)].clone())
            .collect();
        generic.yield_types = outputs
            .iter()
            .chain(to_peers.iter().map(|(v, _, _)| v))
            .map(|v| Ok(element(v.r#type(), &location)?.to_string()))
            .collect::<Result<_>>()?;

        let results = self.fresh("r");
        self.line(&generic.text(&results, flat.rank()));
        let several = generic.outs.len() > 1;
        self.cluster_results(&outputs, &results, several, &flat, &location)?;
        // The peers' copies: the loop wrote them; this names where.
        for (i, (v, param, memref)) in to_peers.iter().enumerate() {
            let (element, _) = self.local(*v, &location)?;
            let result = format!("{results}#{}", outputs.len() + i);
            let full = self.unflatten(result, &flat, element);
            self.line(&format!(
                "bufferization.materialize_in_destination {full} in restrict writable {param} : ({}, {memref}) -> ()",
                tensor_type(&flat.full, element)
            ));
        }
        Ok(())
    }

    /// The rank-order folds of peer parts the cluster reads, at the top of
    /// its body (`kernel::peers`).
    fn cluster_folds(
        &mut self,
        scalars: &mut HashMap<usize, String>,
        generic: &mut Generic,
        location: &str,
    ) -> Result<()> {
        for (value, keys) in std::mem::take(&mut self.cluster_folds) {
            let names: Vec<String> = keys.iter().map(|k| scalars[k].clone()).collect();
            let sum = &self.peer_sums[&value];
            let (reduction, element) = (sum.reduction, sum.parts[0].element);
            let prefix = format!("{}_", self.fresh("pf"));
            let (lines, name) = super::peers::fold_lines(reduction, &names, element, &prefix)
                .map_err(|message| Error::unsupported(location, message))?;
            generic.body.push_str(&lines);
            scalars.insert(value, name);
        }
        Ok(())
    }

    /// One more `outs` operand per peer an output is also written to
    /// (yielding the same scalar); returns (value, parameter, memref type)
    /// for each, in `outs` order.
    fn cluster_peer_outs(
        &mut self,
        outputs: &[Value<'c, 'a>],
        flat: &Flattening,
        location: &str,
        generic: &mut Generic,
    ) -> Result<Vec<(Value<'c, 'a>, String, String)>> {
        let mut to_peers = Vec::new();
        for v in outputs {
            let Some(destinations) = self.peer_destinations.remove(&key(*v)) else {
                continue;
            };
            let (element, _) = self.local(*v, location)?;
            for (param, memref) in destinations {
                let d = self.destination(&param, &memref, flat, element);
                generic.outs.push((d, tensor_type(&flat.shape, element)));
                generic.maps.push(identity_map(flat.rank()));
                generic
                    .block_args
                    .push(format!("%bz{}: {element}", to_peers.len()));
                to_peers.push((*v, param, memref));
            }
        }
        Ok(to_peers)
    }

    /// Buffer `param` as a tensor to compute into, in the loop's shape.
    fn destination(
        &mut self,
        param: &str,
        memref: &str,
        flat: &Flattening,
        element: DType,
    ) -> String {
        let d = self.fresh("d");
        self.line(&format!(
            "{d} = bufferization.to_tensor {param} restrict writable : {memref}"
        ));
        if !flat.flat {
            return d;
        }
        let c = self.fresh("x");
        let reshape = if flat.full.is_empty() {
            format!("tensor.expand_shape {d} [] output_shape [1]")
        } else {
            format!("tensor.collapse_shape {d} {}", flat.dims)
        };
        self.line(&format!(
            "{c} = {reshape} : {} into {}",
            tensor_type(&flat.full, element),
            tensor_type(&flat.shape, element)
        ));
        c
    }

    /// A loop result `name` back in the values' shape.
    fn unflatten(&mut self, name: String, flat: &Flattening, element: DType) -> String {
        if !flat.flat {
            return name;
        }
        let expanded = self.fresh("x");
        let reshape = if flat.full.is_empty() {
            format!("tensor.collapse_shape {name} []")
        } else {
            format!(
                "tensor.expand_shape {name} {} output_shape [{}]",
                flat.dims,
                flat.full
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        self.line(&format!(
            "{expanded} = {reshape} : {} into {}",
            tensor_type(&flat.shape, element),
            tensor_type(&flat.full, element)
        ));
        expanded
    }

    /// Adds the inputs to `generic`, collapsed to the loop's shape, and
    /// returns the block argument that stands for each.
    fn cluster_ins(
        &mut self,
        inputs: &[(usize, Tensor)],
        flat: &Flattening,
        generic: &mut Generic,
    ) -> HashMap<usize, String> {
        let rank = flat.rank();
        let mut scalars = HashMap::new();
        for (i, (k, t)) in inputs.iter().enumerate() {
            generic.maps.push(if t.shape.is_empty() {
                map(rank, &[])
            } else {
                identity_map(rank)
            });
            if flat.flat && !t.shape.is_empty() {
                let collapsed = self.fresh("x");
                self.line(&format!(
                    "{collapsed} = tensor.collapse_shape {} {} : {} into {}",
                    t.name,
                    flat.dims,
                    t.ty(),
                    tensor_type(&flat.shape, t.element)
                ));
                generic
                    .ins
                    .push((collapsed, tensor_type(&flat.shape, t.element)));
            } else {
                generic.ins.push((t.name.clone(), t.ty()));
            }
            generic.block_args.push(format!("%bx{i}: {}", t.element));
            scalars.insert(*k, format!("%bx{i}"));
        }
        scalars
    }

    /// Adds an `outs` operand per cluster output. A kernel output is
    /// computed in its buffer: with flattening, the reshapes around an
    /// empty tensor would defeat empty-tensor elimination and cost a copy.
    fn cluster_outs(
        &mut self,
        outputs: &[Value<'c, 'a>],
        flat: &Flattening,
        location: &str,
        generic: &mut Generic,
    ) -> Result<()> {
        for (i, v) in outputs.iter().enumerate() {
            let (element, _) = self.local(*v, location)?;
            let e = match self.destinations.remove(&key(*v)) {
                Some((param, memref)) => self.destination(&param, &memref, flat, element),
                None => self.empty(&flat.shape, element),
            };
            generic.outs.push((e, tensor_type(&flat.shape, element)));
            generic.maps.push(identity_map(flat.rank()));
            generic.block_args.push(format!("%by{i}: {element}"));
        }
        Ok(())
    }

    /// Each op of the cluster on scalars, into `generic.body`; `scalars`
    /// gains the scalar name of every value defined.
    fn cluster_body(
        &mut self,
        ops: &[OperationRef<'c, 'a>],
        scalars: &mut HashMap<usize, String>,
        generic: &mut Generic,
    ) -> Result<()> {
        let body = &mut generic.body;
        let mut counter = 0;
        for op in ops {
            let op = as_op(op);
            let loc = location_text(op.location());
            let mut operand_names = Vec::new();
            let mut operand_types: Vec<DType> = Vec::new();
            for i in 0..op.operand_count() {
                let Some(v) = operand(op, i) else { continue };
                operand_names.push(self.scalar_in_body(v, scalars, body, &mut counter, &loc)?);
                operand_types.push(element(v.r#type(), &loc)?);
            }
            let result: Value = op
                .result(0)
                .map_err(|e| Error::unsupported(&loc, e.to_string()))?
                .into();
            let result_type = element(result.r#type(), &loc)?;
            counter += 1;
            let (lines, name) = scalar_op_text(
                self.target,
                op,
                &format!("%bv{counter}"),
                &operand_names,
                &operand_types,
                result_type,
                &loc,
            )?;
            body.push_str(&lines);
            scalars.insert(key(result), name);
        }
        Ok(())
    }

    /// Records each cluster output, expanded back from the loop's shape.
    fn cluster_results(
        &mut self,
        outputs: &[Value<'c, 'a>],
        results: &str,
        several: bool,
        flat: &Flattening,
        location: &str,
    ) -> Result<()> {
        for (i, v) in outputs.iter().enumerate() {
            let (element, _) = self.local(*v, location)?;
            let name = if several {
                format!("{results}#{i}")
            } else {
                results.to_string()
            };
            let name = self.unflatten(name, flat, element);
            self.set(
                *v,
                Tensor {
                    name,
                    element,
                    shape: flat.full.clone(),
                },
            );
        }
        Ok(())
    }

    /// Collects what a cluster operand needs from outside the cluster.
    fn collect_cluster_input(
        &mut self,
        operand: Value<'c, 'a>,
        produced: &HashSet<usize>,
        location: &str,
        inputs: &mut Vec<(usize, Tensor)>,
    ) -> Result<()> {
        let value = self.values.resolve(operand);
        let folded = self.cluster_folds.iter().any(|(k, _)| *k == key(value));
        if produced.contains(&key(value)) || folded || inputs.iter().any(|(k, _)| *k == key(value))
        {
            return Ok(());
        }
        // Folded from the peers' parts in the body: each part is an input.
        if !self.tensors.contains_key(&key(value)) {
            if let Some(sum) = self.peer_sums.get(&key(value)) {
                let parts = sum.parts.clone();
                let mut keys = Vec::new();
                for part in parts {
                    // Keys above every address, so never a value's.
                    self.counter += 1;
                    let k = (1usize << 63) | self.counter;
                    inputs.push((k, part));
                    keys.push(k);
                }
                self.cluster_folds.push((key(value), keys));
                return Ok(());
            }
        }
        // A free value the kernel is given (stored for a collective) is read.
        let given = self.tensors.contains_key(&key(value));
        if let Some(def) = defining_op(value).filter(|_| !given) {
            let def_op = as_op(&def);
            match op_name(def_op).as_str() {
                // A splat is a scalar in the body; other constants are inputs.
                "arith.constant" if super::splat_text(def_op).is_some() => return Ok(()),
                "tensor.splat" => {
                    let source = crate::ir::operand(def_op, 0).ok_or_else(|| {
                        Error::unsupported(location, "tensor.splat without operand")
                    })?;
                    return self.collect_cluster_input(source, produced, location, inputs);
                }
                // Every element is one value: the body reads that value.
                _ if splat_source(def_op).is_some() => {
                    let source = splat_source(def_op).expect("checked");
                    return self.collect_cluster_input(source, produced, location, inputs);
                }
                // Read in the body from the 0-d tensor it comes from.
                _ if is_scalar_read(def_op) => {
                    let source = crate::ir::operand(def_op, 0).ok_or_else(|| {
                        Error::unsupported(location, "tensor.extract without operand")
                    })?;
                    return self.collect_cluster_input(source, produced, location, inputs);
                }
                // Recomputed in the body from its own scalar inputs.
                _ if is_scalar_arithmetic(def_op) => {
                    for i in 0..def_op.operand_count() {
                        if let Some(v) = crate::ir::operand(def_op, i) {
                            self.collect_cluster_input(v, produced, location, inputs)?;
                        }
                    }
                    return Ok(());
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
                let source = crate::ir::operand(def_op, 0)
                    .ok_or_else(|| Error::unsupported(location, "tensor.splat without operand"))?;
                self.scalar_in_body(source, scalars, body, counter, location)?
            }
            _ if splat_source(def_op).is_some() => {
                let source = splat_source(def_op).expect("checked");
                self.scalar_in_body(source, scalars, body, counter, location)?
            }
            _ if is_scalar_read(def_op) => {
                let source = crate::ir::operand(def_op, 0).ok_or_else(|| {
                    Error::unsupported(location, "tensor.extract without operand")
                })?;
                self.scalar_in_body(source, scalars, body, counter, location)?
            }
            _ if is_scalar_arithmetic(def_op) => {
                let loc = location_text(def_op.location());
                let mut names = Vec::new();
                let mut types = Vec::new();
                for i in 0..def_op.operand_count() {
                    let Some(v) = crate::ir::operand(def_op, i) else {
                        continue;
                    };
                    names.push(self.scalar_in_body(v, scalars, body, counter, &loc)?);
                    types.push(element(v.r#type(), &loc)?);
                }
                *counter += 1;
                let (lines, name) = scalar_op_text(
                    self.target,
                    def_op,
                    &format!("%bv{counter}"),
                    &names,
                    &types,
                    element(value.r#type(), &loc)?,
                    &loc,
                )?;
                body.push_str(&lines);
                name
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
}

/// The scalar lines of one element-wise `op` (in a `linalg.generic` body,
/// or on builtin scalars in a kernel's body), defining `name` from
/// `operands`; returns the lines and the name that holds the result.
pub(super) fn scalar_op_text(
    target: Target,
    op: &Operation,
    name: &str,
    operands: &[String],
    operand_types: &[DType],
    result_type: DType,
    loc: &str,
) -> Result<(String, String)> {
    // f64 to bf16 takes several ops ([`convert`]), whoever asks.
    let truncf = op_name(op) == "arith.truncf" && result_type == DType::BF16;
    if op_name(op) == ops::CAST || truncf {
        // A cast to the same type is its operand.
        return Ok(convert(operand_types[0], result_type, &operands[0], name));
    }
    if let Some(lines) = math::vectorised(target, &op_name(op), &operands[0], result_type, name) {
        return Ok((lines, name.to_string()));
    }
    let guarded = match op_name(op).as_str() {
        "arith.fptosi" => {
            saturating_fptosi(name, &operands[0], operand_types[0], result_type, loc).map(Some)?
        }
        other => total_division(other, name, operands, result_type, loc)?,
    };
    let lines = guarded.unwrap_or_else(|| {
        format!(
            "      {name} = \"{}\"({}) {} : ({}) -> {result_type}\n",
            op_name(op),
            operands.join(", "),
            generic_attributes(op),
            operand_types
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    Ok((lines, name.to_string()))
}

/// Integer division and remainder made total, as the reference interpreter
/// defines them (`coco_interp::integer`): `x / 0 = 0`, `x % 0 = x`,
/// `MIN / -1 = MIN`, `MIN % -1 = 0`. LLVM's `sdiv`/`udiv` are undefined
/// there and x86 traps (SIGFPE), so the divisor becomes 1 where it would
/// fault and a select picks the defined result; PTX does not trap but gives
/// other values, so it is guarded the same way. `None` for other ops.
fn total_division(
    op: &str,
    name: &str,
    operands: &[String],
    ty: DType,
    location: &str,
) -> Result<Option<String>> {
    let signed = match op {
        "arith.divsi" | "arith.remsi" => true,
        "arith.divui" | "arith.remui" => false,
        "arith.ceildivsi" | "arith.ceildivui" | "arith.floordivsi" => {
            return Err(Error::unsupported(
                location,
                format!("'{op}' is not compiled yet (arith.divsi and arith.divui are)"),
            ))
        }
        _ => return Ok(None),
    };
    let remainder = op.starts_with("arith.rem");
    let (a, b) = (&operands[0], &operands[1]);
    let mut text = String::new();
    if ty == DType::I1 {
        // A nonzero i1 divisor is 1 (unsigned) or -1 (signed): the
        // quotient is `a`, the remainder 0; so `a & b` and `a & !b`.
        let divisor = if remainder {
            let _ = writeln!(text, "      {name}_t = arith.constant true");
            let _ = writeln!(text, "      {name}_nb = arith.xori {b}, {name}_t : i1");
            format!("{name}_nb")
        } else {
            b.clone()
        };
        let _ = writeln!(text, "      {name} = arith.andi {a}, {divisor} : i1");
        return Ok(Some(text));
    }
    let _ = writeln!(text, "      {name}_0 = arith.constant 0 : {ty}");
    let _ = writeln!(text, "      {name}_1 = arith.constant 1 : {ty}");
    let _ = writeln!(text, "      {name}_z = arith.cmpi eq, {b}, {name}_0 : {ty}");
    let bad = if signed {
        let min = if ty == DType::I64 {
            i64::MIN.to_string()
        } else {
            i32::MIN.to_string()
        };
        let _ = writeln!(text, "      {name}_min = arith.constant {min} : {ty}");
        let _ = writeln!(text, "      {name}_m1 = arith.constant -1 : {ty}");
        let _ = writeln!(
            text,
            "      {name}_am = arith.cmpi eq, {a}, {name}_min : {ty}"
        );
        let _ = writeln!(
            text,
            "      {name}_bm = arith.cmpi eq, {b}, {name}_m1 : {ty}"
        );
        let _ = writeln!(
            text,
            "      {name}_ov = arith.andi {name}_am, {name}_bm : i1"
        );
        let _ = writeln!(
            text,
            "      {name}_bad = arith.ori {name}_z, {name}_ov : i1"
        );
        format!("{name}_bad")
    } else {
        format!("{name}_z")
    };
    let _ = writeln!(
        text,
        "      {name}_d = arith.select {bad}, {name}_1, {b} : {ty}"
    );
    let _ = writeln!(text, "      {name}_q = {op} {a}, {name}_d : {ty}");
    let by_zero = if remainder {
        a.clone()
    } else {
        format!("{name}_0")
    };
    let _ = writeln!(
        text,
        "      {name} = arith.select {name}_z, {by_zero}, {name}_q : {ty}"
    );
    Ok(Some(text))
}

/// `arith.fptosi` saturating, as the interpreter converts (and Rust's
/// `as`): NaN is 0, values beyond the integer range its MIN or MAX. LLVM's
/// `fptosi` gives poison there (x86 returns MIN for both ends, PTX
/// saturates), so the out-of-range inputs are replaced by 0 before the
/// conversion and their results selected after. 16-bit floats are widened
/// to f32 first (exactly), since 2^31 is no f16 literal.
fn saturating_fptosi(
    name: &str,
    x: &str,
    from: DType,
    to: DType,
    location: &str,
) -> Result<String> {
    let (min, max) = match to {
        DType::I64 => (i64::MIN, i64::MAX),
        DType::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        other => {
            return Err(Error::unsupported(
                location,
                format!("'arith.fptosi' to {other} is not compiled yet (i32 and i64 are)"),
            ))
        }
    };
    let mut text = String::new();
    let (float, x) = if from == DType::F16 || from == DType::BF16 {
        let _ = writeln!(text, "      {name}_w = arith.extf {x} : {from} to f32");
        (DType::F32, format!("{name}_w"))
    } else {
        (from, x.to_string())
    };
    let bound = float_literal(-(min as f64));
    let _ = writeln!(text, "      {name}_top = arith.constant {bound} : {float}");
    let _ = writeln!(
        text,
        "      {name}_bottom = arith.constant -{bound} : {float}"
    );
    let _ = writeln!(text, "      {name}_fzero = arith.constant 0.0 : {float}");
    let _ = writeln!(
        text,
        "      {name}_nan = arith.cmpf uno, {x}, {x} : {float}"
    );
    let _ = writeln!(
        text,
        "      {name}_hi = arith.cmpf oge, {x}, {name}_top : {float}"
    );
    let _ = writeln!(
        text,
        "      {name}_lo = arith.cmpf olt, {x}, {name}_bottom : {float}"
    );
    let _ = writeln!(
        text,
        "      {name}_out = arith.ori {name}_hi, {name}_lo : i1"
    );
    let _ = writeln!(
        text,
        "      {name}_bad = arith.ori {name}_out, {name}_nan : i1"
    );
    let _ = writeln!(
        text,
        "      {name}_safe = arith.select {name}_bad, {name}_fzero, {x} : {float}"
    );
    let _ = writeln!(
        text,
        "      {name}_i = arith.fptosi {name}_safe : {float} to {to}"
    );
    let _ = writeln!(text, "      {name}_max = arith.constant {max} : {to}");
    let _ = writeln!(text, "      {name}_min = arith.constant {min} : {to}");
    let _ = writeln!(text, "      {name}_zero = arith.constant 0 : {to}");
    let _ = writeln!(
        text,
        "      {name}_h = arith.select {name}_hi, {name}_max, {name}_i : {to}"
    );
    let _ = writeln!(
        text,
        "      {name}_l = arith.select {name}_lo, {name}_min, {name}_h : {to}"
    );
    let _ = writeln!(
        text,
        "      {name} = arith.select {name}_nan, {name}_zero, {name}_l : {to}"
    );
    Ok(text)
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
