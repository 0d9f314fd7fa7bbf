//! Reductions for the GPU: trees, not one thread per result. Whole-tensor
//! reductions (`coco.norm`, `coco.reduce_elements` without a kept
//! dimension) and row reductions (softmax, layer norm: `tree_reduce_rows`,
//! one block per row) take two stages:
//!
//! ```text
//! partials[p] = fold(x[p], x[p + P], x[p + 2P], ...)    P threads (linalg)
//! result      = gpu.all_reduce over one block of T threads, each first
//!               folding partials[t], partials[t + T], ...
//! ```
//!
//! The first stage is a `linalg.generic` with a parallel dimension of `P`
//! partial sums, so it goes through the same tiling and mapping as every
//! other loop (64-thread blocks); consecutive threads read consecutive
//! elements, so its loads coalesce. The second is a `gpu.launch` of one
//! block whose threads fold the partials and meet in `gpu.all_reduce`,
//! which `convert-gpu-to-nvvm` lowers to warp shuffles (`shfl.sync.bfly`)
//! and a shared-memory step between warps. Thread 0 finishes (square root,
//! mean) and rounds.
//!
//! Summation order, fixed for a given size (the same bits on every run):
//! element `i` goes to partial `i mod P` in increasing `i`; thread `t` of
//! the block folds partials `t, t + T, ...`; the block's `T` values combine
//! as the all-reduce tree does (butterfly within each warp of 32, then the
//! warps' results the same way). The interpreter and the CPU kernels sum
//! in the blocked order instead (`blocked_reduction.rs`), so a GPU sum of
//! `n` terms differs from theirs by rounding only: at most `(n/P + P/T + 10) * 2^-24 * sum |x_i|` for
//! f32 accumulation (docs/bundle.md, "GPU reductions"). Min and max are
//! exact.
//!
//! The CPU keeps the interpreter's order bit for bit (`reduction.rs`,
//! `blocked_reduction.rs`).

use coco_bundle::DType;
use coco_dialects::coco::Reduction;

use super::{
    reduction::{combine, finish},
    types::{convert, memref_type, tensor_type, widen, KernelType},
    Computed, Emitter, Tensor,
};
use crate::{error::Result, ir::key};

/// The most partial results (first-stage threads).
const MAX_PARTIALS: usize = 65536;
/// Elements each first-stage thread folds, at least, once there are more
/// than a block's worth: enough loads in flight per thread to hide latency.
const PER_THREAD: usize = 16;
/// Threads of the second stage's block.
const MAX_BLOCK: usize = 1024;
/// The most threads per row of a row reduction.
const ROW_BLOCK: usize = 256;

/// `gpu.all_reduce`'s operation for folding partial results of `kind`
/// (`None`: a norm, whose partials are sums of squares) in `acc`.
fn all_reduce_op(kind: Option<Reduction>, acc: DType) -> &'static str {
    if !acc.is_float() {
        return super::reduction::IntegerFold::of(kind, acc).gpu();
    }
    match kind {
        None | Some(Reduction::Sum | Reduction::Avg) => "add",
        Some(Reduction::Prod) => "mul",
        Some(Reduction::Min) => "minnumf",
        Some(Reduction::Max) => "maxnumf",
    }
}

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    /// The GPU form of `reduce_all` (same arguments).
    pub(super) fn tree_reduce_all(
        &mut self,
        x: &Tensor,
        combine_kind: Option<Reduction>,
        finish_kind: Option<Reduction>,
        init: &str,
        out: &Computed<'c, 'a>,
    ) -> Result<()> {
        let acc = x.element.accumulator();
        let count = x.shape.iter().product::<usize>().max(1);
        let partials = (count / PER_THREAD).clamp(count.min(MAX_BLOCK), MAX_PARTIALS);
        let per_partial = count.div_ceil(partials);
        let block = partials.min(MAX_BLOCK).next_multiple_of(32);

        // Stage 1: partials[p] over x[p + c P], c < per_partial.
        let gpu = self.target.is_gpu();
        let (pm, f) = self.partials(&[partials], acc, init);
        let partial_memref = memref_type(&[partials], acc);
        let partial_tensor = tensor_type(&[partials], acc);
        let (widen_lines, xin) = widen(x.element, acc, "%a", "%x");
        let mut body = format!(
            "      %p = linalg.index 0 : index\n      %c = linalg.index 1 : index\n      %cp = arith.constant {partials} : index\n      %cn = arith.constant {count} : index\n      %zero = arith.constant 0 : index\n      %cpp = arith.muli %c, %cp : index\n      %i = arith.addi %cpp, %p : index\n      %in = arith.cmpi ult, %i, %cn : index\n      %j = arith.select %in, %i, %zero : index\n"
        );
        let (lines, indices) = delinearize("%j", &x.shape, "x");
        body.push_str(&lines);
        body.push_str(&format!(
            "      %a = tensor.extract {}[{}] : {}\n{widen_lines}{}      %m = arith.select %in, %n, %acc : {acc}\n",
            x.name,
            indices.join(", "),
            x.ty(),
            combine(combine_kind, &xin, acc),
        ));
        // Loop bounds come from operand shapes: an unread input of
        // `per_partial` elements bounds the reduction dimension.
        let bound = self.empty(&[per_partial], DType::I1);
        let bound_type = tensor_type(&[per_partial], DType::I1);
        let s = self.fresh("s");
        self.line(&format!(
            "{s} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]}} ins({bound} : {bound_type}) outs({f} : {partial_tensor}) {{\n    ^bb0(%unused: i1, %acc: {acc}):\n{body}      linalg.yield %m : {acc}\n    }} -> {partial_tensor}"
        ));
        if !gpu {
            // Stage 2 as a loop over the partials, in order.
            let fold = combine(Some(fold_kind(combine_kind)), "%v", acc);
            let f2 = self.filled(&[1], acc, init);
            let s2 = self.fresh("s");
            self.line(&format!(
                "{s2} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]}} ins({s} : {partial_tensor}) outs({f2} : tensor<1x{acc}>) {{\n    ^bb0(%v: {acc}, %acc: {acc}):\n{fold}      linalg.yield %n : {acc}\n    }} -> tensor<1x{acc}>"
            ));
            self.finish_scalar(&s2, count, finish_kind, acc, out);
            return Ok(());
        }
        self.line(&format!(
            "bufferization.materialize_in_destination {s} in restrict writable {pm} : ({partial_tensor}, {partial_memref}) -> ()"
        ));

        // Stage 2: one block folds the partials into the result.
        let element = out.element;
        let (out_memref, out_type, in_place) = match self.destinations.remove(&key(out.value)) {
            Some((param, memref)) => (param, memref, true),
            None => {
                let m = self.fresh("result");
                let ty = memref_type(&[], element);
                self.line(&format!("{m} = memref.alloc() : {ty}"));
                (m, ty, false)
            }
        };
        let one = self.fresh("c");
        let threads = self.fresh("c");
        self.line(&format!("{one} = arith.constant 1 : index"));
        self.line(&format!("{threads} = arith.constant {block} : index"));
        let ids: Vec<String> = (0..12).map(|_| self.fresh("g")).collect();
        let fold = combine(Some(fold_kind(combine_kind)), "%v", acc);
        let (finish_lines, y) = finish(finish_kind, count, acc);
        let (round, r) = convert(acc, element, y, "%r");
        self.line(&format!(
            "gpu.launch blocks({}, {}, {}) in ({} = {one}, {} = {one}, {} = {one}) threads({}, {}, {}) in ({} = {threads}, {} = {one}, {} = {one}) {{\n      %init = arith.constant {init} : {acc}\n      %np = arith.constant {partials} : index\n      %nt = arith.constant {block} : index\n      %part = scf.for %k = {} to %np step %nt iter_args(%acc = %init) -> ({acc}) {{\n        %v = memref.load {pm}[%k] : {partial_memref}\n  {fold}        scf.yield %n : {acc}\n      }}\n      %a = gpu.all_reduce {} %part uniform {{}} : ({acc}) -> ({acc})\n      %zero = arith.constant 0 : index\n      %first = arith.cmpi eq, {}, %zero : index\n      scf.if %first {{\n  {finish_lines}  {round}        memref.store {r}, {out_memref}[] : {out_type}\n      }}\n      gpu.terminator\n    }}",
            ids[0], ids[1], ids[2], ids[3], ids[4], ids[5],
            ids[6], ids[7], ids[8], ids[9], ids[10], ids[11],
            ids[6],
            all_reduce_op(combine_kind, acc),
            ids[6],
        ));
        // What later computations of the kernel read (the caller records
        // `out.name` as the value's tensor).
        self.line(&format!(
            "{} = bufferization.to_tensor {out_memref} restrict : {out_type}",
            out.name
        ));
        if in_place {
            self.written.insert(key(out.value));
        }
        Ok(())
    }
    /// Stage 2 of a row tree as a loop (the CPU's form): `partials`, a
    /// `[rows, threads]` tensor, folded along its threads in order, as a
    /// tensor of the `rows` shape.
    fn fold_rows(
        &mut self,
        partials: &str,
        rows: &[usize],
        threads: usize,
        acc: DType,
        init: &str,
        fold: Reduction,
    ) -> String {
        let row_count = rows.iter().product::<usize>().max(1);
        let fold_line = combine(Some(fold), "%v", acc);
        let f = self.filled(&[row_count], acc, init);
        let flat = self.fresh("s");
        self.line(&format!(
            "{flat} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", \"reduction\"]}} ins({partials} : {}) outs({f} : {}) {{\n    ^bb0(%v: {acc}, %acc: {acc}):\n{fold_line}      linalg.yield %n : {acc}\n    }} -> {}",
            tensor_type(&[row_count, threads], acc),
            tensor_type(&[row_count], acc),
            tensor_type(&[row_count], acc),
        ));
        if rows.len() == 1 {
            return flat;
        }
        let shaped = self.fresh("s");
        if rows.is_empty() {
            self.line(&format!(
                "{shaped} = tensor.collapse_shape {flat} [] : tensor<1x{acc}> into tensor<{acc}>"
            ));
        } else {
            let all: Vec<String> = (0..rows.len()).map(|d| d.to_string()).collect();
            let sizes: Vec<String> = rows.iter().map(|d| d.to_string()).collect();
            self.line(&format!(
                "{shaped} = tensor.expand_shape {flat} [[{}]] output_shape [{}] : {} into {}",
                all.join(", "),
                sizes.join(", "),
                tensor_type(&[row_count], acc),
                tensor_type(rows, acc),
            ));
        }
        shaped
    }

    /// The partial results' tensor, filled with `init`, and on the GPU the
    /// device temporary it lives in (`memref.alloc`, a launch scratch
    /// buffer, which the second stage's `gpu.launch` reads): (memref,
    /// filled tensor). On the CPU the tensor is an ordinary temporary and
    /// the memref's name is unused.
    fn partials(&mut self, shape: &[usize], acc: DType, init: &str) -> (String, String) {
        if !self.target.is_gpu() {
            return (String::new(), self.filled(shape, acc, init));
        }
        let pm = self.fresh("partials");
        let memref = memref_type(shape, acc);
        let tensor = tensor_type(shape, acc);
        self.line(&format!("{pm} = memref.alloc() : {memref}"));
        let pt = self.fresh("t");
        self.line(&format!(
            "{pt} = bufferization.to_tensor {pm} restrict writable : {memref}"
        ));
        let c = self.fresh("c");
        self.line(&format!("{c} = arith.constant {init} : {acc}"));
        let f = self.fresh("f");
        self.line(&format!(
            "{f} = linalg.fill ins({c} : {acc}) outs({pt} : {tensor}) -> {tensor}"
        ));
        (pm, f)
    }

    /// The GPU form of `reduce_rows` (same arguments, and `fold`, how two
    /// partial accumulations combine: `Sum` or `Max`): one block of `T`
    /// threads per row. Thread `t` folds the row's elements `t, t + T, ...`
    /// through `body` (a linalg loop over rows x threads, coalesced along
    /// the row); the block meets in `gpu.all_reduce`, and thread 0 stores
    /// the row's result.
    pub(super) fn tree_reduce_rows(
        &mut self,
        inputs: &[(&Tensor, bool)],
        acc: DType,
        init: &str,
        body: &str,
        fold: Reduction,
    ) -> String {
        let rank = inputs[0].0.shape.len();
        let kept: Vec<usize> = (0..rank - 1).collect();
        self.tree_reduce_groups(inputs, &kept, &[rank - 1], acc, init, body, fold)
    }

    /// [`Self::tree_reduce_rows`] with the row made of any dimensions:
    /// one result per index of the `kept` dimensions of the first input
    /// (a tensor of their sizes, in their order), folded over its
    /// `reduced` dimensions (row-major in their order); per-row inputs
    /// are indexed by the kept dimensions.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tree_reduce_groups(
        &mut self,
        inputs: &[(&Tensor, bool)],
        kept: &[usize],
        reduced: &[usize],
        acc: DType,
        init: &str,
        body: &str,
        fold: Reduction,
    ) -> String {
        let x = inputs[0].0;
        let rows: Vec<usize> = kept.iter().map(|&d| x.shape[d]).collect();
        let rows = &rows[..];
        let row_count = rows.iter().product::<usize>().max(1);
        let columns: Vec<usize> = reduced.iter().map(|&d| x.shape[d]).collect();
        let width = columns.iter().product::<usize>().max(1);
        let threads = width.next_multiple_of(32).min(ROW_BLOCK);
        let per_thread = width.div_ceil(threads);

        // Stage 1: partials[row][t] over the row's elements t + c T. The
        // thread index is the loop's first dimension, which the mapping
        // puts on the GPU's x, so neighbouring threads read neighbouring
        // elements of a row.
        let (pm, f) = self.partials(&[row_count, threads], acc, init);
        let partial_memref = memref_type(&[row_count, threads], acc);
        let partial_tensor = tensor_type(&[row_count, threads], acc);
        let (row_lines, row_indices) = delinearize("%tr_r", rows, "tr_row");
        let (column_lines, column_indices) = delinearize("%tr_j", &columns, "tr_col");
        // x's indices: each dimension from the row's or the column's.
        let mut element_indices = vec![String::new(); x.shape.len()];
        for (position, &d) in kept.iter().enumerate() {
            element_indices[d] = row_indices[position].clone();
        }
        for (position, &d) in reduced.iter().enumerate() {
            element_indices[d] = column_indices[position].clone();
        }
        let mut lines = format!(
            "      %tr_t = linalg.index 0 : index\n      %tr_r = linalg.index 1 : index\n      %tr_c = linalg.index 2 : index\n      %tr_threads = arith.constant {threads} : index\n      %tr_width = arith.constant {width} : index\n      %tr_zero = arith.constant 0 : index\n      %tr_ct = arith.muli %tr_c, %tr_threads : index\n      %tr_col = arith.addi %tr_ct, %tr_t : index\n      %tr_in = arith.cmpi ult, %tr_col, %tr_width : index\n      %tr_j = arith.select %tr_in, %tr_col, %tr_zero : index\n{row_lines}{column_lines}"
        );
        for (i, (t, per_row)) in inputs.iter().enumerate() {
            let indices = if *per_row {
                row_indices.clone()
            } else {
                element_indices.clone()
            };
            lines.push_str(&format!(
                "      %{} = tensor.extract {}[{}] : {}\n",
                (b'a' + i as u8) as char,
                t.name,
                indices.join(", "),
                t.ty()
            ));
        }
        let bound = self.empty(&[per_thread], DType::I1);
        let bound_type = tensor_type(&[per_thread], DType::I1);
        let s = self.fresh("s");
        self.line(&format!(
            "{s} = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d1, d0)>], iterator_types = [\"parallel\", \"parallel\", \"reduction\"]}} ins({bound} : {bound_type}) outs({f} : {partial_tensor}) {{\n    ^bb0(%unused: i1, %acc: {acc}):\n{lines}{body}      %tr_m = arith.select %tr_in, %n, %acc : {acc}\n      linalg.yield %tr_m : {acc}\n    }} -> {partial_tensor}"
        ));
        if !self.target.is_gpu() {
            return self.fold_rows(&s, rows, threads, acc, init, fold);
        }
        self.line(&format!(
            "bufferization.materialize_in_destination {s} in restrict writable {pm} : ({partial_tensor}, {partial_memref}) -> ()"
        ));

        // Stage 2: a block per row.
        let result = self.fresh("rows");
        let result_memref = memref_type(rows, acc);
        self.line(&format!("{result} = memref.alloc() : {result_memref}"));
        let one = self.fresh("c");
        let grid = self.fresh("c");
        let block = self.fresh("c");
        self.line(&format!("{one} = arith.constant 1 : index"));
        self.line(&format!("{grid} = arith.constant {row_count} : index"));
        self.line(&format!("{block} = arith.constant {threads} : index"));
        let ids: Vec<String> = (0..12).map(|_| self.fresh("g")).collect();
        let (store_lines, store_indices) = delinearize(&ids[0], rows, "tr_out");
        self.line(&format!(
            "gpu.launch blocks({}, {}, {}) in ({} = {grid}, {} = {one}, {} = {one}) threads({}, {}, {}) in ({} = {block}, {} = {one}, {} = {one}) {{\n      %v = memref.load {pm}[{}, {}] : {partial_memref}\n      %a = gpu.all_reduce {} %v uniform {{}} : ({acc}) -> ({acc})\n      %zero = arith.constant 0 : index\n      %first = arith.cmpi eq, {}, %zero : index\n      scf.if %first {{\n{store_lines}        memref.store %a, {result}[{}] : {result_memref}\n      }}\n      gpu.terminator\n    }}",
            ids[0], ids[1], ids[2], ids[3], ids[4], ids[5],
            ids[6], ids[7], ids[8], ids[9], ids[10], ids[11],
            ids[0], ids[6],
            all_reduce_op(Some(fold), acc),
            ids[6],
            store_indices.join(", "),
        ));
        let r = self.fresh("s");
        self.line(&format!(
            "{r} = bufferization.to_tensor {result} restrict : {result_memref}"
        ));
        r
    }
}

/// `flat` (an index value) as the row-major indices of `shape`: (lines,
/// index names); names start with `%{prefix}`.
fn delinearize(flat: &str, shape: &[usize], prefix: &str) -> (String, Vec<String>) {
    let mut lines = String::new();
    let mut indices = Vec::new();
    let mut rest = flat.to_string();
    for (d, &size) in shape.iter().enumerate().rev() {
        if d == 0 {
            indices.push(rest.clone());
            break;
        }
        lines.push_str(&format!(
            "      %{prefix}_size{d} = arith.constant {size} : index\n      %{prefix}_i{d} = arith.remui {rest}, %{prefix}_size{d} : index\n      %{prefix}_q{d} = arith.divui {rest}, %{prefix}_size{d} : index\n"
        ));
        indices.push(format!("%{prefix}_i{d}"));
        rest = format!("%{prefix}_q{d}");
    }
    indices.reverse();
    (lines, indices)
}

/// How partial results fold: sums of squares add.
pub(super) fn fold_kind(kind: Option<Reduction>) -> Reduction {
    match kind {
        None | Some(Reduction::Avg) => Reduction::Sum,
        Some(k) => k,
    }
}
