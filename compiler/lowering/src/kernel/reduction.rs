//! Reductions: `coco.norm` (L2) and `coco.reduce_elements` (sum, prod,
//! min, max, avg) of a whole tensor to a 0-d result, and the row reduction
//! along the last dimension that softmax and layer norm build on. Each is a
//! `linalg.generic` with `reduction` iterators accumulating into a
//! `linalg.fill`ed tensor of the accumulation type (whole-tensor float sums
//! in the blocked order, `blocked_reduction.rs`; the rest in index order);
//! a second one-element generic finishes (sqrt, divide) and rounds to the
//! element type.

use coco_bundle::DType;
use coco_dialects::{
    coco::{ops, DistTensor, Reduction},
    ir::{as_op, defining_op, element_dtype, i64_array_attr, int_attr, op_name},
    rewrite::users,
};
use melior::ir::{Operation, Value, ValueLike};

use super::{
    blocked_reduction::is_blocked,
    identity_map, iterators, map,
    tree_reduction::fold_kind,
    types::{convert, tensor_type, widen, KernelType},
    Computed, Emitter, Tensor, ROW_REDUCTION_ATTR,
};
use crate::{
    error::{Error, Result},
    ir::{key, operand},
};

/// For a whole-tensor `coco.reduce_elements sum` of `arith.mulf %a, %a`
/// (f32 or f64, the square used nowhere else), `%a`: the reduction squares
/// each element in its own loop, as `coco.norm` does, so the squares never
/// go through memory (`coco-partial-reduce`'s partial norms). The rounding
/// is the same: the square in the element type, then the sum.
pub(super) fn squared_source<'c, 'a>(op: &Operation<'c>) -> Option<Value<'c, 'a>> {
    if op_name(op) != ops::REDUCE_ELEMENTS
        || i64_array_attr(op, "dims").is_some()
        || int_attr(op, "kind").and_then(Reduction::from_value) != Some(Reduction::Sum)
    {
        return None;
    }
    let square: Value<'c, 'a> = operand(op, 0)?;
    let def = defining_op(square)?;
    let def_op = as_op(&def);
    let base: Value<'c, 'a> = operand(def_op, 0)?;
    let second: Value<'c, 'a> = operand(def_op, 1)?;
    let wide = DistTensor::from_type(base.r#type())
        .and_then(|t| element_dtype(t.element))
        .is_some_and(|d| matches!(d, DType::F32 | DType::F64));
    (op_name(def_op) == "arith.mulf"
        && key(second) == key(base)
        && wide
        && users(square).len() == 1)
        .then_some(base)
}

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    /// `coco.norm` (`kind` absent) and `coco.reduce_elements`.
    pub(super) fn reduce_elements(
        &mut self,
        op: &Operation<'c>,
        out: &Computed<'c, 'a>,
    ) -> Result<()> {
        let name = op_name(op);
        // Squared in the loop only when the squares are not a tensor of
        // the kernel already (an input, when the square is a kernel of its
        // own: the unfused schedule), which is read as it is.
        let square_given = operand(op, 0)
            .is_some_and(|square| self.tensors.contains_key(&key(self.values.resolve(square))));
        if let Some(base) = squared_source(op).filter(|_| !square_given) {
            let x = self.tensor_of(base, &out.location)?;
            return self.reduce_all(&x, None, Some(Reduction::Sum), "0.0", out);
        }
        let x = self.operand(op, 0, &out.location)?;
        if !x.element.is_float() && name == ops::NORM {
            return Err(Error::unsupported(
                &out.location,
                format!("'{name}' of {} is not compiled", x.element),
            ));
        }
        let acc = x.element.accumulator();
        let kind = if name == ops::NORM {
            None
        } else {
            Some(
                int_attr(op, "kind")
                    .and_then(Reduction::from_value)
                    .unwrap_or(Reduction::Sum),
            )
        };
        let init = identity(kind, acc);
        if let Some(dims) = i64_array_attr(op, "dims").filter(|d| d.len() < x.shape.len()) {
            return self.reduce_dims(&x, &dims, kind, init, out);
        }
        self.reduce_all(&x, kind, kind, init, out)
    }

    /// Every element of `x` folded into `out`: each element through
    /// `combine`'s body (`None`: squared, as for a norm), the result through
    /// `finish`'s (`None`: the square root).
    fn reduce_all(
        &mut self,
        x: &Tensor,
        combine_kind: Option<Reduction>,
        finish_kind: Option<Reduction>,
        init: &str,
        out: &Computed<'c, 'a>,
    ) -> Result<()> {
        if self.target.trees() {
            return self.tree_reduce_all(x, combine_kind, finish_kind, init, out);
        }
        let acc = x.element.accumulator();
        let count = x.shape.iter().product::<usize>().max(1);
        if self.target.blocked_sums() && is_blocked(combine_kind, acc) {
            let s = self.blocked_fold(x, combine_kind, init);
            self.finish_scalar(&s, count, finish_kind, acc, out);
            return Ok(());
        }
        // Min, max and integers: one parallel iteration around the
        // index-order reduction, so that the whole reduction is one loop
        // nest.
        let f = self.filled(&[1], acc, init);
        let xe = self.with_leading_one(x);
        let rank = x.shape.len() + 1;
        let mut kinds = vec!["parallel"];
        kinds.extend(vec!["reduction"; rank - 1]);
        let (widen, xin) = widen(x.element, acc, "%a", "%x");
        let s = self.fresh("s");
        self.line(&format!(
            "{s} = linalg.generic {{indexing_maps = [{}, {}], iterator_types = {}}} ins({xe} : {}) outs({f} : tensor<1x{acc}>) {{\n    ^bb0(%a: {}, %acc: {acc}):\n{widen}{}      linalg.yield %n : {acc}\n    }} -> tensor<1x{acc}>",
            identity_map(rank),
            map(rank, &[0]),
            iterators(&kinds),
            tensor_type(&leading_one(&x.shape), x.element),
            x.element,
            combine(combine_kind, &xin, acc),
        ));
        self.finish_scalar(&s, count, finish_kind, acc, out);
        Ok(())
    }

    /// The accumulated `s` (a `tensor<1xacc>` over `count` elements)
    /// finished (`finish_kind`), rounded and stored as the 0-d `out`.
    pub(super) fn finish_scalar(
        &mut self,
        s: &str,
        count: usize,
        finish_kind: Option<Reduction>,
        acc: DType,
        out: &Computed<'c, 'a>,
    ) {
        let (finish, y) = finish(finish_kind, count, acc);
        let (round, r) = convert(acc, out.element, y, "%r");
        let e = self.scalar_destination(out);
        let element = out.element;
        let y1 = self.fresh("y");
        self.line(&format!(
            "{y1} = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}} ins({s} : tensor<1x{acc}>) outs({e} : tensor<1x{element}>) {{\n    ^bb0(%a: {acc}, %b: {element}):\n{finish}{round}      linalg.yield {r} : {element}\n    }} -> tensor<1x{element}>"
        ));
        self.line(&format!(
            "{} = tensor.collapse_shape {y1} [] : tensor<1x{element}> into tensor<{element}>",
            out.name
        ));
    }

    /// `coco.reduce_elements` over `dims` only: one generic with `parallel`
    /// iterators for the kept dimensions and `reduction` ones for `dims`
    /// (each result element accumulates in index order), then one that
    /// finishes and rounds each element.
    fn reduce_dims(
        &mut self,
        x: &Tensor,
        dims: &[i64],
        kind: Option<Reduction>,
        init: &str,
        out: &Computed<'c, 'a>,
    ) -> Result<()> {
        let acc = x.element.accumulator();
        let rank = x.shape.len();
        let kept: Vec<usize> = (0..rank).filter(|d| !dims.contains(&(*d as i64))).collect();
        // Loops: the kept dimensions outermost (parallel: GPU threads), the
        // reduced ones innermost in their own order (index order per result).
        let reduced: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
        let mut loop_of = vec![0; rank];
        for (position, &d) in kept.iter().chain(&reduced).enumerate() {
            loop_of[d] = position;
        }
        let mut kinds = vec!["parallel"; kept.len()];
        kinds.extend(vec!["reduction"; reduced.len()]);
        let (widen, xin) = widen(x.element, acc, "%a", "%x");
        let s = if self.target.trees() {
            let body = format!("{widen}{}", combine(kind, &xin, acc));
            self.tree_reduce_groups(
                &[(x, false)],
                &kept,
                &reduced,
                acc,
                init,
                &body,
                fold_kind(kind),
            )
        } else {
            self.sequential_reduce_dims(x, &loop_of, &kinds, kind, init, out)
        };
        let count: usize = dims
            .iter()
            .map(|&d| x.shape[d as usize])
            .product::<usize>()
            .max(1);
        let (finish, y) = finish(kind, count, acc);
        let (round, r) = convert(acc, out.element, y, "%r");
        let element = out.element;
        let e = self.empty(&out.shape, element);
        let out_rank = out.shape.len();
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{}, {}], iterator_types = {}}} ins({s} : {}) outs({e} : {}) {{\n    ^bb0(%a: {acc}, %b: {element}):\n{finish}{round}      linalg.yield {r} : {element}\n    }} -> {}",
            out.name,
            identity_map(out_rank),
            identity_map(out_rank),
            iterators(&vec!["parallel"; out_rank]),
            tensor_type(&out.shape, acc),
            tensor_type(&out.shape, element),
            tensor_type(&out.shape, element),
        ));
        Ok(())
    }

    /// The CPU's accumulation for `reduce_dims`: one generic, each result
    /// element in index order.
    fn sequential_reduce_dims(
        &mut self,
        x: &Tensor,
        loop_of: &[usize],
        kinds: &[&str],
        kind: Option<Reduction>,
        init: &str,
        out: &Computed<'c, 'a>,
    ) -> String {
        let acc = x.element.accumulator();
        let rank = x.shape.len();
        let kept = kinds.iter().filter(|k| **k == "parallel").count();
        let f = self.filled(&out.shape, acc, init);
        let (widen, xin) = widen(x.element, acc, "%a", "%x");
        let s = self.fresh("s");
        self.line(&format!(
            "{s} = linalg.generic {{indexing_maps = [{}, {}], iterator_types = {}}} ins({} : {}) outs({f} : {}) {{\n    ^bb0(%a: {}, %acc: {acc}):\n{widen}{}      linalg.yield %n : {acc}\n    }} -> {}",
            map(rank, loop_of),
            map(rank, &(0..kept).collect::<Vec<_>>()),
            iterators(kinds),
            x.name,
            x.ty(),
            tensor_type(&out.shape, acc),
            x.element,
            combine(kind, &xin, acc),
            tensor_type(&out.shape, acc),
        ));
        s
    }

    /// `coco.cumsum`: a parallel loop over the result with the summed
    /// dimension again as the innermost `reduction` loop `j`; element `i`
    /// adds `x[j]` for `j <= i` only (a select, never `+ 0`, which would
    /// turn -0.0 into +0.0), in index order from zero, rounding after each
    /// addition as the interpreter does. Quadratic in the summed dimension,
    /// which an MoE's token count keeps small.
    pub(super) fn cumsum(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let x = self.operand(op, 0, &out.location)?;
        let dim = int_attr(op, "dim").unwrap_or(0) as usize;
        let rank = x.shape.len();
        let element = x.element;
        // Loops: the result's dimensions, then `j`, which reads the operand
        // in place of the summed dimension.
        let read: Vec<usize> = (0..rank).map(|d| if d == dim { rank } else { d }).collect();
        let mut kinds = vec!["parallel"; rank];
        kinds.push("reduction");
        let add = if element.is_float() {
            "arith.addf"
        } else {
            "arith.addi"
        };
        let zero = self.filled(&out.shape, element, element.zero());
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{}, {}], iterator_types = {}}} ins({} : {}) outs({zero} : {}) {{\n    ^bb0(%a: {element}, %acc: {element}):\n      %i = linalg.index {dim} : index\n      %j = linalg.index {rank} : index\n      %le = arith.cmpi ule, %j, %i : index\n      %sum = {add} %acc, %a : {element}\n      %n = arith.select %le, %sum, %acc : {element}\n      linalg.yield %n : {element}\n    }} -> {}",
            out.name,
            map(rank + 1, &read),
            map(rank + 1, &(0..rank).collect::<Vec<_>>()),
            iterators(&kinds),
            x.name,
            x.ty(),
            tensor_type(&out.shape, element),
            tensor_type(&out.shape, element),
        ));
        Ok(())
    }

    /// `coco.argmax`: one generic over the operand with the compared
    /// dimension as a `reduction` iterator, carrying (largest so far, its
    /// index) from (-inf, 0) and moving on strictly greater values, as the
    /// interpreter scans.
    pub(super) fn argmax(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let x = self.operand(op, 0, &out.location)?;
        if !x.element.is_float() {
            return Err(Error::unsupported(
                &out.location,
                format!("'coco.argmax' of {} is not compiled yet", x.element),
            ));
        }
        let dim = int_attr(op, "dim").unwrap_or(0) as usize;
        let rank = x.shape.len();
        // Loops: the kept dimensions outermost, the compared one innermost.
        let mut loop_of: Vec<usize> = (0..rank)
            .map(|d| if d < dim { d } else { d.saturating_sub(1) })
            .collect();
        if rank > 0 {
            loop_of[dim] = rank - 1;
        }
        let mut kinds = vec!["parallel"; rank.saturating_sub(1)];
        kinds.push("reduction");
        let kept: Vec<usize> = (0..rank.saturating_sub(1)).collect();
        let element = x.element;
        let top = self.filled(&out.shape, element, element.infinity(true));
        let index = self.filled(&out.shape, DType::I64, "0");
        let r = self.fresh("r");
        self.line(&format!(
            "{r}:2 = linalg.generic {{indexing_maps = [{}, {}, {}], iterator_types = {}}} ins({} : {}) outs({top}, {index} : {}, {}) {{\n    ^bb0(%a: {element}, %top: {element}, %at: i64):\n      %i = linalg.index {} : index\n      %ii = arith.index_cast %i : index to i64\n      %gt = arith.cmpf ogt, %a, %top : {element}\n      %nt = arith.select %gt, %a, %top : {element}\n      %na = arith.select %gt, %ii, %at : i64\n      linalg.yield %nt, %na : {element}, i64\n    }} -> ({}, {})",
            map(rank, &loop_of),
            map(rank, &kept),
            map(rank, &kept),
            iterators(&kinds),
            x.name,
            x.ty(),
            tensor_type(&out.shape, element),
            tensor_type(&out.shape, DType::I64),
            rank.saturating_sub(1),
            tensor_type(&out.shape, element),
            tensor_type(&out.shape, DType::I64),
        ));
        self.line(&format!(
            "{} = tensor.cast {r}#1 : {} to {}",
            out.name,
            tensor_type(&out.shape, DType::I64),
            tensor_type(&out.shape, DType::I64)
        ));
        Ok(())
    }

    /// `x` with a leading dimension of one: the parallel iteration.
    fn with_leading_one(&mut self, x: &Tensor) -> String {
        let wide = leading_one(&x.shape);
        let xe = self.fresh("x");
        if x.shape.is_empty() {
            self.line(&format!(
                "{xe} = tensor.expand_shape {} [] output_shape [1] : {} into {}",
                x.name,
                x.ty(),
                tensor_type(&wide, x.element)
            ));
        } else {
            let mut groups = vec!["[0, 1]".to_string()];
            groups.extend((2..wide.len()).map(|d| format!("[{d}]")));
            self.line(&format!(
                "{xe} = tensor.expand_shape {} [{}] output_shape [{}] : {} into {}",
                x.name,
                groups.join(", "),
                wide.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                x.ty(),
                tensor_type(&wide, x.element)
            ));
        }
        xe
    }

    /// The one-element tensor a 0-d result is finished into: its output
    /// buffer when it is a kernel output, so no copy follows.
    fn scalar_destination(&mut self, out: &Computed<'c, 'a>) -> String {
        let element = out.element;
        match self.destinations.remove(&key(out.value)) {
            Some((param, memref)) => {
                let d = self.fresh("d");
                self.line(&format!(
                    "{d} = bufferization.to_tensor {param} restrict writable : {memref}"
                ));
                let d1 = self.fresh("x");
                self.line(&format!("{d1} = tensor.expand_shape {d} [] output_shape [1] : tensor<{element}> into tensor<1x{element}>"));
                d1
            }
            None => self.empty(&[1], element),
        }
    }

    /// Accumulates along the last dimension of the first input into a
    /// fresh `rows` tensor filled with `init`: `body` reads `%acc` and the
    /// inputs `%a`, `%b`, ... (per-row inputs broadcast along the row) and
    /// defines `%n`; `fold` says how two accumulations combine (the GPU's
    /// tree, `tree_reduction`).
    pub(super) fn reduce_rows(
        &mut self,
        inputs: &[(&Tensor, bool)],
        acc: DType,
        init: &str,
        body: &str,
        fold: Reduction,
    ) -> String {
        if self.target.trees() {
            return self.tree_reduce_rows(inputs, acc, init, body, fold);
        }
        let x = inputs[0].0;
        let rank = x.shape.len();
        let rows = &x.shape[..rank - 1];
        if self.vectorises_rows(&x.shape) {
            let count: usize = rows.iter().product();
            let width = x.shape[rank - 1];
            return self.row_reduction(inputs, acc, init, body, (count, width));
        }
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

    /// Whether [`Self::reduce_rows`] over the last dimension of `shape`
    /// becomes a [`Self::row_reduction`]: on the CPU, with at least two
    /// dimensions, the row count and the width multiples of the lanes.
    pub(super) fn vectorises_rows(&self, shape: &[usize]) -> bool {
        let Some(tile) = self.target.row_tile() else {
            return false;
        };
        let Some((&width, rows)) = shape.split_last() else {
            return false;
        };
        !rows.is_empty()
            && rows.iter().product::<usize>().is_multiple_of(tile)
            && width.is_multiple_of(tile)
    }

    /// [`Self::reduce_rows`] as a 2-D `count x width` reduction marked
    /// [`ROW_REDUCTION_ATTR`]: the inputs collapsed to `count` rows (views,
    /// no copies), the result expanded back to the rows' shape.
    fn row_reduction(
        &mut self,
        inputs: &[(&Tensor, bool)],
        acc: DType,
        init: &str,
        body: &str,
        (count, width): (usize, usize),
    ) -> String {
        let x = inputs[0].0;
        let rank = x.shape.len();
        let rows = &x.shape[..rank - 1];
        let collapse = |dims: usize| -> String {
            let all: Vec<String> = (0..dims).map(|d| d.to_string()).collect();
            format!("[[{}]]", all.join(", "))
        };
        let mut names = Vec::new();
        let mut types = Vec::new();
        let mut maps = Vec::new();
        let mut args = Vec::new();
        for (i, (t, per_row)) in inputs.iter().enumerate() {
            let (shape, reassociation, map2) = if *per_row {
                (
                    vec![count],
                    collapse(rank - 1),
                    "affine_map<(d0, d1) -> (d0)>",
                )
            } else {
                let mut groups = collapse(rank - 1);
                groups.truncate(groups.len() - 1);
                (
                    vec![count, width],
                    format!("{groups}, [{}]]", rank - 1),
                    "affine_map<(d0, d1) -> (d0, d1)>",
                )
            };
            let flat_ty = tensor_type(&shape, t.element);
            if t.shape == shape {
                names.push(t.name.clone());
            } else {
                let flat = self.fresh("x");
                self.line(&format!(
                    "{flat} = tensor.collapse_shape {} {reassociation} : {} into {flat_ty}",
                    t.name,
                    t.ty()
                ));
                names.push(flat);
            }
            types.push(flat_ty);
            maps.push(map2.to_string());
            args.push(format!("%{}: {}", (b'a' + i as u8) as char, t.element));
        }
        maps.push("affine_map<(d0, d1) -> (d0)>".into());
        let f = self.filled(&[count], acc, init);
        let flat = self.fresh("s");
        self.line(&format!(
            "{flat} = linalg.generic {{indexing_maps = [{}], iterator_types = [\"parallel\", \"reduction\"], {ROW_REDUCTION_ATTR}}} ins({} : {}) outs({f} : {}) {{\n    ^bb0({}, %acc: {acc}):\n{body}      linalg.yield %n : {acc}\n    }} -> {}",
            maps.join(", "),
            names.join(", "),
            types.join(", "),
            tensor_type(&[count], acc),
            args.join(", "),
            tensor_type(&[count], acc)
        ));
        if rows.len() == 1 {
            return flat;
        }
        let r = self.fresh("s");
        {
            let dims: Vec<String> = rows.iter().map(|d| d.to_string()).collect();
            self.line(&format!(
                "{r} = tensor.expand_shape {flat} {} output_shape [{}] : {} into {}",
                collapse(rank - 1),
                dims.join(", "),
                tensor_type(&[count], acc),
                tensor_type(rows, acc)
            ));
        }
        r
    }
}

fn leading_one(shape: &[usize]) -> Vec<usize> {
    let mut wide = vec![1];
    wide.extend(shape);
    wide
}

/// The body line folding `x` (in the accumulation type) into `%acc` as `%n`.
/// Integers fold as the interpreter's `integer::combine`: wrapping at
/// their width, i1 as a logical or (sum, avg, max) or and (prod, min).
pub(super) fn combine(kind: Option<Reduction>, x: &str, acc: DType) -> String {
    if !acc.is_float() {
        return format!(
            "      %n = {} %acc, {x} : {acc}\n",
            IntegerFold::of(kind, acc).arith()
        );
    }
    match kind {
        None => format!(
            "      %sq = arith.mulf {x}, {x} : {acc}\n      %n = arith.addf %acc, %sq : {acc}\n"
        ),
        Some(Reduction::Sum | Reduction::Avg) => {
            format!("      %n = arith.addf %acc, {x} : {acc}\n")
        }
        Some(Reduction::Prod) => format!("      %n = arith.mulf %acc, {x} : {acc}\n"),
        Some(Reduction::Min) => format!("      %n = arith.minnumf %acc, {x} : {acc}\n"),
        Some(Reduction::Max) => format!("      %n = arith.maxnumf %acc, {x} : {acc}\n"),
    }
}

/// How integers of one type fold by one reduction kind, as the
/// interpreter's `integer::combine`: wrapping at their width, i1 as a
/// logical or (sum, avg, max) or and (prod, min).
#[derive(Clone, Copy)]
pub(super) enum IntegerFold {
    Or,
    And,
    Add,
    Mul,
    Min,
    Max,
}

impl IntegerFold {
    pub(super) fn of(kind: Option<Reduction>, acc: DType) -> IntegerFold {
        match (kind.unwrap_or(Reduction::Sum), acc == DType::I1) {
            (Reduction::Sum | Reduction::Avg | Reduction::Max, true) => IntegerFold::Or,
            (Reduction::Prod | Reduction::Min, true) => IntegerFold::And,
            (Reduction::Sum | Reduction::Avg, false) => IntegerFold::Add,
            (Reduction::Prod, false) => IntegerFold::Mul,
            (Reduction::Min, false) => IntegerFold::Min,
            (Reduction::Max, false) => IntegerFold::Max,
        }
    }

    /// The arith op.
    pub(super) fn arith(self) -> &'static str {
        match self {
            IntegerFold::Or => "arith.ori",
            IntegerFold::And => "arith.andi",
            IntegerFold::Add => "arith.addi",
            IntegerFold::Mul => "arith.muli",
            IntegerFold::Min => "arith.minsi",
            IntegerFold::Max => "arith.maxsi",
        }
    }

    /// `gpu.all_reduce`'s operation.
    pub(super) fn gpu(self) -> &'static str {
        match self {
            IntegerFold::Or => "or",
            IntegerFold::And => "and",
            IntegerFold::Add => "add",
            IntegerFold::Mul => "mul",
            IntegerFold::Min => "minsi",
            IntegerFold::Max => "maxsi",
        }
    }
}

/// The value a fold of `kind` starts from, as a literal of `acc`.
pub(super) fn identity(kind: Option<Reduction>, acc: DType) -> &'static str {
    let kind = kind.unwrap_or(Reduction::Sum);
    if acc.is_float() {
        return match kind {
            Reduction::Prod => "1.0",
            Reduction::Min => acc.infinity(false),
            Reduction::Max => acc.infinity(true),
            Reduction::Sum | Reduction::Avg => "0.0",
        };
    }
    match (kind, acc) {
        (Reduction::Prod | Reduction::Min, DType::I1) => "1",
        (Reduction::Prod, _) => "1",
        (Reduction::Min, DType::I32) => "2147483647",
        (Reduction::Min, _) => "9223372036854775807",
        (Reduction::Max, DType::I32) => "-2147483648",
        (Reduction::Max, DType::I64) => "-9223372036854775808",
        _ => "0",
    }
}

/// `(lines, name)`: what turns the accumulated `%a` over `count` elements
/// into the result, before rounding.
pub(super) fn finish(kind: Option<Reduction>, count: usize, acc: DType) -> (String, &'static str) {
    if !acc.is_float() {
        // The interpreter's `integer::average`: toward zero; i1 keeps the or.
        return match kind {
            Some(Reduction::Avg) if acc != DType::I1 => (
                format!("      %cnt = arith.constant {count} : {acc}\n      %y = arith.divsi %a, %cnt : {acc}\n"),
                "%y",
            ),
            _ => (String::new(), "%a"),
        };
    }
    match kind {
        None => (format!("      %y = math.sqrt %a : {acc}\n"), "%y"),
        Some(Reduction::Avg) => (
            format!("      %cnt = arith.constant {count}.0 : {acc}\n      %y = arith.divf %a, %cnt : {acc}\n"),
            "%y",
        ),
        _ => (String::new(), "%a"),
    }
}
