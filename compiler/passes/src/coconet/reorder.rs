//! `coco-reorder`: move element-wise computations before an all_gather, so
//! they run on slices (CoCoNet's reorder; with `coco-split` it gives the
//! RS_C_AG schedule).
//!
//! For an element-wise `f`, `f(all_gather(x), y) = all_gather(f(x, slice(y)))`:
//! every rank computes `1/N` of the elements instead of all of them. The pass
//! follows the gathered value forward through the element-wise ops of the
//! same block (arith, math, `coco.dropout`, `coco.cast`) whose other tensor
//! operands are replicated with the same shape; those operands are sliced
//! (splat constants and `tensor.splat` are rebuilt sliced, anything else goes
//! through `coco.slice`). Values still needed replicated afterwards get one
//! all_gather; the original gather disappears when nothing else uses it.
//!
//! **Preconditions**: the all_gather's result feeds at least one such op
//! (otherwise a remark says so and nothing changes). On a `coco.mesh`, an
//! all_gather over one axis moves the ops whose other operands have its
//! result's placement; they are sliced along the gathered dimension on that
//! axis (ZeRO's optimizer step on data-parallel slices).
//!
//! **Guarantees**: bitwise-identical results: every element is computed by
//! the same operation on the same values (dropout masks are keyed by global
//! element index).
//!
//! ```mlir
//! // before
//! %g = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
//! %y = arith.mulf %g, %w : tensor<1024xf32, #coco.replicated>
//! // after --coco-reorder
//! %ws = coco.slice %w : tensor<1024xf32, #coco.replicated> -> tensor<1024xf32, #coco.sliced<0>>
//! %ys = arith.mulf %s, %ws : tensor<1024xf32, #coco.sliced<0>>
//! %y = coco.all_gather %ys : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
//! ```

use coco_dialects::lifetime;
use melior::Context;
use std::collections::{HashMap, HashSet};

use coco_dialects::{
    coco::{
        facts, layout::with_layout, mesh::placed_type, ops, CocoBuilder, DistTensor, Layout, Mesh,
        OnAxis, Placement,
    },
    diagnostics::{emit_error, emit_remark},
    ir::{as_op, body_ops, defining_op, functions, op_name, str_attr},
    rewrite::{clone_with, erase, insert_after, insert_before, replace_all_uses, users},
};
use melior::{
    ir::{operation::OperationRef, AttributeLike, Operation, Type, Value, ValueLike},
    pass::Pass,
};

use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::Options,
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "coco-reorder",
    summary: "Move element-wise computations that consume an all_gather before it, onto the slices",
    description: "**Preconditions**: an all_gather whose result feeds element-wise ops (arith, math, \
                  coco.dropout, coco.cast) in the same block whose other tensor operands are replicated \
                  with the same shape; otherwise a remark and no change. On a `coco.mesh`, an all_gather over one axis \
                  moves ops whose other operands have its result's placement.\n\n\
                  **Guarantees**: bitwise-identical results; replicated operands are sliced \
                  (`coco.slice`, or rebuilt sliced when they are splats); one all_gather per value \
                  still needed replicated.\n\n\
                  ```mlir\n\
                  %g = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>\n\
                  %y = arith.mulf %g, %w : tensor<1024xf32, #coco.replicated>\n\
                  // becomes\n\
                  %ws = coco.slice %w : tensor<1024xf32, #coco.replicated> -> tensor<1024xf32, #coco.sliced<0>>\n\
                  %ys = arith.mulf %s, %ws : tensor<1024xf32, #coco.sliced<0>>\n\
                  %y = coco.all_gather %ys : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>\n\
                  ```",
    options: &[],
    create,
};

static PASS_ID: PassId = PassId;

fn create(_options: &Options) -> Result<Pass> {
    Ok(create_module_pass(
        &INFO,
        &PASS_ID,
        "CocoReorder",
        ReorderPass,
    ))
}

#[derive(Clone)]
struct ReorderPass;

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

/// Element-wise ops the reorder may move: they compute each element from the
/// same element of their operands (the op facts table).
fn is_elementwise(name: &str) -> bool {
    facts(name).elementwise.is_elementwise()
}

/// What the all_gather being reordered gathers: over the whole group (one
/// flat axis, plain layouts) or over one axis of a mesh, from the `part`
/// placement (sliced along `dim` on that axis) to the `whole` one
/// (replicated on it; the other axes keep their layouts).
struct Frame {
    mesh: Mesh,
    axis: Option<String>,
    dim: i64,
    shape: Vec<Option<i64>>,
    part: Placement,
    whole: Placement,
}

impl Frame {
    /// The frame of `gather`, or why it has none.
    fn of(gather: &Operation, mesh: Option<&Mesh>) -> std::result::Result<Frame, String> {
        let input = DistTensor::from_type(gather.operand(0).map_err(|e| e.to_string())?.r#type())
            .ok_or("its operand is not a coco tensor")?;
        let axis = str_attr(gather, "axis");
        let mesh = match (mesh, &axis) {
            (Some(mesh), Some(_)) => mesh.clone(),
            _ => Mesh::flat(1),
        };
        let part = input
            .placement(&mesh)
            .map_err(|why| format!("its operand {why}"))?;
        let a = match &axis {
            Some(name) => mesh
                .axis(name)
                .ok_or_else(|| format!("the mesh has no axis \"{name}\""))?,
            None => 0,
        };
        let Some(Layout::Sliced(dim)) = part.0.get(a).copied() else {
            return Err("its operand is not sliced".into());
        };
        if axis.is_some() {
            // The slices of the other operands refine their blocks along
            // `dim` on this axis, the placement's order when it is the
            // innermost to slice `dim` (the verifier's rule for the
            // all_gather too).
            if let Some(&inner) = part.slicing_axes(dim as usize).iter().find(|&&b| b > a) {
                return Err(format!(
                    "dimension {dim} is sliced along axis \"{}\", inside this one",
                    mesh.axes[inner].0
                ));
            }
        }
        let mut whole = part.clone();
        whole.0[a] = Layout::Replicated;
        Ok(Frame {
            mesh,
            axis,
            dim,
            shape: input.shape.clone(),
            part,
            whole,
        })
    }

    /// Whether `ty` is placed as the gathered value, with its shape: an
    /// operand that can be sliced alongside.
    fn is_whole(&self, ty: Type) -> bool {
        DistTensor::from_type(ty).is_some_and(|t| {
            t.shape == self.shape
                && (t.layout.is_some() || self.axis.is_some())
                && t.placement(&self.mesh).is_ok_and(|p| p == self.whole)
        })
    }

    /// `ty` placed as the slices.
    fn part_type<'c>(&self, context: &'c Context, ty: Type<'c>) -> Option<Type<'c>> {
        match self.axis {
            None => with_layout(context, ty, Layout::Sliced(self.dim)),
            Some(_) => placed_type(context, ty, &self.mesh, &self.part),
        }
    }

    fn on<'m>(&'m self, placement: &'m Placement) -> OnAxis<'m> {
        OnAxis {
            axis: self.axis.as_deref().unwrap_or_default(),
            mesh: &self.mesh,
            placement,
        }
    }

    /// Each rank's slice of a whole `value`.
    fn slice<'c>(
        &self,
        builder: &CocoBuilder<'c>,
        value: Value<'c, '_>,
    ) -> coco_dialects::Result<Operation<'c>> {
        match self.axis {
            None => builder.slice(value, self.dim),
            Some(_) => builder.slice_placed(value, self.on(&self.part)),
        }
    }

    /// The slices of `value` gathered back.
    fn gather<'c>(
        &self,
        builder: &CocoBuilder<'c>,
        value: Value<'c, '_>,
    ) -> coco_dialects::Result<Operation<'c>> {
        match self.axis {
            None => builder.all_gather(value),
            Some(_) => builder.over_axis(ops::ALL_GATHER, value, self.on(&self.whole), None, None),
        }
    }
}

impl ReorderPass {
    /// Reorders around one all_gather; returns how many ops moved.
    fn reorder<'c, 'a>(
        &self,
        gather: OperationRef<'c, 'a>,
        block_ops: &[OperationRef<'c, 'a>],
        frame: &Frame,
    ) -> coco_dialects::Result<usize> {
        let gather_op = as_op(&gather);
        let input = gather_op.operand(0)?;
        let gathered: Value = gather_op.result(0)?.into();
        let context = lifetime::context(gather_op);
        let builder = CocoBuilder::new(context, gather_op.location());

        // original value -> its sliced counterpart (both live in the block).
        let mut sliced: HashMap<usize, Value<'c, 'a>> = HashMap::new();
        let extend = |v: Value<'c, '_>| -> Value<'c, 'a> { lifetime::value(v) };
        sliced.insert(key(gathered), extend(input));
        let mut moved: Vec<(OperationRef<'c, 'a>, OperationRef<'c, 'a>)> = Vec::new();
        let start = block_ops
            .iter()
            .position(|o| o.to_raw().ptr == gather.to_raw().ptr)
            .unwrap_or(0);

        for &op_ref in &block_ops[start + 1..] {
            let op = as_op(&op_ref);
            let name = op_name(op);
            if !is_elementwise(&name) || !op.operands().any(|v| sliced.contains_key(&key(v))) {
                continue;
            }
            let movable = op.operands().all(|v| {
                sliced.contains_key(&key(v))
                    || DistTensor::from_type(v.r#type()).is_none()
                    || frame.is_whole(v.r#type())
            }) && op.results().all(|r| frame.is_whole(r.r#type()));
            if !movable {
                continue;
            }
            let mut operands = Vec::new();
            for v in op.operands() {
                if let Some(s) = sliced.get(&key(v)) {
                    operands.push(*s);
                } else if DistTensor::from_type(v.r#type()).is_none() {
                    operands.push(extend(v));
                } else {
                    let s = self.slice_of(&builder, v, frame, op_ref, &mut sliced)?;
                    operands.push(s);
                }
            }
            let types = op
                .results()
                .map(|r| frame.part_type(context, r.r#type()))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| coco_dialects::Error::Build {
                    op: name.clone(),
                    message: "result is not a static tensor".into(),
                })?;
            let clone = insert_before(op_ref, clone_with(op_ref, &operands, &types)?)?;
            for (i, result) in op.results().enumerate() {
                sliced.insert(key(result.into()), extend(as_op(&clone).result(i)?.into()));
            }
            moved.push((op_ref, clone));
        }
        if moved.is_empty() {
            return Ok(0);
        }

        // Values still needed replicated by ops that did not move get one
        // all_gather, right after their sliced computation.
        let moved_set: HashSet<usize> =
            moved.iter().map(|(o, _)| o.to_raw().ptr as usize).collect();
        for (op_ref, clone) in &moved {
            for (i, result) in as_op(op_ref).results().enumerate() {
                let outside = users(result.into())
                    .iter()
                    .any(|u| !moved_set.contains(&(u.ptr as usize)));
                if outside {
                    let gather = frame.gather(&builder, as_op(clone).result(i)?.into())?;
                    let gather = insert_after(*clone, gather)?;
                    replace_all_uses(result.into(), as_op(&gather).result(0)?.into());
                }
            }
        }
        // In reverse order, each moved op's remaining users (moved ops) are
        // already gone when it is erased.
        let count = moved.len();
        for (op_ref, _) in moved.into_iter().rev() {
            erase(op_ref)?;
        }
        if users(gathered).is_empty() {
            erase(gather)?;
        }
        Ok(count)
    }

    /// The slice of replicated `value` along `dim`, built right before
    /// `anchor`: splat constants and `tensor.splat` are rebuilt with the sliced
    /// type; element-wise ops on replicated values are recomputed on slices
    /// (so `beta * m` runs on the slice of `m`); anything else goes through
    /// `coco.slice`. Memoized in `sliced`.
    fn slice_of<'c, 'a>(
        &self,
        builder: &CocoBuilder<'c>,
        value: Value<'c, '_>,
        frame: &Frame,
        anchor: OperationRef<'c, 'a>,
        sliced: &mut HashMap<usize, Value<'c, 'a>>,
    ) -> coco_dialects::Result<Value<'c, 'a>> {
        if let Some(s) = sliced.get(&key(value)) {
            return Ok(*s);
        }
        let result = self.slice_uncached(builder, value, frame, anchor, sliced)?;
        sliced.insert(key(value), result);
        Ok(result)
    }

    fn slice_uncached<'c, 'a>(
        &self,
        builder: &CocoBuilder<'c>,
        value: Value<'c, '_>,
        frame: &Frame,
        anchor: OperationRef<'c, 'a>,
        sliced: &mut HashMap<usize, Value<'c, 'a>>,
    ) -> coco_dialects::Result<Value<'c, 'a>> {
        let defining = defining_op(value);
        if let Some(def) = defining {
            let def_op = as_op(&def);
            let name = op_name(def_op);
            let splat = name == "tensor.splat"
                || (name == "arith.constant"
                        // SAFETY: a pure query on a dense elements attribute.
                    && def_op.attribute("value").is_ok_and(|a| unsafe {
                        mlir_sys::mlirAttributeIsADenseElements(a.to_raw()) && mlir_sys::mlirDenseElementsAttrIsSplat(a.to_raw())
                    }));
            if splat {
                let context = lifetime::context(def_op);
                let ty = frame.part_type(context, value.r#type()).ok_or_else(|| {
                    coco_dialects::Error::Build {
                        op: name.clone(),
                        message: "not a static tensor".into(),
                    }
                })?;
                let operands: Vec<Value> = def_op.operands().collect();
                let mut clone = clone_with(def, &operands, &[ty])?;
                if name == "arith.constant" {
                    // The value attribute carries the type too.
                    // SAFETY: `value` is a splat dense attribute (checked above).
                    let value = unsafe {
                        let old = def_op.attribute("value")?.to_raw();
                        melior::ir::Attribute::from_raw(mlir_sys::mlirDenseElementsAttrSplatGet(
                            melior::ir::TypeLike::to_raw(&ty),
                            mlir_sys::mlirDenseElementsAttrGetSplatValue(old),
                        ))
                    };
                    clone.set_attribute("value", value);
                }
                let rebuilt = insert_before(anchor, clone)?;
                return Ok(lifetime::value(as_op(&rebuilt).result(0)?));
            }
            let recomputable = is_elementwise(&name)
                && def_op.result_count() == 1
                && def_op.operands().all(|v| {
                    DistTensor::from_type(v.r#type()).is_none() || frame.is_whole(v.r#type())
                });
            if recomputable {
                let mut operands = Vec::new();
                for v in def_op.operands() {
                    if DistTensor::from_type(v.r#type()).is_none() {
                        operands.push(lifetime::value(v));
                    } else {
                        operands.push(self.slice_of(builder, v, frame, anchor, sliced)?);
                    }
                }
                let context = lifetime::context(def_op);
                let ty = frame.part_type(context, value.r#type()).ok_or_else(|| {
                    coco_dialects::Error::Build {
                        op: name.clone(),
                        message: "not a static tensor".into(),
                    }
                })?;
                let rebuilt = insert_before(anchor, clone_with(def, &operands, &[ty])?)?;
                return Ok(lifetime::value(as_op(&rebuilt).result(0)?));
            }
        }
        let slice = insert_before(anchor, frame.slice(builder, value)?)?;
        Ok(lifetime::value(as_op(&slice).result(0)?))
    }
}

impl ModulePass for ReorderPass {
    fn run<'c>(&mut self, _context: &'c Context, module: &Operation<'c>) -> bool {
        let mesh = Mesh::declared(module).map(|d| d.mesh);
        let functions = functions(module);
        for func in functions {
            let gathers: Vec<OperationRef> = body_ops(as_op(&func))
                .into_iter()
                .filter(|o| op_name(as_op(o)) == ops::ALL_GATHER)
                .collect();
            for gather in gathers {
                let location = as_op(&gather).location();
                let block_ops = body_ops(as_op(&func));
                let frame = match Frame::of(as_op(&gather), mesh.as_ref()) {
                    Ok(frame) => frame,
                    Err(why) => {
                        emit_remark(
                            location,
                            &format!("coco-reorder: not applied to coco.all_gather: {why}"),
                        );
                        continue;
                    }
                };
                match self.reorder(gather, &block_ops, &frame) {
                    Ok(0) => emit_remark(
                        location,
                        "coco-reorder: not applied to coco.all_gather: no element-wise computation with replicated \
                         operands of the same shape consumes its result",
                    ),
                    Ok(_) => {}
                    Err(e) => {
                        emit_error(location, &format!("coco-reorder: internal error: {e}"));
                        return false;
                    }
                }
            }
        }
        true
    }
}
