//! Data movement: `coco.slice` (this rank's part, at an offset computed
//! from `%rank`), `coco.expand` (broadcast along leading dimensions),
//! `coco.transpose` (`linalg.transpose` of the last two dimensions), and
//! `coco.split_heads` / `coco.merge_heads` (`[S, H*d] <-> [H, S, d]`). All
//! but the transpose are `linalg.generic`s whose input maps, or whose
//! `tensor.extract` indices, do the moving.

use std::fmt::Write as _;

use coco_dialects::{
    coco::ops,
    ir::{i64_array_attr, int_attr, op_name},
};
use melior::ir::{Operation, ValueLike};

use super::{
    identity_map, map, parallel,
    types::{tensor_type, KernelType},
    Computed, Emitter,
};
use crate::error::{Error, Result};

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    pub(super) fn slice(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let (shape, element, location) = (&out.shape, out.element, &out.location);
        let x = self.operand(op, 0, location)?;
        let mesh = self.group.clone();
        let result = self.placement_of(out.value.r#type());
        let source = self.placement_of(
            op.operand(0)
                .map_err(|_| Error::unsupported(location, "coco.slice without an operand"))?
                .r#type(),
        );
        if !result.0.iter().any(|l| l.is_sliced()) {
            return Err(Error::unsupported(
                location,
                "coco.slice result is not sliced",
            ));
        }
        // Along each dimension the result's blocks refine the operand's
        // (`parts` of them in each); the rank's part starts at its block
        // index modulo `parts`, times the part's size: the interpreter's
        // `sub_block`.
        let rank = shape.len();
        let mut index = String::new();
        let mut coordinates = Vec::new();
        for (d, &size_d) in shape.iter().enumerate() {
            let _ = writeln!(index, "      %gl{d} = linalg.index {d} : index");
            let (count, source_count) = (result.parts(&mesh, d), source.parts(&mesh, d));
            if count == source_count {
                coordinates.push(format!("%gl{d}"));
                continue;
            }
            if source_count == 0 || !count.is_multiple_of(source_count) {
                return Err(Error::unsupported(
                    location,
                    format!("coco.slice: dimension {d}'s {count} blocks do not refine the operand's {source_count}"),
                ));
            }
            let (lines, block) = self
                .block_index(&result, d)
                .expect("a dimension in more blocks than the operand's is sliced");
            let size = self.fresh("c");
            let offset = self.fresh("o");
            if lines.is_empty() && source_count == 1 {
                // The position times the part's size, on the host: the
                // GPU launch takes it as `rank_times`.
                self.line(&format!("{size} = arith.constant {size_d} : index"));
                self.line(&format!("{offset} = arith.muli {block}, {size} : index"));
            } else {
                // The block index modulo the parts of the operand's block
                // each rank's part is one of, in the loop body.
                index.push_str(&lines);
                let within = if source_count == 1 {
                    block
                } else {
                    let parts = self.fresh("c");
                    let within = self.fresh("w");
                    let _ = writeln!(
                        index,
                        "      {parts} = arith.constant {} : index\n      {within} = arith.remui {block}, {parts} : index",
                        count / source_count
                    );
                    within
                };
                let _ = writeln!(
                    index,
                    "      {size} = arith.constant {size_d} : index\n      {offset} = arith.muli {within}, {size} : index"
                );
            }
            let _ = writeln!(index, "      %gs{d} = arith.addi %gl{d}, {offset} : index");
            coordinates.push(format!("%gs{d}"));
        }
        // A gather rather than `tensor.extract_slice`: a subview at a
        // rank-dependent offset is a strided memref, which GPU kernels
        // cannot take as a bare pointer.
        let e = self.empty(shape, element);
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{}], iterator_types = {}}} outs({e} : {}) {{\n    ^bb0(%o: {element}):\n{index}      %v = tensor.extract {}[{}] : {}\n      linalg.yield %v : {element}\n    }} -> {}",
            out.name,
            identity_map(rank),
            parallel(rank),
            tensor_type(shape, element),
            x.name,
            coordinates.join(", "),
            x.ty(),
            tensor_type(shape, element)
        ));
        Ok(())
    }

    pub(super) fn expand(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let (shape, element) = (&out.shape, out.element);
        let x = self.operand(op, 0, &out.location)?;
        let rank = shape.len();
        // The result dimension each operand dimension becomes: `dims`, or
        // the trailing ones (NumPy-style leading broadcast).
        let placed: Vec<usize> = match i64_array_attr(op, "dims") {
            Some(dims) => dims.iter().map(|&d| d as usize).collect(),
            None => {
                if x.shape.len() > rank || shape[rank - x.shape.len()..] != x.shape[..] {
                    return Err(Error::unsupported(
                        &out.location,
                        format!(
                            "coco.expand from local shape {:?} to {:?} is not a broadcast along leading dimensions",
                            x.shape, shape
                        ),
                    ));
                }
                (rank - x.shape.len()..rank).collect()
            }
        };
        let e = self.empty(shape, element);
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{}, {}], iterator_types = {}}} ins({} : {}) outs({e} : {}) {{\n    ^bb0(%a: {element}, %b: {element}):\n      linalg.yield %a : {element}\n    }} -> {}",
            out.name,
            map(rank, &placed),
            identity_map(rank),
            parallel(rank),
            x.name,
            x.ty(),
            tensor_type(shape, element),
            tensor_type(shape, element)
        ));
        Ok(())
    }

    /// `coco.gather`: one parallel loop over the result; each element
    /// reads its index (at its position along `dim`), clamps it to the
    /// source's extent there and extracts.
    pub(super) fn gather(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let (shape, element) = (&out.shape, out.element);
        let source = self.operand(op, 0, &out.location)?;
        let indices = self.operand(op, 1, &out.location)?;
        let rank = shape.len();
        let dim = int_attr(op, "dim").unwrap_or(0) as usize;
        let rows = source.shape.get(dim).copied().unwrap_or(0);
        if rows == 0 {
            return Err(Error::unsupported(
                &out.location,
                format!("coco.gather from a tensor of extent zero along dimension {dim}"),
            ));
        }
        let e = self.empty(shape, element);
        let mut body = String::new();
        let _ = writeln!(
            body,
            "      %lo = arith.constant 0 : i64\n      %hi = arith.constant {} : i64",
            rows - 1
        );
        let _ = writeln!(body, "      %c0 = arith.maxsi %i, %lo : i64\n      %c1 = arith.minsi %c0, %hi : i64\n      %row = arith.index_cast %c1 : i64 to index");
        let mut at = Vec::new();
        for d in 0..rank {
            if d == dim {
                at.push("%row".to_string());
            } else {
                let _ = writeln!(body, "      %j{d} = linalg.index {d} : index");
                at.push(format!("%j{d}"));
            }
        }
        // `drop`: the clamped read stays in bounds, and an index outside
        // the rows keeps zero instead.
        let (keep, value) = if op.attribute("drop").is_ok() {
            (
                format!(
                    "      %in = arith.cmpi eq, %i, %c1 : i64\n      %zero = arith.constant {} : {element}\n      %w = arith.select %in, %v, %zero : {element}\n",
                    element.zero()
                ),
                "%w",
            )
        } else {
            (String::new(), "%v")
        };
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{}, {}], iterator_types = {}}} ins({} : {}) outs({e} : {}) {{\n    ^bb0(%i: i64, %o: {element}):\n{body}      %v = tensor.extract {}[{}] : {}\n{keep}      linalg.yield {value} : {element}\n    }} -> {}",
            out.name,
            map(rank, &[dim]),
            identity_map(rank),
            parallel(rank),
            indices.name,
            indices.ty(),
            tensor_type(shape, element),
            source.name,
            at.join(", "),
            source.ty(),
            tensor_type(shape, element)
        ));
        Ok(())
    }

    /// `coco.scatter_add`: a parallel loop over the result's elements with
    /// the update index as the innermost `reduction` loop, starting from
    /// `dest`: each element adds, in index order, the updates aimed at its
    /// row, as the interpreter does (and no two threads write one element).
    pub(super) fn scatter_add(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let (shape, element) = (&out.shape, out.element);
        let dest = self.operand(op, 0, &out.location)?;
        let indices = self.operand(op, 1, &out.location)?;
        let updates = self.operand(op, 2, &out.location)?;
        let rank = shape.len();
        let dim = int_attr(op, "dim").unwrap_or(0) as usize;
        let rows = shape.get(dim).copied().unwrap_or(0);
        if rows == 0 {
            return Err(Error::unsupported(
                &out.location,
                format!("coco.scatter_add into a tensor of extent zero along dimension {dim}"),
            ));
        }
        // The result's dimensions, then the update index (the innermost
        // loop), which takes `dim`'s place in `updates`.
        let loops = rank + 1;
        let update_dims: Vec<usize> = (0..rank).map(|d| if d == dim { rank } else { d }).collect();
        let add = if element.is_float() {
            "arith.addf"
        } else {
            "arith.addi"
        };
        let e = self.empty(shape, element);
        let start = self.fresh("x");
        self.line(&format!(
            "{start} = linalg.copy ins({} : {}) outs({e} : {}) -> {}",
            dest.name,
            dest.ty(),
            tensor_type(shape, element),
            tensor_type(shape, element)
        ));
        let mut kinds = vec!["parallel"; rank];
        kinds.push("reduction");
        // `drop`: an index outside the rows is never clamped onto one.
        let hit = if op.attribute("drop").is_ok() {
            "      %at = arith.cmpi eq, %row, %r : index\n      %in = arith.cmpi eq, %i, %c1 : i64\n      %hit = arith.andi %at, %in : i1\n"
        } else {
            "      %hit = arith.cmpi eq, %row, %r : index\n"
        };
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{}, {}, {}], iterator_types = {}}} ins({}, {} : {}, {}) outs({start} : {}) {{\n    ^bb0(%i: i64, %u: {element}, %acc: {element}):\n      %r = linalg.index {dim} : index\n      %lo = arith.constant 0 : i64\n      %hi = arith.constant {} : i64\n      %c0 = arith.maxsi %i, %lo : i64\n      %c1 = arith.minsi %c0, %hi : i64\n      %row = arith.index_cast %c1 : i64 to index\n{hit}      %sum = {add} %acc, %u : {element}\n      %n = arith.select %hit, %sum, %acc : {element}\n      linalg.yield %n : {element}\n    }} -> {}",
            out.name,
            map(loops, &[rank]),
            map(loops, &update_dims),
            map(loops, &(0..rank).collect::<Vec<_>>()),
            super::iterators(&kinds),
            indices.name,
            updates.name,
            indices.ty(),
            updates.ty(),
            tensor_type(shape, element),
            rows - 1,
            tensor_type(shape, element)
        ));
        Ok(())
    }

    pub(super) fn transpose(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let (shape, element) = (&out.shape, out.element);
        let x = self.operand(op, 0, &out.location)?;
        let rank = shape.len();
        let mut permutation: Vec<usize> = (0..rank).collect();
        permutation.swap(rank - 1, rank - 2);
        let e = self.empty(shape, element);
        self.line(&format!(
            "{} = linalg.transpose ins({} : {}) outs({e} : {}) permutation = [{}]",
            out.name,
            x.name,
            x.ty(),
            tensor_type(shape, element),
            permutation
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        Ok(())
    }

    /// `coco.split_heads` and `coco.merge_heads`: `[S, H*d] <-> [H, S, d]`,
    /// a reshape and a transpose in one gather.
    pub(super) fn heads(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let (shape, element) = (&out.shape, out.element);
        let name = op_name(op);
        let split = name == ops::SPLIT_HEADS;
        let x = self.operand(op, 0, &out.location)?;
        let (three, flat) = if split {
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
                &out.location,
                format!("'{name}' between local shapes {flat:?} and {three:?} is not a head split"),
            ));
        }
        let d = three[2];
        // One gather per output element, written in place: the output map
        // is the identity.
        let (rank, input_map) = if split {
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
        let e = self.empty(shape, element);
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{input_map}, {}], iterator_types = {}}} ins({} : {}) outs({e} : {}) {{\n    ^bb0(%a: {element}, %b: {element}):\n      linalg.yield %a : {element}\n    }} -> {}",
            out.name,
            identity_map(rank),
            parallel(rank),
            x.name,
            x.ty(),
            tensor_type(shape, element),
            tensor_type(shape, element)
        ));
        Ok(())
    }
}
