//! coco computations on one rank's local data.
//!
//! Precision follows GPU practice: matmul, layer_norm, norm and
//! reduce_elements accumulate in f32 for f16/bf16/f32 inputs (f64 for f64),
//! rounding after each step, and round the result to the element type once.
//! Whole-tensor float sums and products (norm, reduce_elements without
//! `dims`) combine in the blocked order of
//! [`coco_dialects::coco::summation`]; everything else accumulates in index
//! order. Integer matmuls and reductions compute at the element width,
//! wrapping ([`crate::integer`]).

use coco_dialects::{
    coco::{
        ops,
        summation::{self, blocked_fold},
        Reduction,
    },
    ir::{float_attr, i64_array_attr, int_attr},
};
use melior::ir::Operation;

use crate::{
    collective::combine,
    error::{Error, Result},
    integer, rng,
    tensor::{DType, Data, Scalar, Tensor},
};

/// What an op needs to know about where it runs and what it produces.
pub struct Context<'o, 'c> {
    pub op: &'o Operation<'c>,
    pub name: &'o str,
    /// Element type and local shape of the (first) result.
    pub dtype: DType,
    pub shape: &'o [usize],
    /// Which block of the global result this rank holds, per dimension:
    /// `(blocks, index)` (`(1, 0)` where the dimension is whole).
    pub blocks: &'o [(usize, usize)],
    /// The same for the first operand (what `coco.slice` cuts its block
    /// from).
    pub operand_blocks: &'o [(usize, usize)],
    pub location: &'o str,
}

/// The part of `global` that blocks `blocks` select.
pub fn block_of(global: &Tensor, blocks: &[(usize, usize)]) -> Tensor {
    blocks
        .iter()
        .enumerate()
        .fold(global.clone(), |t, (d, &(count, index))| {
            if count > 1 {
                t.slice(d, count, index)
            } else {
                t
            }
        })
}

/// The type accumulations are carried out in.
pub fn accumulator(dtype: DType) -> DType {
    if dtype == DType::F64 {
        DType::F64
    } else {
        DType::F32
    }
}

/// The float elements of `x`; the computations that exist only for
/// floats (norms, softmax, layer norm, dropout) say so for integers.
fn floats<'t>(cx: &Context, x: &'t Tensor) -> Result<&'t [f64]> {
    match &x.data {
        Data::Float(v) => Ok(v),
        Data::Int(_) => Err(Error::Unsupported {
            location: cx.location.to_string(),
            op: cx.name.to_string(),
            detail: format!(" (on {} elements: it needs floats)", x.dtype),
        }),
    }
}

/// A float result of `cx`'s type and `shape`.
fn float_tensor(cx: &Context, shape: Vec<usize>, data: Vec<f64>) -> Tensor {
    Tensor {
        dtype: cx.dtype,
        shape,
        data: Data::Float(data),
    }
}

/// Runs a coco computation; `Ok(None)` when `name` is not one.
pub fn run(cx: &Context, inputs: &[&Tensor]) -> Result<Option<Tensor>> {
    let out = match cx.name {
        ops::MATMUL => matmul(cx, inputs[0], inputs[1])?,
        ops::DROPOUT => dropout(cx, inputs[0])?,
        ops::LAYER_NORM => layer_norm(cx, inputs[0], inputs[1], inputs[2])?,
        ops::NORM => {
            let acc = accumulator(inputs[0].dtype);
            let x = floats(cx, inputs[0])?;
            let sum = blocked_fold(
                x.len(),
                |i| x[i],
                0.0,
                |s, x| acc.round(s + acc.round(x * x)),
                |a, b| acc.round(a + b),
            );
            Tensor::filled(cx.dtype, Vec::new(), Scalar::Float(acc.round(sum.sqrt())))
        }
        ops::REDUCE_ELEMENTS => reduce_elements(cx, inputs[0]),
        ops::ARGMAX => argmax(cx, inputs[0]),
        ops::CUMSUM => cumsum(cx, inputs[0]),
        ops::GATHER => gather(cx, inputs[0], inputs[1]),
        ops::SCATTER_ADD => scatter_add(cx, inputs[0], inputs[1], inputs[2]),
        ops::CAST => inputs[0].cast(cx.dtype),
        ops::SLICE => match sub_block(cx) {
            Some(parts) => block_of(inputs[0], &parts),
            None => {
                return Err(Error::Program(format!(
                    "{}: coco.slice: the result's block does not lie in the operand's (a dimension sliced over an outer axis after an inner one)",
                    cx.location
                )))
            }
        },
        ops::EXPAND => expand(cx, inputs[0]),
        ops::TRANSPOSE => transpose(cx, inputs[0]),
        ops::SPLIT_HEADS => heads(cx, inputs[0], true),
        ops::MERGE_HEADS => heads(cx, inputs[0], false),
        ops::SOFTMAX => softmax(cx, inputs[0])?,
        _ => return Ok(None),
    };
    Ok(Some(out))
}

/// The tensor reduced along `dims` (all of them without the attribute):
/// floats in the accumulation type, integers at their width. A whole-tensor
/// float sum, average or product folds in the blocked order, everything
/// else in index order.
fn reduce_elements(cx: &Context, x: &Tensor) -> Tensor {
    let kind = int_attr(cx.op, "kind")
        .and_then(Reduction::from_value)
        .unwrap_or(Reduction::Sum);
    let dims: Vec<usize> = match i64_array_attr(cx.op, "dims") {
        Some(dims) => dims.iter().map(|&d| d as usize).collect(),
        None => (0..x.shape.len()).collect(),
    };
    if dims.len() == x.shape.len() {
        if let Some(value) = blocked_whole(kind, x) {
            return Tensor::from_scalars(cx.dtype, cx.shape.to_vec(), vec![value]);
        }
    }
    let values: Vec<Scalar> = along(&x.shape, &dims)
        .into_iter()
        .map(|group| fold(kind, x, &group))
        .collect();
    Tensor::from_scalars(cx.dtype, cx.shape.to_vec(), values)
}

/// A float sum, average or product of every element of `x`, in the
/// blocked order; `None` for the folds that keep index order.
fn blocked_whole(kind: Reduction, x: &Tensor) -> Option<Scalar> {
    let Data::Float(data) = &x.data else {
        return None;
    };
    if !summation::is_blocked(Some(kind)) {
        return None;
    }
    let acc = accumulator(x.dtype);
    let identity = if kind == Reduction::Prod { 1.0 } else { 0.0 };
    let step = |a, b| acc.round(combine(kind, a, b));
    let mut value = blocked_fold(data.len(), |i| data[i], identity, step, step);
    if kind == Reduction::Avg && !data.is_empty() {
        value = acc.round(value / data.len() as f64);
    }
    Some(Scalar::Float(value))
}

/// For each element of `shape` without `dims` (row-major), the flat
/// indices of the elements that reduce into it, in index order (row-major
/// over `dims`).
fn along(shape: &[usize], dims: &[usize]) -> Vec<Vec<usize>> {
    let strides = Tensor::strides(shape);
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !dims.contains(d)).collect();
    let walk = |axes: &[usize]| -> Vec<usize> {
        // Flat offsets of every coordinate over `axes`, row-major.
        let mut offsets = vec![0usize];
        for &axis in axes {
            let (size, stride) = (shape[axis], strides[axis]);
            offsets = offsets
                .iter()
                .flat_map(|&o| (0..size).map(move |i| o + i * stride))
                .collect();
        }
        offsets
    };
    let inner = walk(dims);
    walk(&kept)
        .into_iter()
        .map(|base| inner.iter().map(|&o| base + o).collect())
        .collect()
}

/// The elements of `x` at `indices` combined by `kind` in order, in the
/// accumulation type. Floats fold from the operator's identity (0, 1, +-inf),
/// as the kernels do: a sum of -0.0s is +0.0, and a max of NaNs is -inf
/// (max and min skip NaN, as `arith.maxnumf` does). Integers fold from the
/// first element, which is the same at any width.
fn fold(kind: Reduction, x: &Tensor, indices: &[usize]) -> Scalar {
    match &x.data {
        Data::Float(data) => {
            let acc = accumulator(x.dtype);
            let mut value = match kind {
                Reduction::Sum | Reduction::Avg => 0.0,
                Reduction::Prod => 1.0,
                Reduction::Min => f64::INFINITY,
                Reduction::Max => f64::NEG_INFINITY,
            };
            for &i in indices {
                value = acc.round(combine(kind, value, data[i]));
            }
            if kind == Reduction::Avg && !indices.is_empty() {
                value = acc.round(value / indices.len() as f64);
            }
            Scalar::Float(value)
        }
        Data::Int(data) => {
            let mut value = indices.first().map_or(0, |&i| data[i]);
            for &i in indices.iter().skip(1) {
                value = integer::combine(x.dtype, kind, value, data[i]);
            }
            if kind == Reduction::Avg && !indices.is_empty() {
                value = integer::average(x.dtype, value, indices.len());
            }
            Scalar::Int(value)
        }
    }
}

/// The running sum along `dim`, from zero in index order, rounded to the
/// element type after each addition (integers wrap).
fn cumsum(cx: &Context, x: &Tensor) -> Tensor {
    let dim = int_attr(cx.op, "dim").unwrap_or(0) as usize;
    let len = x.shape.get(dim).copied().unwrap_or(1);
    let inner: usize = x.shape.iter().skip(dim + 1).product();
    let outer = x.len() / (len * inner).max(1);
    let mut out = x.clone();
    for o in 0..outer {
        for k in 0..inner {
            let at = |i: usize| (o * len + i) * inner + k;
            match (&mut out.data, &x.data) {
                (Data::Float(out), Data::Float(x)) => {
                    let mut acc = 0.0;
                    for i in 0..len {
                        acc = cx.dtype.round(acc + x[at(i)]);
                        out[at(i)] = acc;
                    }
                }
                (Data::Int(out), Data::Int(x)) => {
                    let mut acc = 0;
                    for i in 0..len {
                        acc = integer::combine(cx.dtype, Reduction::Sum, acc, x[at(i)]);
                        out[at(i)] = acc;
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// `shape` split around dimension `dim` (`dim` attribute, 0 without it):
/// `(elements before it, its size, elements after it)`, row-major.
fn around_dim(cx: &Context, shape: &[usize]) -> (usize, usize, usize) {
    let dim = int_attr(cx.op, "dim").unwrap_or(0) as usize;
    let outer = shape[..dim].iter().product();
    let inner = shape[dim + 1..].iter().product();
    (outer, shape[dim], inner)
}

/// The index `index` picks along a dimension of `size`: clamped into it,
/// or `None` with `drop` when it lies outside.
fn picked(index: i64, size: usize, drop: bool) -> Option<usize> {
    if drop && (index < 0 || index >= size as i64) {
        return None;
    }
    Some(index.clamp(0, size as i64 - 1) as usize)
}

/// Slice `indices[i]` of `source` along `dim`, clamped into it (or, with
/// `drop`, zeros for an index outside it), for every `i`: `numpy.take`.
fn gather(cx: &Context, source: &Tensor, indices: &Tensor) -> Tensor {
    let (outer, size, inner) = around_dim(cx, &source.shape);
    let drop = cx.op.attribute("drop").is_ok();
    if size == 0 {
        return Tensor::filled(cx.dtype, cx.shape.to_vec(), Scalar::Int(0));
    }
    let rows: Vec<Option<usize>> = indices
        .scalars()
        .map(|i| picked(i.to_int(DType::I64), size, drop))
        .collect();
    // One zero past the source's elements for dropped slices to read.
    let zero = source.len();
    let picked = (0..outer).flat_map(|o| {
        rows.iter().flat_map(move |row| {
            (0..inner).map(move |k| match row {
                Some(row) => (o * size + row) * inner + k,
                None => zero,
            })
        })
    });
    let padded = Tensor::concat(
        &[
            Tensor {
                dtype: source.dtype,
                shape: vec![source.len()],
                data: source.data.clone(),
            },
            Tensor::filled(source.dtype, vec![1], Scalar::Int(0)),
        ],
        0,
    );
    Tensor {
        dtype: cx.dtype,
        shape: cx.shape.to_vec(),
        data: padded.data.gather(picked.collect::<Vec<_>>()),
    }
}

/// `dest` with slice `i` of `updates` added to slice `indices[i]` along
/// `dim` (clamped, or with `drop` skipped when outside), for `i` in order,
/// rounding after each addition: `numpy.add.at`.
fn scatter_add(cx: &Context, dest: &Tensor, indices: &Tensor, updates: &Tensor) -> Tensor {
    let mut out = dest.clone();
    let (outer, size, inner) = around_dim(cx, &dest.shape);
    let count = indices.len();
    let drop = cx.op.attribute("drop").is_ok();
    if size == 0 {
        return out;
    }
    for (i, index) in indices.scalars().enumerate() {
        let Some(row) = picked(index.to_int(DType::I64), size, drop) else {
            continue;
        };
        for (o, k) in (0..outer).flat_map(|o| (0..inner).map(move |k| (o, k))) {
            let (at, from) = ((o * size + row) * inner + k, (o * count + i) * inner + k);
            match (&mut out.data, &updates.data) {
                (Data::Float(o), Data::Float(u)) => o[at] = dest.dtype.round(o[at] + u[from]),
                (Data::Int(o), Data::Int(u)) => {
                    o[at] = integer::combine(dest.dtype, Reduction::Sum, o[at], u[from])
                }
                _ => {}
            }
        }
    }
    out
}

/// The index of the first largest element along `dim`: a scan from -inf
/// (integers: the type's minimum) that moves on strictly greater values,
/// so NaNs are never chosen and a row with nothing above -inf gives 0.
fn argmax(cx: &Context, x: &Tensor) -> Tensor {
    let dim = int_attr(cx.op, "dim").unwrap_or(0) as usize;
    let indices: Vec<Scalar> = along(&x.shape, &[dim])
        .into_iter()
        .map(|row| {
            let mut best = 0usize;
            match &x.data {
                Data::Float(d) => {
                    let mut top = f64::NEG_INFINITY;
                    for (position, &i) in row.iter().enumerate() {
                        if d[i] > top {
                            (best, top) = (position, d[i]);
                        }
                    }
                }
                Data::Int(d) => {
                    let mut top = i64::MIN;
                    for (position, &i) in row.iter().enumerate() {
                        if d[i] > top {
                            (best, top) = (position, d[i]);
                        }
                    }
                }
            }
            Scalar::Int(best as i64)
        })
        .collect();
    Tensor::from_scalars(cx.dtype, cx.shape.to_vec(), indices)
}

/// `[M, K] x [K, N]`, or batched `[B, M, K] x [B, K, N]`. Every output
/// element sums its products in order p = 0, 1, ..., k - 1: floats in the
/// accumulation type, integers wrapping at their width (as the kernels'
/// `linalg.matmul` accumulates them).
fn matmul(cx: &Context, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let rank = a.shape.len();
    let batch = if rank == 3 { a.shape[0] } else { 1 };
    let dims = (a.shape[rank - 2], a.shape[rank - 1], b.shape[rank - 1]);
    let shape = if rank == 3 {
        vec![batch, dims.0, dims.2]
    } else {
        vec![dims.0, dims.2]
    };
    let data = match (&a.data, &b.data) {
        (Data::Int(x), Data::Int(y)) => {
            let dtype = cx.dtype;
            Data::Int(products(x, y, batch, dims, 0, |sum, a, b| {
                integer::wrap(dtype, sum.wrapping_add(a.wrapping_mul(b)))
            }))
        }
        (Data::Float(x), Data::Float(y)) => {
            let acc = accumulator(cx.dtype);
            let mut data = products(x, y, batch, dims, 0.0, |sum, a, b| {
                acc.round(sum + acc.round(a * b))
            });
            data.iter_mut().for_each(|x| *x = cx.dtype.round(*x));
            Data::Float(data)
        }
        _ => {
            return Err(Error::Program(format!(
                "{}: coco.matmul of {} and {}",
                cx.location, a.dtype, b.dtype
            )))
        }
    };
    Ok(Tensor {
        dtype: cx.dtype,
        shape,
        data,
    })
}

/// The `batch` products of `m x k` and `k x n` row-major matrices, each
/// output element folded by `step(sum, a, b)` from `zero` in order of `p`.
fn products<T: Copy>(
    lhs: &[T],
    rhs: &[T],
    batch: usize,
    (m, k, n): (usize, usize, usize),
    zero: T,
    step: impl Fn(T, T, T) -> T,
) -> Vec<T> {
    let mut data = vec![zero; batch * m * n];
    for t in 0..batch {
        let lhs = &lhs[t * m * k..(t + 1) * m * k];
        let rhs = &rhs[t * k * n..(t + 1) * k * n];
        // Row by row, so `rhs` is read along its rows.
        for i in 0..m {
            let sums = &mut data[t * m * n + i * n..t * m * n + (i + 1) * n];
            for p in 0..k {
                let a = lhs[i * k + p];
                let row = &rhs[p * n..(p + 1) * n];
                for (sum, &b) in sums.iter_mut().zip(row) {
                    *sum = step(*sum, a, b);
                }
            }
        }
    }
    data
}

/// Swaps the last two dimensions.
fn transpose(cx: &Context, x: &Tensor) -> Tensor {
    let n = x.shape.len();
    let (rows, cols) = (x.shape[n - 2], x.shape[n - 1]);
    let batch = x.len() / (rows * cols).max(1);
    let sources = (0..batch).flat_map(|t| {
        (0..cols).flat_map(move |j| (0..rows).map(move |i| t * rows * cols + i * cols + j))
    });
    let mut shape = x.shape.clone();
    shape.swap(n - 1, n - 2);
    Tensor {
        dtype: cx.dtype,
        shape,
        data: x.data.gather(sources),
    }
}

/// `[S, heads * d]` <-> `[heads, S, d]` on local parts (`split` chooses the
/// direction); the 3-D shape says how many heads this rank holds.
fn heads(cx: &Context, x: &Tensor, split: bool) -> Tensor {
    let three = if split { cx.shape } else { &x.shape[..] };
    let (count, rows, d) = (three[0], three[1], three[2]);
    let width = count * d;
    let mut sources = vec![0; x.len()];
    for h in 0..count {
        for s in 0..rows {
            for j in 0..d {
                let (flat, stacked) = (s * width + h * d + j, (h * rows + s) * d + j);
                if split {
                    sources[stacked] = flat;
                } else {
                    sources[flat] = stacked;
                }
            }
        }
    }
    Tensor {
        dtype: cx.dtype,
        shape: cx.shape.to_vec(),
        data: x.data.gather(sources),
    }
}

/// Where the result's block lies inside the first operand's, per
/// dimension, as `(parts, index)` of the operand's block; `None` when it
/// does not lie inside it (the verifier refuses such a slice).
fn sub_block(cx: &Context) -> Option<Vec<(usize, usize)>> {
    cx.blocks
        .iter()
        .zip(cx.operand_blocks)
        .map(|(&(count, index), &(in_count, in_index))| {
            // Global blocks: the result's is 1/count, the operand's 1/in_count.
            if count % in_count != 0 {
                return None;
            }
            let parts = count / in_count;
            (index / parts == in_index).then_some((parts, index % parts))
        })
        .collect()
}

/// The global linear index of each local element, so that per-element
/// randomness is independent of how the tensor is distributed.
fn global_indices(cx: &Context, local: &[usize]) -> Vec<u64> {
    let global: Vec<usize> = local
        .iter()
        .zip(cx.blocks)
        .map(|(l, (count, _))| l * count)
        .collect();
    let offset: Vec<usize> = local
        .iter()
        .zip(cx.blocks)
        .map(|(l, (_, index))| l * index)
        .collect();
    let strides = Tensor::strides(&global);
    let count: usize = local.iter().product();
    let mut out = Vec::with_capacity(count);
    let mut coords = vec![0usize; local.len()];
    for _ in 0..count {
        let index: usize = coords
            .iter()
            .zip(&offset)
            .zip(&strides)
            .map(|((c, o), s)| (c + o) * s)
            .sum();
        out.push(index as u64);
        for d in (0..coords.len()).rev() {
            coords[d] += 1;
            if coords[d] < local[d] {
                break;
            }
            coords[d] = 0;
        }
    }
    out
}

fn dropout(cx: &Context, x: &Tensor) -> Result<Tensor> {
    let prob = float_attr(cx.op, "prob").unwrap_or(0.0);
    let seed = int_attr(cx.op, "seed").unwrap_or(0) as u64;
    let scale = cx.dtype.round(1.0 / (1.0 - prob));
    let key = rng::key(&[seed]);
    let data = global_indices(cx, &x.shape)
        .into_iter()
        .zip(floats(cx, x)?)
        .map(|(index, &v)| {
            if rng::uniform(key, index) < prob {
                0.0
            } else {
                cx.dtype.round(v * scale)
            }
        })
        .collect();
    Ok(float_tensor(cx, x.shape.clone(), data))
}

fn layer_norm(cx: &Context, x: &Tensor, gamma: &Tensor, beta: &Tensor) -> Result<Tensor> {
    let (gamma, beta) = (floats(cx, gamma)?, floats(cx, beta)?);
    let eps = float_attr(cx.op, "epsilon").unwrap_or(1e-5);
    let acc = accumulator(cx.dtype);
    let width = *x.shape.last().unwrap_or(&1);
    let mut data = Vec::with_capacity(x.len());
    for row in floats(cx, x)?.chunks(width.max(1)) {
        let sum = row.iter().fold(0.0, |s, &v| acc.round(s + v));
        let mean = acc.round(sum / width as f64);
        let var_sum = row.iter().fold(0.0, |s, &v| {
            let d = acc.round(v - mean);
            acc.round(s + acc.round(d * d))
        });
        let var = acc.round(var_sum / width as f64);
        let inv = acc.round(1.0 / acc.round(acc.round(var + acc.round(eps)).sqrt()));
        for (i, &v) in row.iter().enumerate() {
            let normed = acc.round(acc.round(v - mean) * inv);
            data.push(cx.dtype.round(acc.round(normed * gamma[i]) + beta[i]));
        }
    }
    Ok(float_tensor(cx, x.shape.clone(), data))
}

/// Per row: `exp(x - max) / sum(exp(x - max))`, in the accumulation type.
fn softmax(cx: &Context, x: &Tensor) -> Result<Tensor> {
    let acc = accumulator(cx.dtype);
    let width = (*x.shape.last().unwrap_or(&1)).max(1);
    let mut data = Vec::with_capacity(x.len());
    for row in floats(cx, x)?.chunks(width) {
        let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let exps: Vec<f64> = row
            .iter()
            .map(|&v| acc.round(acc.round(v - max).exp()))
            .collect();
        let sum = exps.iter().fold(0.0, |s, &e| acc.round(s + e));
        data.extend(exps.iter().map(|&e| cx.dtype.round(acc.round(e / sum))));
    }
    Ok(float_tensor(cx, x.shape.clone(), data))
}

fn expand(cx: &Context, x: &Tensor) -> Tensor {
    if let Some(dims) = i64_array_attr(cx.op, "dims") {
        // Each result element reads the operand at its coordinates in `dims`.
        let out_strides = Tensor::strides(cx.shape);
        let in_strides = Tensor::strides(&x.shape);
        let len: usize = cx.shape.iter().product();
        let index = |flat: usize| {
            dims.iter()
                .zip(&in_strides)
                .map(|(&d, &stride)| {
                    (flat / out_strides[d as usize]) % cx.shape[d as usize] * stride
                })
                .sum::<usize>()
        };
        return Tensor {
            dtype: cx.dtype,
            shape: cx.shape.to_vec(),
            data: x.data.gather((0..len).map(index)),
        };
    }
    let repeat = if x.is_empty() {
        0
    } else {
        cx.shape.iter().product::<usize>() / x.len()
    };
    Tensor {
        dtype: cx.dtype,
        shape: cx.shape.to_vec(),
        data: x.data.gather((0..repeat).flat_map(|_| 0..x.len())),
    }
}
