//! Pure helpers on dense row-major byte arrays: slicing and concatenating
//! along a dimension (what distributing inputs, gathering outputs and the
//! dimension-aware collectives need), and folding ranks' values with the
//! reference interpreter's numerics. No MPI here, so all of it is unit
//! tested in-process.
//!
//! A tensor of shape `S` seen along dimension `d` is `outer` blocks (the
//! product of `S[..d]`) of `S[d]` rows of `inner` elements (the product of
//! `S[d+1..]`). Part `q` of `P` along `d` is rows `q*S[d]/P ..` of every
//! block, so it is contiguous only when `outer == 1`: MPI moves contiguous
//! rank-major parts, and these helpers reshuffle between the two orders.

use coco_bundle::{DType, Reduction};

/// `(outer, rows, inner)` of `shape` along `dim`.
fn split(shape: &[usize], dim: usize) -> (usize, usize, usize) {
    (
        shape[..dim].iter().product(),
        shape[dim],
        shape[dim + 1..].iter().product(),
    )
}

/// Whether the parts along `dim` are contiguous (no reshuffle needed).
pub fn parts_contiguous(shape: &[usize], dim: usize) -> bool {
    shape[..dim].iter().product::<usize>() == 1
}

/// Part `index` of `parts` equal parts along `dim` of `data` (shape
/// `shape`, `elem` bytes per element), appended to `out`.
pub fn slice_into(
    data: &[u8],
    shape: &[usize],
    elem: usize,
    dim: usize,
    parts: usize,
    index: usize,
    out: &mut Vec<u8>,
) {
    let (outer, rows, inner) = split(shape, dim);
    let part_rows = rows / parts;
    let chunk = part_rows * inner * elem;
    for o in 0..outer {
        let start = (o * rows + index * part_rows) * inner * elem;
        out.extend_from_slice(&data[start..start + chunk]);
    }
}

/// Part `index` of `parts` along `dim`.
pub fn slice(
    data: &[u8],
    shape: &[usize],
    elem: usize,
    dim: usize,
    parts: usize,
    index: usize,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / parts.max(1));
    slice_into(data, shape, elem, dim, parts, index, &mut out);
    out
}

/// Every part along `dim`, part-major: what to hand MPI so that part r goes
/// to (or comes from) rank r.
pub fn pack_parts(data: &[u8], shape: &[usize], elem: usize, dim: usize, parts: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    for q in 0..parts {
        slice_into(data, shape, elem, dim, parts, q, &mut out);
    }
    out
}

/// The concatenation along `dim` of the parts stored part-major in
/// `packed` (each of shape `part_shape`), written to `out`: the inverse of
/// [`pack_parts`].
pub fn concat_parts(
    packed: &[u8],
    part_shape: &[usize],
    elem: usize,
    dim: usize,
    parts: usize,
    out: &mut [u8],
) {
    let (outer, rows, inner) = split(part_shape, dim);
    let chunk = rows * inner * elem;
    let part_bytes = outer * chunk;
    debug_assert_eq!(packed.len(), part_bytes * parts);
    debug_assert_eq!(out.len(), packed.len());
    let mut at = 0;
    for o in 0..outer {
        for q in 0..parts {
            let start = q * part_bytes + o * chunk;
            out[at..at + chunk].copy_from_slice(&packed[start..start + chunk]);
            at += chunk;
        }
    }
}

/// Copies one rank's block of a tensor of shape `global` (`elem` bytes per
/// element) between the whole tensor and the block: `blocks[d]` is
/// `(count, index)`, block `index` of `count` equal ones along dimension
/// `d`. `to_block` reads the block out of `whole` into `block`; otherwise
/// writes `block` into its place in `whole`. A block is contiguous only
/// along its last dimension, so rows of that many elements move at a time.
pub fn copy_block(
    whole: &mut [u8],
    global: &[usize],
    blocks: &[(usize, usize)],
    elem: usize,
    block: &mut [u8],
    to_block: bool,
) {
    let local: Vec<usize> = global
        .iter()
        .zip(blocks)
        .map(|(&n, &(count, _))| n / count.max(1))
        .collect();
    let dims = global.len();
    if dims == 0 {
        if to_block {
            block.copy_from_slice(&whole[..elem]);
        } else {
            whole[..elem].copy_from_slice(&block[..elem]);
        }
        return;
    }
    let row = local[dims - 1] * elem;
    let rows: usize = local[..dims - 1].iter().product();
    let mut at = vec![0usize; dims - 1];
    for r in 0..rows {
        // The row's first element in the whole tensor, row-major.
        let mut start = 0;
        for d in 0..dims {
            let within = if d < dims - 1 { at[d] } else { 0 };
            start = start * global[d] + blocks[d].1 * local[d] + within;
        }
        let start = start * elem;
        let part = &mut block[r * row..(r + 1) * row];
        if to_block {
            part.copy_from_slice(&whole[start..start + row]);
        } else {
            whole[start..start + row].copy_from_slice(part);
        }
        for d in (0..dims - 1).rev() {
            at[d] += 1;
            if at[d] < local[d] {
                break;
            }
            at[d] = 0;
        }
    }
}

/// Two values combined by `reduction` (avg sums; [`divide`] finishes it).
fn combine(reduction: Reduction, a: f64, b: f64) -> f64 {
    match reduction {
        Reduction::Sum | Reduction::Avg => a + b,
        Reduction::Prod => a * b,
        Reduction::Min => a.min(b),
        Reduction::Max => a.max(b),
    }
}

/// The reduction of `parts` (one per rank, in rank order, equal lengths)
/// into `out`: rank 0's value combined with rank 1's, rounded to `dtype`,
/// then with rank 2's, and so on; `avg` then divides by the number of parts
/// and rounds once. This is the interpreter's `reduce_ranks`, bit for bit.
pub fn fold(dtype: DType, reduction: Reduction, parts: &[&[u8]], out: &mut [u8]) {
    let n = out.len() / dtype.size();
    if matches!(dtype, DType::I64 | DType::I32) {
        // Integers exactly, wrapping at their width (as MPI's integer
        // reductions and the interpreter's do); never through f64.
        for i in 0..n {
            let mut acc = dtype.load_int(parts[0], i);
            for part in &parts[1..] {
                let b = dtype.load_int(part, i);
                acc = match reduction {
                    Reduction::Sum | Reduction::Avg => acc.wrapping_add(b),
                    Reduction::Prod => acc.wrapping_mul(b),
                    Reduction::Min => acc.min(b),
                    Reduction::Max => acc.max(b),
                };
                if dtype == DType::I32 {
                    acc = i64::from(acc as i32);
                }
            }
            if reduction == Reduction::Avg {
                acc /= parts.len() as i64;
            }
            dtype.write_int(acc, out, i);
        }
        return;
    }
    for i in 0..n {
        let mut acc = dtype.load(parts[0], i);
        for part in &parts[1..] {
            acc = dtype.round(combine(reduction, acc, dtype.load(part, i)));
        }
        if reduction == Reduction::Avg {
            acc = dtype.round(acc / parts.len() as f64);
        }
        dtype.write(acc, out, i);
    }
}

/// Finishes an `avg` that MPI summed: every element divided by `count`,
/// rounded.
pub fn divide(dtype: DType, data: &mut [u8], count: usize) {
    // The common types without the generic per-element conversion (an
    // avg all-reduce divides every element of a large buffer); dividing in
    // f64 and rounding once is the correctly rounded quotient.
    if count == 1 {
        return;
    }
    // Dividing by a power of two is exact before the final rounding, so
    // multiplying by its exact reciprocal in the element type gives the
    // same correctly rounded quotient, without a division per element.
    if count.is_power_of_two() && matches!(dtype, DType::F32 | DType::F64) {
        let scale = 1.0 / count as f64;
        if dtype == DType::F32 {
            for chunk in data.chunks_exact_mut(4) {
                let x = f32::from_le_bytes(chunk.try_into().expect("4 bytes"));
                chunk.copy_from_slice(&(x * scale as f32).to_le_bytes());
            }
        } else {
            for chunk in data.chunks_exact_mut(8) {
                let x = f64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                chunk.copy_from_slice(&(x * scale).to_le_bytes());
            }
        }
        return;
    }
    match dtype {
        DType::F32 => {
            for chunk in data.chunks_exact_mut(4) {
                let x = f32::from_le_bytes(chunk.try_into().expect("4 bytes"));
                chunk.copy_from_slice(&((f64::from(x) / count as f64) as f32).to_le_bytes());
            }
            return;
        }
        DType::F64 => {
            for chunk in data.chunks_exact_mut(8) {
                let x = f64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                chunk.copy_from_slice(&(x / count as f64).to_le_bytes());
            }
            return;
        }
        _ => {}
    }
    if matches!(dtype, DType::I64 | DType::I32) {
        // Rounded toward zero, exactly (the interpreter's integer avg).
        for i in 0..data.len() / dtype.size() {
            let x = dtype.load_int(data, i) / count as i64;
            dtype.write_int(x, data, i);
        }
        return;
    }
    for i in 0..data.len() / dtype.size() {
        let x = dtype.round(dtype.load(data, i) / count as f64);
        dtype.write(x, data, i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(values: &[i32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn ints(data: &[u8]) -> Vec<i32> {
        data.chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn power_of_two_averages_equal_the_divided_ones_bitwise() {
        // Normal, subnormal, huge, signed zero, inf and NaN f32 values.
        let mut values: Vec<f32> = vec![
            0.0,
            -0.0,
            1.0,
            -3.5,
            f32::MAX,
            f32::MIN_POSITIVE,
            1e-45,
            3e-45,
            7e-39,
            f32::INFINITY,
            f32::NAN,
        ];
        values.extend((0..4096u32).map(|i| f32::from_bits(i.wrapping_mul(0x9E37_79B9))));
        let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        for count in [2usize, 4, 8, 1024] {
            let mut fast = data.clone();
            divide(DType::F32, &mut fast, count);
            for (chunk, &x) in fast.chunks_exact(4).zip(&values) {
                let got = f32::from_le_bytes(chunk.try_into().unwrap());
                let want = (f64::from(x) / count as f64) as f32;
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "{x} / {count}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn slices_pack_and_concat() {
        // [[0 1 2 3] [4 5 6 7]] along dim 1 in 2 parts.
        let data = bytes(&[0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(ints(&slice(&data, &[2, 4], 4, 1, 2, 1)), [2, 3, 6, 7]);
        assert_eq!(ints(&slice(&data, &[2, 4], 4, 0, 2, 1)), [4, 5, 6, 7]);
        let packed = pack_parts(&data, &[2, 4], 4, 1, 2);
        assert_eq!(ints(&packed), [0, 1, 4, 5, 2, 3, 6, 7]);
        let mut out = vec![0; data.len()];
        concat_parts(&packed, &[2, 2], 4, 1, 2, &mut out);
        assert_eq!(out, data);
        assert!(parts_contiguous(&[1, 4], 1));
        assert!(!parts_contiguous(&[2, 4], 1));
    }

    #[test]
    fn blocks_are_cut_and_placed_along_several_dimensions() {
        // [[0 1 2 3] [4 5 6 7] [8 9 10 11] [12 13 14 15]] in 2 x 2 blocks.
        let mut whole = bytes(&(0..16).collect::<Vec<_>>());
        let blocks = [(2, 1), (2, 0)];
        let mut block = vec![0; 16];
        copy_block(&mut whole, &[4, 4], &blocks, 4, &mut block, true);
        assert_eq!(ints(&block), [8, 9, 12, 13]);
        // Only dimension 1 cut: rows 0..4, columns 2..4.
        let mut block = vec![0; 32];
        copy_block(&mut whole, &[4, 4], &[(1, 0), (2, 1)], 4, &mut block, true);
        assert_eq!(ints(&block), [2, 3, 6, 7, 10, 11, 14, 15]);
        let mut empty = vec![0; 64];
        copy_block(&mut empty, &[4, 4], &[(1, 0), (2, 1)], 4, &mut block, false);
        assert_eq!(ints(&empty)[2..4], [2, 3]);
        assert_eq!(ints(&empty)[14..16], [14, 15]);
        assert_eq!(ints(&empty)[0..2], [0, 0]);
    }

    #[test]
    fn folds_in_rank_order_with_rounding() {
        let f16 = |x: f64| half::f16::from_f64(x).to_le_bytes().to_vec();
        // 2048 + 1 rounds back to 2048 in f16 (ties to even), twice, while
        // (1 + 1) + 2048 = 2050 is exact: the order is visible.
        let parts = [f16(2048.0), f16(1.0), f16(1.0)];
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let mut out = vec![0; 2];
        fold(DType::F16, Reduction::Sum, &refs, &mut out);
        assert_eq!(DType::F16.load(&out, 0), 2048.0);
        fold(DType::F16, Reduction::Avg, &refs, &mut out);
        assert_eq!(DType::F16.load(&out, 0), DType::F16.round(2048.0 / 3.0));

        let parts = [bytes(&[i32::MAX, 5]), bytes(&[1, -7])];
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let mut out = vec![0; 8];
        fold(DType::I32, Reduction::Sum, &refs, &mut out);
        assert_eq!(ints(&out), [i32::MIN, -2]);
        fold(DType::I32, Reduction::Min, &refs, &mut out);
        assert_eq!(ints(&out), [1, -7]);

        // i64 beyond 2^53 stays exact.
        let big = |v: i64| v.to_le_bytes().to_vec();
        let parts = [big((1 << 53) + 1), big(2)];
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let mut out = vec![0; 8];
        fold(DType::I64, Reduction::Sum, &refs, &mut out);
        assert_eq!(DType::I64.load_int(&out, 0), (1 << 53) + 3);
        let mut data = big((1 << 60) + 1);
        divide(DType::I64, &mut data, 1);
        assert_eq!(DType::I64.load_int(&data, 0), (1 << 60) + 1);

        let mut data = bytes(&[7, -7]);
        divide(DType::I32, &mut data, 2);
        assert_eq!(ints(&data), [3, -3]);

        let parts = [vec![1u8, 0], vec![1u8, 0]];
        let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        let mut out = vec![9; 2];
        fold(DType::I1, Reduction::Sum, &refs, &mut out);
        assert_eq!(out, [1, 0]);
    }
}
