//! Whole-tensor float sums and products on the CPU, in the blocked order of
//! `coco_dialects::coco::summation` (the interpreter's, bit for bit):
//!
//! ```text
//! x (n elements, flattened)  ->  [blocks, ROWS, LANES] views, the last
//!                                block only the rows it fills (its last row
//!                                padded with the identity: a copy of < BLOCK)
//! partials[b, j] = fold over r of x[b, r, j]      one linalg.generic
//! partials (blocks * LANES) joined pairwise        one generic per level,
//!                                                  an odd last one carried
//! ```
//!
//! The first stage's loops are `b`, `r`, `j` with the lanes innermost and
//! independent, so `affine-super-vectorize` turns them into vector loads
//! and adds (LANES is a multiple of every x86 vector width in f32); no
//! loop-carried chain is longer than ROWS. The pairwise levels touch
//! `n / ROWS` values in all.

use coco_bundle::DType;
use coco_dialects::coco::{
    summation::{self, pairwise_levels, BLOCK, LANES, ROWS},
    Reduction,
};

use super::{
    reduction::combine,
    tree_reduction::fold_kind,
    types::{tensor_type, widen, KernelType},
    Emitter, Tensor,
};

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    /// `x`'s elements folded by `kind` (`None`: squared and summed, a
    /// norm) in the blocked order from `init`, as a `tensor<1xacc>`.
    pub(super) fn blocked_fold(
        &mut self,
        x: &Tensor,
        kind: Option<Reduction>,
        init: &str,
    ) -> String {
        let acc = x.element.accumulator();
        let n: usize = x.shape.iter().product();
        if n == 0 {
            return self.filled(&[1], acc, init);
        }
        let flat = self.flattened(x, n);
        let (full, tail) = (n / BLOCK, n % BLOCK);
        let blocks = full + usize::from(tail > 0);
        let mut partials = self.filled(&[blocks, LANES], acc, init);
        if full > 0 {
            let head = if tail == 0 {
                flat.clone()
            } else {
                self.extract_1d(&flat, n, (0, full * BLOCK, 1), x.element)
            };
            partials = self.lane_partials(&head, (full, ROWS), 0, &partials, blocks, x, kind);
        }
        if tail > 0 {
            // The last block's rows, the last one padded with the identity
            // (in the element type: it widens to the accumulator's, and its
            // square is zero) when it is short. Rows past the data would
            // only fold the identity, so there are none.
            let rows = tail.div_ceil(LANES);
            let rest = if full == 0 {
                flat.clone()
            } else {
                self.extract_1d(&flat, n, (full * BLOCK, tail, 1), x.element)
            };
            let padded = if tail == rows * LANES {
                rest
            } else {
                let pad = self.filled(&[rows * LANES], x.element, init);
                self.insert_1d(&rest, tail, &pad, rows * LANES, 0, x.element)
            };
            partials = self.lane_partials(&padded, (1, rows), full, &partials, blocks, x, kind);
        }
        let count = blocks * LANES;
        let mut values = self.fresh("s");
        self.line(&format!(
            "{values} = tensor.collapse_shape {partials} [[0, 1]] : {} into {}",
            tensor_type(&[blocks, LANES], acc),
            tensor_type(&[count], acc)
        ));
        let join = combine(Some(fold_kind(kind)), "%q", acc);
        let mut m = count;
        for next in pairwise_levels(count) {
            let pairs = m / 2;
            let a = self.extract_1d(&values, m, (0, pairs, 2), acc);
            let b = self.extract_1d(&values, m, (1, pairs, 2), acc);
            let level = self.empty(&[next], acc);
            let joined_into = if next == pairs {
                level.clone()
            } else {
                self.extract_1d(&level, next, (0, pairs, 1), acc)
            };
            let ty = tensor_type(&[pairs], acc);
            let joined = self.fresh("s");
            self.line(&format!(
                "{joined} = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}} ins({a}, {b} : {ty}, {ty}) outs({joined_into} : {ty}) {{\n    ^bb0(%acc: {acc}, %q: {acc}, %o: {acc}):\n{join}      linalg.yield %n : {acc}\n    }} -> {ty}"
            ));
            values = if next == pairs {
                joined
            } else {
                // The odd last value, carried up unchanged.
                let with_pairs = self.insert_1d(&joined, pairs, &level, next, 0, acc);
                let last = self.extract_1d(&values, m, (m - 1, 1, 1), acc);
                self.insert_1d(&last, 1, &with_pairs, next, pairs, acc)
            };
            m = next;
        }
        values
    }

    /// `len` elements of the 1-D `source` (`from` elements of `element`)
    /// from `offset`, `stride` apart.
    fn extract_1d(
        &mut self,
        source: &str,
        from: usize,
        (offset, len, stride): (usize, usize, usize),
        element: DType,
    ) -> String {
        let part = self.fresh("s");
        self.line(&format!(
            "{part} = tensor.extract_slice {source}[{offset}] [{len}] [{stride}] : {} to {}",
            tensor_type(&[from], element),
            tensor_type(&[len], element)
        ));
        part
    }

    /// The 1-D `part` (`len` elements) written into the 1-D `into` (`total`
    /// elements) from `offset`.
    fn insert_1d(
        &mut self,
        part: &str,
        len: usize,
        into: &str,
        total: usize,
        offset: usize,
        element: DType,
    ) -> String {
        let whole = self.fresh("s");
        self.line(&format!(
            "{whole} = tensor.insert_slice {part} into {into}[{offset}] [{len}] [1] : {} into {}",
            tensor_type(&[len], element),
            tensor_type(&[total], element)
        ));
        whole
    }

    /// `x` as a 1-D tensor of its `n` elements (a view).
    fn flattened(&mut self, x: &Tensor, n: usize) -> String {
        let flat_ty = tensor_type(&[n], x.element);
        let flat = self.fresh("x");
        match x.shape.len() {
            1 => return x.name.clone(),
            0 => self.line(&format!(
                "{flat} = tensor.expand_shape {} [] output_shape [1] : {} into {flat_ty}",
                x.name,
                x.ty()
            )),
            rank => self.line(&format!(
                "{flat} = tensor.collapse_shape {} [[{}]] : {} into {flat_ty}",
                x.name,
                (0..rank)
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                x.ty()
            )),
        }
        flat
    }

    /// The lane partials of `count` blocks of `rows` rows each (`source`,
    /// `count * rows * LANES` elements), written into rows `first ..` of
    /// `partials` (`[blocks, LANES]`): the updated `partials`.
    #[allow(clippy::too_many_arguments)]
    fn lane_partials(
        &mut self,
        source: &str,
        (count, rows): (usize, usize),
        first: usize,
        partials: &str,
        blocks: usize,
        x: &Tensor,
        kind: Option<Reduction>,
    ) -> String {
        let acc = x.element.accumulator();
        let view = [count, rows, LANES];
        let cube = self.fresh("x");
        self.line(&format!(
            "{cube} = tensor.expand_shape {source} [[0, 1, 2]] output_shape [{count}, {rows}, {LANES}] : {} into {}",
            tensor_type(&[count * rows * LANES], x.element),
            tensor_type(&view, x.element)
        ));
        let whole = count == blocks;
        let rows_ty = tensor_type(&[count, LANES], acc);
        let all_ty = tensor_type(&[blocks, LANES], acc);
        let into = if whole {
            partials.to_string()
        } else {
            let part = self.fresh("s");
            self.line(&format!(
                "{part} = tensor.extract_slice {partials}[{first}, 0] [{count}, {LANES}] [1, 1] : {all_ty} to {rows_ty}"
            ));
            part
        };
        let (widen, xin) = widen(x.element, acc, "%a", "%x");
        let folded = self.fresh("s");
        self.line(&format!(
            "{folded} = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = [\"parallel\", \"reduction\", \"parallel\"]}} ins({cube} : {}) outs({into} : {rows_ty}) {{\n    ^bb0(%a: {}, %acc: {acc}):\n{widen}{}      linalg.yield %n : {acc}\n    }} -> {rows_ty}",
            tensor_type(&view, x.element),
            x.element,
            combine(kind, &xin, acc),
        ));
        if whole {
            return folded;
        }
        let updated = self.fresh("s");
        self.line(&format!(
            "{updated} = tensor.insert_slice {folded} into {partials}[{first}, 0] [{count}, {LANES}] [1, 1] : {rows_ty} into {all_ty}"
        ));
        updated
    }
}

/// Whether a whole-tensor fold of `kind` over `acc` takes the blocked order
/// (`summation::is_blocked` for floats; integer folds wrap, the same in any
/// order, and keep index order).
pub(super) fn is_blocked(kind: Option<Reduction>, acc: DType) -> bool {
    acc.is_float() && summation::is_blocked(kind)
}
