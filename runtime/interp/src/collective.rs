//! Collective semantics over the ranks of a group. Reductions fold the ranks'
//! values in rank order (rank 0 first) and round after every step, which
//! fixes the floating-point association that differential tests compare.

use coco_dialects::coco::{ops, Layout, Reduction};

use crate::{
    error::{Error, Result},
    exec::PerRank,
    integer,
    tensor::{DType, Data, Tensor},
};

pub fn is_collective(name: &str) -> bool {
    matches!(
        name,
        ops::ALL_REDUCE
            | ops::REDUCE_SCATTER
            | ops::ALL_GATHER
            | ops::BROADCAST
            | ops::REDUCE
            | ops::ALL_TO_ALL
    )
}

/// Combines two float values with `kind` (avg sums; the caller divides);
/// integers combine with [`integer::combine`].
pub fn combine(kind: Reduction, a: f64, b: f64) -> f64 {
    match kind {
        Reduction::Sum | Reduction::Avg => a + b,
        Reduction::Prod => a * b,
        Reduction::Min => a.min(b),
        Reduction::Max => a.max(b),
    }
}

/// The element-wise reduction of every rank's tensor, in rank order.
pub fn reduce_ranks(values: &[Tensor], kind: Reduction) -> Tensor {
    let mut acc = values[0].clone();
    let dtype = acc.dtype;
    let count = values.len();
    match &mut acc.data {
        Data::Float(acc) => {
            for value in &values[1..] {
                let Data::Float(value) = &value.data else {
                    unreachable!("one value has one element kind on every rank")
                };
                for (a, &b) in acc.iter_mut().zip(value) {
                    *a = dtype.round(combine(kind, *a, b));
                }
            }
            if kind == Reduction::Avg {
                for a in acc.iter_mut() {
                    *a = dtype.round(*a / count as f64);
                }
            }
        }
        Data::Int(acc) => {
            for value in &values[1..] {
                let Data::Int(value) = &value.data else {
                    unreachable!("one value has one element kind on every rank")
                };
                for (a, &b) in acc.iter_mut().zip(value) {
                    *a = integer::combine(dtype, kind, *a, b);
                }
            }
            if kind == Reduction::Avg {
                for a in acc.iter_mut() {
                    *a = integer::average(dtype, *a, count);
                }
            }
        }
    }
    acc
}

fn sliced_dim(layout: Option<Layout>, what: &str, location: &str) -> Result<usize> {
    match layout {
        Some(Layout::Sliced(dim)) => Ok(dim as usize),
        other => Err(Error::Program(format!(
            "{location}: {what} is {other:?}, expected a sliced layout"
        ))),
    }
}

/// Runs collective `name` over `input` (one tensor per rank).
#[allow(clippy::too_many_arguments)]
pub fn run(
    name: &str,
    input: &PerRank,
    kind: Option<Reduction>,
    root: Option<usize>,
    input_layout: Option<Layout>,
    result_layout: Option<Layout>,
    (dtype, _shape): (DType, Vec<usize>),
    location: &str,
) -> Result<PerRank> {
    let group = input.len();
    let kind = kind.unwrap_or(Reduction::Sum);
    let check_root = |root: Option<usize>| -> Result<usize> {
        let root = root.unwrap_or(0);
        if root >= group {
            return Err(Error::Program(format!(
                "{location}: root {root} is not a rank of a group of {group}"
            )));
        }
        Ok(root)
    };
    let out = match name {
        ops::ALL_REDUCE => vec![reduce_ranks(input, kind); group],
        ops::REDUCE_SCATTER => {
            let dim = sliced_dim(result_layout, "the result", location)?;
            let full = reduce_ranks(input, kind);
            (0..group).map(|r| full.slice(dim, group, r)).collect()
        }
        ops::ALL_GATHER => {
            let dim = sliced_dim(input_layout, "the operand", location)?;
            vec![Tensor::concat(input, dim); group]
        }
        ops::BROADCAST => {
            let root = check_root(root)?;
            vec![input[root].clone(); group]
        }
        ops::REDUCE => {
            let root = check_root(root)?;
            let reduced = reduce_ranks(input, kind);
            let mut out = input.clone();
            out[root] = reduced;
            out
        }
        ops::ALL_TO_ALL => {
            let from = sliced_dim(input_layout, "the operand", location)?;
            let to = sliced_dim(result_layout, "the result", location)?;
            let full = Tensor::concat(input, from);
            (0..group).map(|r| full.slice(to, group, r)).collect()
        }
        other => {
            return Err(Error::Program(format!(
                "{location}: '{other}' is not a collective"
            )))
        }
    };
    debug_assert!(out.iter().all(|t| t.dtype == dtype));
    Ok(out)
}
