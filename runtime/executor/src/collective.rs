//! The plan's collectives on host memory, over MPI, with the reference
//! interpreter's semantics (`runtime/interp/src/collective.rs`):
//!
//! - reductions fold the ranks' values in rank order, rounding to the
//!   element type after each step; `avg` sums, then divides once and
//!   rounds;
//! - `reduce_scatter` leaves part r (along `dim`) of the reduction on rank
//!   r; `all_gather` concatenates every rank's input along `dim`;
//! - `reduce` writes the reduction into the root's output, and a copy of
//!   their input into the other ranks' outputs: the interpreter's "non-root
//!   ranks keep their input", which is what the lowering relies on (it gives
//!   `coco.reduce` a fresh output buffer). plan.rs words it as "other
//!   ranks' output is unchanged"; the two agree only when the output is the
//!   input, so the interpreter, being the reference, wins;
//! - `all_to_all` splits the input along `split_dim`, sends part r to rank
//!   r and concatenates the parts received, in rank order, along
//!   `concat_dim`.
//!
//! Two ways to reduce. MPI's own reductions (`MPI_Allreduce`,
//! `MPI_Reduce_scatter_block`, `MPI_Reduce`) are the fast path, used for
//! f32, f64, i32 and i64. They are exact for integers (wrapping sums,
//! products, min and max do not depend on the order) and for float min and
//! max, but MPI does not promise to associate float sums in rank order
//! (OpenMPI's recursive doubling adds (r0 + r1) + (r2 + r3)), so on three
//! or more ranks f32/f64 sums may differ from the interpreter in the last
//! bit. MPI has no f16, bf16 or i1 arithmetic at all. Those, and every float
//! reduction when [`Reductions::Exact`] is asked for, take the exact path:
//! the ranks exchange the parts they reduce (`MPI_Alltoallv`, so each rank
//! receives only its share), each folds its share in rank order, and the
//! results are gathered back. Memory per rank stays proportional to the
//! buffer, and every rank gets identical bits.
//!
//! The CUDA backend implements the same operations with NCCL on device
//! memory, with these reshuffles as strided copies (`cuda::routes`, tested
//! against `layout`); its reductions associate as NCCL chooses.
//!
//! Inputs and outputs are byte slices the caller guarantees do not overlap.

use coco_bundle::{DType, Reduction};

use crate::{
    comm::{reduces_natively, Comm},
    error::Result,
    layout,
    limits::zeroed,
};

/// How float reductions are computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reductions {
    /// MPI's native reductions where MPI has the type (f32, f64, i32,
    /// i64); rank-order folding for f16, bf16 and i1.
    #[default]
    Native,
    /// Rank-order folding for every float type too: bitwise equal to the
    /// reference interpreter on any number of ranks, at the cost of an
    /// exchange instead of MPI's tuned reduction.
    Exact,
}

impl Reductions {
    fn fold(self, dtype: DType) -> bool {
        !reduces_natively(dtype) || (self == Reductions::Exact && dtype.is_float())
    }
}

/// `n` elements split as evenly as possible into `parts` contiguous chunks.
fn chunks(n: usize, parts: usize) -> Vec<usize> {
    (0..parts)
        .map(|q| n / parts + usize::from(q < n % parts))
        .collect()
}

/// Folds the rank-major `received` (one equal part per rank) into `out`.
fn fold_received(dtype: DType, reduction: Reduction, received: &[u8], out: &mut [u8]) {
    let part = out.len();
    let parts: Vec<&[u8]> = if part == 0 {
        Vec::new()
    } else {
        received.chunks(part).collect()
    };
    if !parts.is_empty() {
        layout::fold(dtype, reduction, &parts, out);
    }
}

pub fn all_reduce(
    comm: &Comm,
    how: Reductions,
    dtype: DType,
    reduction: Reduction,
    input: &[u8],
    output: &mut [u8],
) -> Result<()> {
    let size = comm.size();
    let elem = dtype.size();
    if size == 1 {
        // Any reduction of one value is that value (avg divides by 1).
        output.copy_from_slice(input);
        return Ok(());
    }
    if !how.fold(dtype) {
        comm.all_reduce_native(dtype, reduction, input, output)?;
        if reduction == Reduction::Avg {
            layout::divide(dtype, output, size);
        }
        return Ok(());
    }
    // Reduce-scatter by exchange, fold, all-gather: rank q folds chunk q.
    let n = input.len() / elem;
    let shares = chunks(n, size);
    let mine = shares[comm.rank()];
    let mut received = zeroed(mine * size * elem, "the parts to reduce")?;
    comm.all_to_all_v(elem, input, &shares, &mut received, &vec![mine; size])?;
    let mut folded = zeroed(mine * elem, "the reduced part")?;
    fold_received(dtype, reduction, &received, &mut folded);
    comm.all_gather_v(elem, &folded, &shares, output)
}

/// `input` has shape `shape`; `output` is its part `rank` along `dim`.
#[allow(clippy::too_many_arguments)]
pub fn reduce_scatter(
    comm: &Comm,
    how: Reductions,
    dtype: DType,
    reduction: Reduction,
    input: &[u8],
    shape: &[usize],
    dim: usize,
    output: &mut [u8],
) -> Result<()> {
    let size = comm.size();
    let elem = dtype.size();
    if size == 1 {
        // One rank's part is all of it, reduced with nothing: a copy (MPI
        // with a division by 1 cost 72 ms per step for 64 MB).
        output.copy_from_slice(input);
        return Ok(());
    }
    let packed;
    let send = if layout::parts_contiguous(shape, dim) {
        input
    } else {
        packed = layout::pack_parts(input, shape, elem, dim, size);
        &packed
    };
    if !how.fold(dtype) {
        comm.reduce_scatter_native(dtype, reduction, send, output)?;
        if reduction == Reduction::Avg {
            layout::divide(dtype, output, size);
        }
        return Ok(());
    }
    let part = output.len() / elem;
    let mut received = zeroed(output.len() * size, "the parts to reduce")?;
    comm.all_to_all_v(
        elem,
        send,
        &vec![part; size],
        &mut received,
        &vec![part; size],
    )?;
    fold_received(dtype, reduction, &received, output);
    Ok(())
}

/// `input` has shape `shape`; `output` is every rank's input concatenated
/// along `dim`.
pub fn all_gather(
    comm: &Comm,
    elem: usize,
    input: &[u8],
    shape: &[usize],
    dim: usize,
    output: &mut [u8],
) -> Result<()> {
    if layout::parts_contiguous(shape, dim) {
        // Rank-major is already the concatenation.
        return comm.all_gather(elem, input, output);
    }
    let mut gathered = zeroed(output.len(), "the gathered parts")?;
    comm.all_gather(elem, input, &mut gathered)?;
    layout::concat_parts(&gathered, shape, elem, dim, comm.size(), output);
    Ok(())
}

/// `output` on every rank is `input` on `root` (`input` is only read there).
pub fn broadcast(
    comm: &Comm,
    elem: usize,
    input: &[u8],
    output: &mut [u8],
    root: usize,
) -> Result<()> {
    if comm.rank() == root {
        output.copy_from_slice(input);
    }
    comm.broadcast(elem, output, root)
}

/// The reduction lands in `output` on `root`; elsewhere `output` becomes a
/// copy of `input` (see the module documentation).
pub fn reduce(
    comm: &Comm,
    how: Reductions,
    dtype: DType,
    reduction: Reduction,
    input: &[u8],
    output: &mut [u8],
    root: usize,
) -> Result<()> {
    let size = comm.size();
    let elem = dtype.size();
    let on_root = comm.rank() == root;
    if !how.fold(dtype) {
        let out: &mut [u8] = if on_root { output } else { &mut [] };
        comm.reduce_native(dtype, reduction, input, out, root)?;
        if on_root && reduction == Reduction::Avg {
            layout::divide(dtype, out, size);
        }
    } else {
        let mut gathered = if on_root {
            zeroed(input.len() * size, "the gathered parts")?
        } else {
            Vec::new()
        };
        comm.gather(elem, input, &mut gathered, root)?;
        if on_root {
            fold_received(dtype, reduction, &gathered, output);
        }
    }
    if !on_root {
        output.copy_from_slice(input);
    }
    Ok(())
}

/// `input` has shape `shape`: split along `split_dim`, part r to rank r; the
/// parts received concatenated along `concat_dim` into `output`.
pub fn all_to_all(
    comm: &Comm,
    elem: usize,
    input: &[u8],
    shape: &[usize],
    split_dim: usize,
    concat_dim: usize,
    output: &mut [u8],
) -> Result<()> {
    let size = comm.size();
    let packed;
    let send = if layout::parts_contiguous(shape, split_dim) {
        input
    } else {
        packed = layout::pack_parts(input, shape, elem, split_dim, size);
        &packed
    };
    let mut part_shape = shape.to_vec();
    part_shape[split_dim] /= size;
    let part = input.len() / elem / size;
    let counts = vec![part; size];
    if layout::parts_contiguous(&part_shape, concat_dim) {
        return comm.all_to_all_v(elem, send, &counts, output, &counts);
    }
    let mut received = zeroed(output.len(), "the received parts")?;
    comm.all_to_all_v(elem, send, &counts, &mut received, &counts)?;
    layout::concat_parts(&received, &part_shape, elem, concat_dim, size, output);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_everything() {
        assert_eq!(chunks(10, 4), [3, 3, 2, 2]);
        assert_eq!(chunks(2, 4), [1, 1, 0, 0]);
        assert_eq!(chunks(0, 3), [0, 0, 0]);
    }
}
