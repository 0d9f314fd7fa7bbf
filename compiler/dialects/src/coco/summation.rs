//! The order in which a whole-tensor float `coco.norm` or
//! `coco.reduce_elements` (sum, avg, prod, without `dims`) combines its
//! elements: the one order that the reference interpreter and the CPU
//! kernels share, bit for bit.
//!
//! ```text
//! the elements in index order, in blocks of BLOCK = ROWS x LANES = 4096:
//!   lane j of block b folds x[BLOCK*b + LANES*r + j], r = 0, 1, ..., ROWS-1,
//!     from the operator's identity, rounding after each step
//!   the partials p[LANES*b + j] then combine pairwise, level by level:
//!     p'[i] = p[2i] (+) p[2i + 1], an odd last one carried up unchanged,
//!     until one value is left
//! ```
//!
//! Why this order: an index-order sum of `n` same-sign terms loses up to
//! `n/2` ulp (7.0e-5 relative for a mean of 294,912 squares in f32); here
//! each lane's chain is at most `ROWS` long and the tree `log2(n / ROWS)`
//! deep, so the error bound is `(ROWS + log2(n/ROWS))` ulp and the typical
//! error that of numpy's pairwise sum (3.0e-8 for the same mean;
//! docs/benchmarks.md, "Blocked-order reductions"). And the lanes are independent: a kernel's first stage is a
//! loop over rows around a loop over `LANES` adjacent elements, which
//! vectorises for every x86 vector width (4, 8 or 16 f32 lanes).
//!
//! The last block may be short. Its missing elements are skipped, which is
//! the same as padding with the identity, as the kernels do: a sum that
//! starts from +0.0 is never -0.0, so adding +0.0 changes nothing, and
//! `x * 1 = x`. Min and max are exact in any order (NaN skipped) and keep
//! index order; so do integer folds, which wrap, and reductions along
//! `dims`, whose rows are short.

use super::Reduction;

/// Whether a whole-tensor float fold of `kind` (`None`: a norm's sum of
/// squares) takes the blocked order: sums, averages and products do; min
/// and max keep index order, which gives the same value.
pub fn is_blocked(kind: Option<Reduction>) -> bool {
    !matches!(kind, Some(Reduction::Min | Reduction::Max))
}

/// Adjacent elements folded side by side (one per lane).
pub const LANES: usize = 16;
/// Elements each lane folds in one block.
pub const ROWS: usize = 256;
/// Elements per block.
pub const BLOCK: usize = ROWS * LANES;

/// The `len` elements (`element(i)` for `i` in index order) in the blocked
/// order: `fold(acc, x)` takes one element into a lane, starting from
/// `identity`; `join(a, b)` combines two partial results. Both round.
pub fn blocked_fold(
    len: usize,
    element: impl Fn(usize) -> f64,
    identity: f64,
    fold: impl Fn(f64, f64) -> f64,
    join: impl Fn(f64, f64) -> f64,
) -> f64 {
    let blocks = len.div_ceil(BLOCK);
    let mut partials = vec![identity; blocks * LANES];
    for (b, block) in partials.chunks_mut(LANES).enumerate() {
        for r in 0..ROWS {
            for (j, acc) in block.iter_mut().enumerate() {
                let i = BLOCK * b + LANES * r + j;
                if i < len {
                    *acc = fold(*acc, element(i));
                }
            }
        }
    }
    pairwise(partials, join).unwrap_or(identity)
}

/// `values` joined pairwise, level by level, an odd last value carried up:
/// `None` for no values.
pub fn pairwise(mut values: Vec<f64>, join: impl Fn(f64, f64) -> f64) -> Option<f64> {
    while values.len() > 1 {
        values = values
            .chunks(2)
            .map(|pair| match *pair {
                [a, b] => join(a, b),
                [a] => a,
                _ => unreachable!("chunks of two"),
            })
            .collect();
    }
    values.pop()
}

/// The levels of [`pairwise`] over `count` values: the count after each
/// level, from the first (`ceil(count / 2)`) down to 1.
pub fn pairwise_levels(count: usize) -> Vec<usize> {
    let mut levels = Vec::new();
    let mut m = count;
    while m > 1 {
        m = m.div_ceil(2);
        levels.push(m);
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(values: &[f64]) -> f64 {
        blocked_fold(values.len(), |i| values[i], 0.0, |a, x| a + x, |a, b| a + b)
    }

    #[test]
    fn short_inputs_fold_each_lane_then_pair_the_lanes() {
        assert_eq!(sum(&[]), 0.0);
        assert_eq!(sum(&[3.0]), 3.0);
        // Lanes 0..4 hold one element each: ((1 + 2) + (3 + 4)) + 0s.
        assert_eq!(sum(&[1.0, 2.0, 3.0, 4.0]), 10.0);
        // Element 16 goes back to lane 0, after element 0.
        let mut v = vec![0.0; 17];
        v[0] = 1e16;
        v[16] = 1.0;
        v[1] = -1e16;
        // lane 0: 1e16 + 1 rounds to 1e16; lane 1: -1e16; joined: 0.
        assert_eq!(sum(&v), 0.0);
    }

    #[test]
    fn the_tree_carries_an_odd_last_partial_up() {
        // Two blocks plus one element: 48 partials, levels 24, 12, 6, 3, 2, 1.
        assert_eq!(pairwise_levels(48), vec![24, 12, 6, 3, 2, 1]);
        assert_eq!(pairwise(vec![1.0, 2.0, 4.0], |a, b| a + b), Some(7.0));
        assert_eq!(pairwise_levels(1), Vec::<usize>::new());
        let n = 2 * BLOCK + 1;
        let values: Vec<f64> = (0..n).map(|i| i as f64).collect();
        assert_eq!(sum(&values), (n * (n - 1) / 2) as f64);
    }

    #[test]
    fn f32_sums_round_like_a_pairwise_sum() {
        // 2^20 values of 0.1 in f32, the worst case (every rounding the
        // same way): index order drifts 1e-2 off, blocked 2.4e-6 (each
        // lane's 256 steps; the doublings of the tree are exact).
        let round = |x: f64| x as f32 as f64;
        let n = 1 << 20;
        let x = round(0.1);
        let blocked = blocked_fold(n, |_| x, 0.0, |a, v| round(a + v), |a, b| round(a + b));
        let sequential = (0..n).fold(0.0, |a, _| round(a + x));
        let exact = x * n as f64;
        assert!(((blocked - exact) / exact).abs() < 1e-5);
        assert!(((sequential - exact) / exact).abs() > 1e-3);
    }
}
