//! `coco-partial-reduce`: compute norms and reductions of a replicated
//! tensor from per-slice partial results and one scalar all_reduce
//! (CoCoNet's fused LAMB: the trust ratio's norms need no all_gather).
//!
//! After `coco-split` and `coco-reorder`, a norm of the updated tensor reads
//! `all_gather(s)`: every rank gathers all `N` elements only to reduce them
//! to one number. The pass rewrites, for a replicated operand `x` whose
//! slice `s` is available (`x = all_gather(s)`, or the block already slices
//! `x`, so reading a slice adds no divisibility requirement):
//!
//! | before | after |
//! |---|---|
//! | `coco.norm x` | `math.sqrt(all_reduce sum(reduce_elements sum(s * s)))` |
//! | `coco.reduce_elements k x`, `k` in sum, prod, min, max | `all_reduce k(reduce_elements k s)` |
//! | `coco.reduce_elements avg x` (floats) | `all_reduce sum(reduce_elements sum s) / numel(x)` |
//! | `coco.reduce_elements k x {dims}`, `s`'s sliced dimension kept | `all_gather(reduce_elements k s {dims})` |
//! | `coco.reduce_elements k x {dims}`, `s`'s sliced dimension reduced | as the rows above, per result element |
//!
//! The all_gather disappears when nothing else reads it. Reductions along
//! `dims` are Adafactor's row and column means: with the gradient's
//! squares sliced by rows, each rank computes its rows' means (gathered:
//! `R` values instead of `R x C`) and partial column sums (all_reduced: `C`
//! values).
//!
//! **Summation order**: each rank reduces its slice (in the blocked order
//! of `coco_dialects::coco::summation`, or in index order along `dims`), then
//! the all_reduce combines the `P` partial results (in rank order under
//! `--exact-reductions`). Min, max and integer sums and products (which
//! wrap) are associative, so their results are bitwise those of the
//! original. A float sum or product is reassociated: for the sum of `n`
//! squares of a norm, both orders are within `(n - 1) u` relative of the
//! exact value (`u` the unit roundoff; Higham, Accuracy and Stability,
//! §4.2), so they differ by at most twice that; in practice, by a few ulps
//! (the differential suite accepts `1e-5` relative on f32). A run of the
//! transformed program is still bitwise reproducible: the interpreter
//! computes the same order, and `coco-run --check --exact-reductions`
//! compares bitwise against it.
//!
//! On a `coco.mesh`, a whole-tensor norm or reduction of `all_gather(s)`
//! over one axis becomes the slice's partial result and an all_reduce over
//! that axis (the rule axis by axis: the partial result is local along
//! every axis `s` is sliced on, and the all_reduce makes the gathered axis
//! replicated again); reductions along `dims` there are left alone, with a
//! remark.
//!
//! **Preconditions**: f32 or f64 elements for norms, float sums, products
//! and averages (16-bit types accumulate in f32 in `coco.norm`, which a
//! 16-bit partial result could not reproduce); any element type for min
//! and max, integer sum and product. Otherwise, or when no slice of the
//! operand is available, a remark says why and nothing changes.
//!
//! **Guarantees**: min, max and integer reductions, and reductions along
//! `dims` that keep the sliced dimension, are bitwise identical; float
//! sums, products and norms agree within the bound above.
//!
//! ```mlir
//! // before
//! %g = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
//! %n = coco.norm %g : tensor<1024xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
//! // after --coco-partial-reduce
//! %sq = arith.mulf %s, %s : tensor<1024xf32, #coco.sliced<0>>
//! %p = coco.reduce_elements sum %sq : tensor<1024xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
//! %t = coco.all_reduce sum %p : tensor<f32, #coco.local> -> tensor<f32, #coco.replicated>
//! %n = math.sqrt %t : tensor<f32, #coco.replicated>
//! ```

use std::collections::HashSet;

use coco_dialects::lifetime;
use coco_dialects::{
    coco::{ops, CocoBuilder, DistTensor, Layout, Mesh, OnAxis, Placement, Reduction},
    diagnostics::{emit_error, emit_remark},
    ir::{
        as_op, body_ops, defining_op, element_dtype, functions, i64_array_attr, int_attr, op_name,
        str_attr, DType,
    },
    rewrite::{erase, insert_before, replace_all_uses, users},
};
use melior::{
    ir::{
        attribute::{DenseElementsAttribute, FloatAttribute},
        operation::{OperationBuilder, OperationRef},
        Attribute, Identifier, Operation, Value, ValueLike,
    },
    pass::Pass,
    Context,
};

use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::Options,
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "coco-partial-reduce",
    summary: "Compute norms and reductions of replicated tensors from per-slice partial results and a scalar all_reduce",
    description: "On a `coco.mesh`, whole-tensor norms and reductions of an all_gather over one axis are computed from its slices and an all_reduce over that axis; other reductions there get a remark. For `coco.norm x` or `coco.reduce_elements x` where `x` is replicated and its slice is \
                  available (`x = coco.all_gather s`, or the block already has `coco.slice x`), each rank \
                  reduces its slice and one scalar `coco.all_reduce` combines the partial results; an \
                  all_gather left without users disappears. A reduction along `dims` (row and column means) \
                  that keeps the sliced dimension becomes the slice's reduction and an all_gather of the \
                  smaller result; one that reduces it, partial results and an all_reduce of the kept shape.\n\n\
                  **Preconditions**: f32/f64 elements for norms and float sum, prod and avg; any element \
                  type for min and max and integer sum and prod (any kind and type when the sliced dimension \
                  is kept). Otherwise a remark and no change.\n\n\
                  **Guarantees**: min, max and integer reductions, and those that keep the sliced dimension, \
                  are bitwise identical. Float sums are \
                  reassociated (each slice in the blocked order, then the partial results in rank order): \
                  for the `n` squares of a norm both orders are within `(n-1)u` relative of the exact sum. \
                  The differential suite accepts 1e-5 relative on f32.\n\n\
                  ```mlir\n\
                  %g = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>\n\
                  %n = coco.norm %g : tensor<1024xf32, #coco.replicated> -> tensor<f32, #coco.replicated>\n\
                  // becomes\n\
                  %sq = arith.mulf %s, %s : tensor<1024xf32, #coco.sliced<0>>\n\
                  %p = coco.reduce_elements sum %sq : tensor<1024xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>\n\
                  %t = coco.all_reduce sum %p : tensor<f32, #coco.local> -> tensor<f32, #coco.replicated>\n\
                  %n = math.sqrt %t : tensor<f32, #coco.replicated>\n\
                  ```",
    options: &[],
    create,
};

static PASS_ID: PassId = PassId;

fn create(_options: &Options) -> Result<Pass> {
    Ok(create_module_pass(
        &INFO,
        &PASS_ID,
        "CocoPartialReduce",
        PartialReducePass,
    ))
}

#[derive(Clone)]
struct PartialReducePass;

/// What one reduction becomes on slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// `sqrt(all_reduce sum(reduce_elements sum(s * s)))`.
    Norm,
    /// `all_reduce k(reduce_elements k s)`.
    Same(Reduction),
    /// `all_reduce sum(reduce_elements sum s) / numel`.
    Average,
}

/// The rewrite for a reduction named `name` of kind `kind` over `element`
/// values, or why there is none.
fn plan(name: &str, kind: Option<Reduction>, element: DType) -> std::result::Result<Plan, String> {
    let wide_float = matches!(element, DType::F32 | DType::F64);
    let integer = matches!(element, DType::I64 | DType::I32 | DType::I1);
    let needs_wide = |what: &str| {
        format!(
            "a {what} of {element} elements accumulates in f32, which per-slice {element} partial results \
             cannot reproduce (f32 and f64 only)"
        )
    };
    match (name, kind) {
        (ops::NORM, _) if wide_float => Ok(Plan::Norm),
        (ops::NORM, _) => Err(needs_wide("norm")),
        (_, Some(k @ (Reduction::Min | Reduction::Max))) => Ok(Plan::Same(k)),
        (_, Some(k @ (Reduction::Sum | Reduction::Prod))) if wide_float || integer => {
            Ok(Plan::Same(k))
        }
        (_, Some(Reduction::Sum | Reduction::Prod)) => Err(needs_wide("sum or product")),
        (_, Some(Reduction::Avg)) if wide_float => Ok(Plan::Average),
        (_, Some(Reduction::Avg)) => Err(format!(
            "an average of {element} elements rounds per slice (f32 and f64 only)"
        )),
        (_, None) => Err("has no reduction kind".into()),
    }
}

/// The dimension along which a slice of replicated `x` is available: the
/// all_gather's, or that of a `coco.slice` of `x` in the block.
fn slice_dim(x: Value) -> Option<i64> {
    if let Some(def) = defining_op(x) {
        if op_name(as_op(&def)) == ops::ALL_GATHER {
            let source = as_op(&def).operand(0).ok()?;
            return match DistTensor::from_type(source.r#type())?.layout {
                Some(Layout::Sliced(dim)) => Some(dim),
                _ => None,
            };
        }
    }
    existing_slice_dim(x)
}

/// The dimension of a `coco.slice` of `x` among its users.
fn existing_slice_dim(x: Value) -> Option<i64> {
    users(x).into_iter().find_map(|user| {
        // SAFETY: users are live ops of this function.
        let user = unsafe { OperationRef::from_raw(user) };
        let op = as_op(&user);
        (op_name(op) == ops::SLICE)
            .then(|| op.result(0).ok())
            .flatten()
            .and_then(|r| DistTensor::from_type(r.r#type()))
            .and_then(|t| match t.layout {
                Some(Layout::Sliced(dim)) => Some(dim),
                _ => None,
            })
    })
}

/// The slice of replicated `x` to reduce, built before `anchor` when it
/// is not already a value: the all_gather's input, or a new `coco.slice` of
/// `x` along the dimension the block already slices it (so the world sizes
/// the program runs on do not change).
fn slice_source<'c, 'a>(
    x: Value<'c, 'a>,
    anchor: OperationRef<'c, 'a>,
    builder: &CocoBuilder<'c>,
) -> coco_dialects::Result<Option<Value<'c, 'a>>> {
    if let Some(def) = defining_op(x) {
        if op_name(as_op(&def)) == ops::ALL_GATHER {
            return Ok(Some(lifetime::value(as_op(&def).operand(0)?)));
        }
    }
    let Some(dim) = existing_slice_dim(x) else {
        return Ok(None);
    };
    let slice = insert_before(anchor, builder.slice(x, dim)?)?;
    Ok(Some(lifetime::value(as_op(&slice).result(0)?)))
}

/// An all_gather over one axis of the program's mesh that produced the
/// reduced operand: the mesh, the axis, and the placement of its slices.
struct AxisGather {
    mesh: Mesh,
    axis: usize,
    name: String,
    part: Placement,
}

/// The all_gather over one mesh axis `x` comes from, if it does.
fn axis_gather(x: Value, mesh: &Mesh) -> Option<AxisGather> {
    let def = defining_op(x)?;
    let gather = as_op(&def);
    if op_name(gather) != ops::ALL_GATHER {
        return None;
    }
    let name = str_attr(gather, "axis")?;
    let axis = mesh.axis(&name)?;
    let part = DistTensor::from_type(gather.operand(0).ok()?.r#type())?
        .placement(mesh)
        .ok()?;
    part.0[axis].is_sliced().then_some(AxisGather {
        mesh: mesh.clone(),
        axis,
        name,
        part,
    })
}

impl PartialReducePass {
    /// Rewrites one reduction; `Ok(Err(reason))` when it does not apply.
    ///
    /// `combining` holds the ops earlier rewrites placed after their partial
    /// reductions (all_reduces, square roots, divisions). When they sit
    /// right before this reduction, its partial reduction goes before them
    /// and its all_reduce beside theirs, so the partial reductions of
    /// consecutive norms (LAMB's two) run in one kernel and the all_reduces
    /// back to back: `[p1, p2, AR1, AR2, sqrt1, sqrt2]`.
    fn rewrite<'c, 'a>(
        &self,
        op_ref: OperationRef<'c, 'a>,
        block: &[OperationRef<'c, 'a>],
        combining: &mut HashSet<usize>,
        mesh: Option<&Mesh>,
    ) -> coco_dialects::Result<std::result::Result<(), String>> {
        let op = as_op(&op_ref);
        let name = op_name(op);
        let x = lifetime::value(op.operand(0)?);
        let Some(tensor) = DistTensor::from_type(x.r#type()) else {
            return Ok(Err("its operand is not a coco tensor".into()));
        };
        let over_axis = mesh.and_then(|mesh| axis_gather(x, mesh));
        if mesh.is_some() && over_axis.is_none() {
            return Ok(Err(
                "on a mesh, only the reduction of an all_gather over one axis is computed from its slices".into(),
            ));
        }
        if over_axis.is_none() && tensor.layout != Some(Layout::Replicated) {
            return Ok(Err(format!(
                "its operand is {}, not #coco.replicated",
                coco_dialects::coco::layout::describe(tensor.layout)
            )));
        }
        let Some(element) = element_dtype(tensor.element) else {
            return Ok(Err(format!(
                "element type {} is not supported",
                tensor.element
            )));
        };
        // Reduced dimensions, when not all of them.
        let dims = i64_array_attr(op, "dims").filter(|d| d.len() < tensor.rank());
        let kind = int_attr(op, "kind").and_then(Reduction::from_value);
        let gathered_dim = over_axis
            .as_ref()
            .and_then(|over| match over.part.0[over.axis] {
                Layout::Sliced(d) => Some(d),
                _ => None,
            });
        let Some(sliced_dim) = gathered_dim.or_else(|| slice_dim(x)) else {
            return Ok(Err(
                "no slice of its operand is available (it is neither an all_gather's result nor sliced in this block)"
                    .into(),
            ));
        };
        let context = lifetime::context(op);
        let builder = CocoBuilder::new(context, op.location());
        let position = block
            .iter()
            .position(|o| o.to_raw().ptr == op_ref.to_raw().ptr)
            .unwrap_or(0);
        let run_start = block[..position]
            .iter()
            .rposition(|o| !combining.contains(&(o.to_raw().ptr as usize)))
            .map_or(0, |i| i + 1);
        let partial_at = block.get(run_start).copied().unwrap_or(op_ref);
        let combine_at = block[run_start..position]
            .iter()
            .find(|o| op_name(as_op(o)) != ops::ALL_REDUCE)
            .copied()
            .unwrap_or(op_ref);
        let gather = defining_op(x).filter(|d| op_name(as_op(d)) == ops::ALL_GATHER);
        if over_axis.is_some() && dims.is_some() {
            return Ok(Err(
                "reductions along `dims` of an all_gather over a mesh axis are not rewritten yet"
                    .into(),
            ));
        }
        if let (Some(dims), Some(kind)) = (&dims, kind) {
            if !dims.contains(&sliced_dim) {
                // Row means of a tensor sliced by rows: each rank reduces its
                // own rows, each result element the same elements in the
                // same order, and an all_gather of the (smaller) result
                // replaces the operand's. Bitwise the original, for every
                // kind and element type.
                let Some(slice) = slice_source(x, partial_at, &builder)? else {
                    return Ok(Err("its slice could not be built".into()));
                };
                let partial = insert_before(
                    partial_at,
                    builder.reduce_elements_along(kind, slice, dims)?,
                )?;
                let partial = lifetime::value(as_op(&partial).result(0)?);
                let gathered = insert_before(op_ref, builder.all_gather(partial)?)?;
                combining.insert(gathered.to_raw().ptr as usize);
                let result = lifetime::value(as_op(&gathered).result(0)?);
                return finish(op_ref, result, gather).map(Ok);
            }
        }
        let plan = match plan(&name, kind, element) {
            Ok(plan) => plan,
            Err(reason) => return Ok(Err(reason)),
        };
        let Some(slice) = slice_source(x, partial_at, &builder)? else {
            return Ok(Err("its slice could not be built".into()));
        };

        let mut created: Vec<usize> = Vec::new();
        let mut insert = |at: OperationRef<'c, 'a>,
                          built: Operation<'c>,
                          combines: bool|
         -> coco_dialects::Result<Value<'c, 'a>> {
            let inserted = insert_before(at, built)?;
            if combines {
                created.push(inserted.to_raw().ptr as usize);
            }
            Ok(lifetime::value(as_op(&inserted).result(0)?))
        };
        let (local_kind, reduced) = match plan {
            Plan::Norm => {
                let squares = insert(
                    partial_at,
                    builder.elementwise("arith.mulf", &[slice, slice])?,
                    false,
                )?;
                (Reduction::Sum, squares)
            }
            Plan::Same(kind) => (kind, slice),
            Plan::Average => (Reduction::Sum, slice),
        };
        let total = match &over_axis {
            // On a mesh, the rule axis by axis: sliced axes give partial
            // results (the gathered axis among them), and the all_reduce
            // over the gathered axis makes it replicated again.
            Some(over) => {
                let partials = Placement(
                    over.part
                        .0
                        .iter()
                        .map(|l| if l.is_sliced() { Layout::Local } else { *l })
                        .collect(),
                );
                let mut totals = partials.clone();
                totals.0[over.axis] = Layout::Replicated;
                let on = |placement| OnAxis {
                    axis: &over.name,
                    mesh: &over.mesh,
                    placement,
                };
                let partial = insert(
                    partial_at,
                    builder.reduce_elements_placed(local_kind, reduced, on(&partials))?,
                    false,
                )?;
                builder.over_axis(
                    ops::ALL_REDUCE,
                    partial,
                    on(&totals),
                    Some(local_kind),
                    None,
                )?
            }
            None => {
                let partial = insert(
                    partial_at,
                    match &dims {
                        Some(dims) => builder.reduce_elements_along(local_kind, reduced, dims)?,
                        None => builder.reduce_elements(local_kind, reduced)?,
                    },
                    false,
                )?;
                builder.all_reduce(local_kind, partial)?
            }
        };
        let total = insert(combine_at, total, true)?;
        let mut add = |built: Operation<'c>| insert(op_ref, built, true);
        let result = match plan {
            Plan::Norm => add(builder.elementwise("math.sqrt", &[total])?)?,
            Plan::Same(_) => total,
            Plan::Average => {
                // The elements each result element averages.
                let count: i64 = tensor.static_shape().map_or(1, |shape| {
                    (0..shape.len())
                        .filter(|d| dims.as_ref().is_none_or(|dims| dims.contains(&(*d as i64))))
                        .map(|d| shape[d])
                        .product()
                });
                let ty = total.r#type();
                let scalar = FloatAttribute::new(context, tensor.element, count as f64);
                let dense = DenseElementsAttribute::new(ty, &[scalar.into()]).map_err(|e| {
                    coco_dialects::Error::Build {
                        op: "arith.constant".into(),
                        message: e.to_string(),
                    }
                })?;
                let value: Attribute = dense.into();
                let constant = OperationBuilder::new("arith.constant", op.location())
                    .add_attributes(&[(Identifier::new(context, "value"), value)])
                    .add_results(&[ty])
                    .build()
                    .map_err(|e| coco_dialects::Error::Build {
                        op: "arith.constant".into(),
                        message: e.to_string(),
                    })?;
                let count = add(constant)?;
                add(builder.elementwise("arith.divf", &[total, count])?)?
            }
        };
        combining.extend(created);
        finish(op_ref, result, gather).map(Ok)
    }
}

/// The reduction `op_ref` replaced by `result`, and the all_gather it read
/// erased when nothing else reads it.
fn finish<'c, 'a>(
    op_ref: OperationRef<'c, 'a>,
    result: Value<'c, 'a>,
    gather: Option<OperationRef<'c, 'a>>,
) -> coco_dialects::Result<()> {
    replace_all_uses(as_op(&op_ref).result(0)?.into(), result);
    erase(op_ref)?;
    if let Some(gather) = gather {
        if users(as_op(&gather).result(0)?.into()).is_empty() {
            erase(gather)?;
        }
    }
    Ok(())
}

impl ModulePass for PartialReducePass {
    fn run<'c>(&mut self, _context: &'c Context, module: &Operation<'c>) -> bool {
        let mesh = Mesh::declared(module).map(|d| d.mesh);
        for func in functions(module) {
            let reductions: Vec<OperationRef> = body_ops(as_op(&func))
                .into_iter()
                .filter(|o| matches!(op_name(as_op(o)).as_str(), ops::NORM | ops::REDUCE_ELEMENTS))
                .collect();
            let mut combining = HashSet::new();
            for op_ref in reductions {
                let location = as_op(&op_ref).location();
                let name = op_name(as_op(&op_ref));
                let block = body_ops(as_op(&func));
                match self.rewrite(op_ref, &block, &mut combining, mesh.as_ref()) {
                    Ok(Ok(())) => {}
                    Ok(Err(reason)) => emit_remark(
                        location,
                        &format!("coco-partial-reduce: not applied to {name}: {reason}"),
                    ),
                    Err(e) => {
                        emit_error(
                            location,
                            &format!("coco-partial-reduce: internal error: {e}"),
                        );
                        return false;
                    }
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_reductions_keep_any_element_type_and_float_sums_need_a_wide_one() {
        assert_eq!(
            plan(ops::REDUCE_ELEMENTS, Some(Reduction::Max), DType::F16),
            Ok(Plan::Same(Reduction::Max))
        );
        assert_eq!(
            plan(ops::REDUCE_ELEMENTS, Some(Reduction::Sum), DType::I32),
            Ok(Plan::Same(Reduction::Sum))
        );
        assert_eq!(
            plan(ops::REDUCE_ELEMENTS, Some(Reduction::Avg), DType::F64),
            Ok(Plan::Average)
        );
        assert_eq!(plan(ops::NORM, None, DType::F32), Ok(Plan::Norm));
        assert!(plan(ops::NORM, None, DType::BF16).is_err());
        assert!(plan(ops::REDUCE_ELEMENTS, Some(Reduction::Sum), DType::F16).is_err());
        assert!(plan(ops::REDUCE_ELEMENTS, Some(Reduction::Avg), DType::I64).is_err());
    }
}
