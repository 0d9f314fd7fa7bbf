//! Layout inference: the layout each coco op requires of its operands and
//! produces for its result. The verifier checks declared result types against
//! it; transformations use it to compute the types of the ops they create.
//! Each rule is also stated in the op's ODS description.

use std::fmt;

use super::{layout::Layout, ops, ops::Reduction};

/// A set of layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutPattern {
    Is(Layout),
    /// `#coco.sliced<d>` for any `d` (the op's result type chooses it).
    AnySliced,
    LocalOrReplicated,
}

impl LayoutPattern {
    pub fn accepts(self, layout: Layout) -> bool {
        match self {
            LayoutPattern::Is(expected) => expected == layout,
            LayoutPattern::AnySliced => layout.is_sliced(),
            LayoutPattern::LocalOrReplicated => {
                matches!(layout, Layout::Local | Layout::Replicated)
            }
        }
    }
}

impl fmt::Display for LayoutPattern {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            LayoutPattern::Is(layout) => write!(f, "{layout}"),
            LayoutPattern::AnySliced => write!(f, "#coco.sliced<d>"),
            LayoutPattern::LocalOrReplicated => write!(f, "#coco.local or #coco.replicated"),
        }
    }
}

/// The dimensions an op's layout rule reads: `dims` of `coco.expand` and
/// `coco.reduce_elements`, `[dim]` of `coco.argmax`; `None` when absent.
pub fn rule_dims(op: &melior::ir::Operation) -> Option<Vec<i64>> {
    crate::ir::i64_array_attr(op, "dims")
        .or_else(|| crate::ir::int_attr(op, "dim").map(|d| vec![d]))
}

/// What the rules need to know about an operand.
#[derive(Clone, Copy, Debug)]
pub struct Operand {
    pub layout: Layout,
    pub rank: usize,
}

/// The result layout of `op` for these operands, `Ok(None)` for ops without a
/// layout rule (regions, send/recv, update), or why the operands are not
/// acceptable. `result_rank` matters for `coco.expand`, `kind` for
/// `coco.reduce_elements`.
pub fn infer_result_layout(
    op: &str,
    operands: &[Operand],
    result_rank: usize,
    kind: Option<Reduction>,
    dims: Option<&[i64]>,
) -> Result<Option<LayoutPattern>, String> {
    use Layout::*;
    use LayoutPattern::*;
    let first = operands.first().map(|o| o.layout);
    let require = |pattern: LayoutPattern, what: &str| -> Result<Layout, String> {
        let layout = first.ok_or_else(|| "has no operand".to_string())?;
        if pattern.accepts(layout) {
            Ok(layout)
        } else {
            Err(format!("expects {what} layout {pattern}, found {layout}"))
        }
    };
    let result = match op {
        ops::ALL_REDUCE => {
            require(Is(Local), "operand")?;
            Is(Replicated)
        }
        ops::REDUCE_SCATTER => {
            require(Is(Local), "operand")?;
            AnySliced
        }
        ops::ALL_GATHER => {
            require(AnySliced, "operand")?;
            Is(Replicated)
        }
        ops::BROADCAST => {
            require(LocalOrReplicated, "operand")?;
            Is(Replicated)
        }
        ops::REDUCE => {
            require(Is(Local), "operand")?;
            Is(Local)
        }
        ops::ALL_TO_ALL => {
            require(AnySliced, "operand")?;
            AnySliced
        }
        ops::SLICE => {
            require(Is(Replicated), "operand")?;
            AnySliced
        }
        // Element-wise, no communication: the layout is kept.
        ops::DROPOUT | ops::CAST => Is(first.ok_or("has no operand")?),
        ops::MATMUL => {
            let (lhs, rhs, rank) = match operands {
                [lhs, rhs] => (lhs.layout, rhs.layout, lhs.rank),
                _ => return Err("expects two operands".into()),
            };
            let rule = if rank == 3 {
                match (lhs, rhs) {
                    (Sliced(0), Sliced(0)) => Some(Sliced(0)),
                    // Each batch contracted over its slice of the inner
                    // dimension: partial sums (an MoE's dispatch of each
                    // rank's tokens into the experts' slots).
                    (Sliced(2), Sliced(1)) => Some(Local),
                    (Sliced(_), _) | (_, Sliced(_)) => None,
                    other => matmul_result_layout(other.0, other.1),
                }
            } else {
                matmul_result_layout(lhs, rhs)
            };
            Is(rule.ok_or_else(|| {
                format!(
                    "has no layout rule for lhs {lhs} and rhs {rhs}; supported: replicated x replicated, \
                     replicated x sliced<1> (column parallel), sliced<1> x sliced<0> (row parallel, \
                     local partial sums), sliced<0> x replicated, local with local or replicated, \
                     and for batched 3-D products sliced<0> x sliced<0> (heads) and sliced<2> x sliced<1> \
                     (local partial sums)"
                )
            })?)
        }
        ops::LAYER_NORM => {
            let [input, gamma, beta] = operands else {
                return Err("expects input, gamma and beta".into());
            };
            let last = input.rank.saturating_sub(1);
            if input.layout == Sliced(last as i64) {
                return Err(format!(
                    "normalises over dimension {last}, which the input is sliced along; \
                     all_gather it first or slice another dimension"
                ));
            }
            for (what, param) in [("gamma", gamma), ("beta", beta)] {
                if param.layout != Replicated {
                    return Err(format!("expects {what} layout #coco.replicated, found {}", param.layout));
                }
            }
            Is(input.layout)
        }
        ops::NORM => match require(LocalOrReplicated, "operand") {
            Ok(layout) => Is(layout),
            Err(_) => {
                return Err(format!(
                    "cannot take the norm of a {} tensor without communication; use \
                     coco.reduce_elements sum of squares, coco.all_reduce and math.sqrt",
                    first.map_or("?".into(), |l| l.to_string())
                ))
            }
        },
        ops::REDUCE_ELEMENTS => match first {
            // Reducing other dimensions keeps the slices, renumbered.
            Some(Sliced(d)) if dims.is_some_and(|dims| !dims.contains(&d)) => {
                Is(Sliced(d - dims.map_or(0, |dims| dims.iter().filter(|&&r| r < d).count() as i64)))
            }
            Some(Sliced(_)) if kind == Some(Reduction::Avg) => {
                return Err(
                    "avg of a sliced tensor is not the average of per-slice averages; use sum, then divide"
                        .into(),
                )
            }
            // Each rank reduces its slice: a partial result.
            Some(Sliced(_)) => Is(Local),
            Some(layout) => Is(layout),
            None => return Err("has no operand".into()),
        },
        ops::GATHER => {
            let [source, indices] = operands else {
                return Err("expects a source and indices".into());
            };
            let dim = dims.and_then(|d| d.first().copied()).unwrap_or(0);
            match (source.layout, indices.layout) {
                (_, Sliced(d)) if d != 0 => {
                    return Err(format!("expects indices replicated, local or sliced<0>, found sliced<{d}>"))
                }
                (Sliced(d), _) if d == dim => {
                    return Err(format!(
                        "gathers along dimension {d}, which the source is sliced along; all_gather it first"
                    ))
                }
                (Sliced(d), Replicated) => Is(Sliced(d)),
                (Sliced(d), Sliced(_)) => {
                    return Err(format!(
                        "gathers from a source sliced along dimension {d} with sliced indices; replicate the indices"
                    ))
                }
                (Local, _) | (_, Local) => Is(Local),
                (_, Sliced(_)) => Is(Sliced(dim)),
                (_, layout) => Is(layout),
            }
        }
        ops::SCATTER_ADD => {
            let layouts: Vec<Layout> = operands.iter().map(|o| o.layout).collect();
            match layouts[..] {
                [a, b, c] if a == b && b == c && matches!(a, Local | Replicated) => Is(a),
                _ => {
                    return Err(format!(
                        "expects dest, indices and updates in one layout, #coco.local or #coco.replicated, found {}",
                        layouts.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", ")
                    ))
                }
            }
        }
        ops::CUMSUM => {
            let dim = dims.and_then(|d| d.first().copied()).unwrap_or(0);
            match first {
                Some(Sliced(d)) if d == dim => {
                    return Err(format!(
                        "sums along dimension {d}, which the input is sliced along; all_gather it first"
                    ))
                }
                Some(layout) => Is(layout),
                None => return Err("has no operand".into()),
            }
        }
        ops::ARGMAX => {
            let dim = dims.and_then(|d| d.first().copied()).unwrap_or(0);
            match first {
                Some(Sliced(d)) if d == dim => {
                    return Err(format!(
                        "compares along dimension {d}, which the input is sliced along; all_gather it first"
                    ))
                }
                Some(Sliced(d)) => Is(Sliced(if d > dim { d - 1 } else { d })),
                Some(layout) => Is(layout),
                None => return Err("has no operand".into()),
            }
        }
        ops::TRANSPOSE => {
            let input = operands.first().ok_or("has no operand")?;
            // The last two dimensions swap and each rank transposes its
            // own block: a sliced dimension moves with them, no data moves.
            Is(match (input.rank, input.layout) {
                (n @ (2 | 3), Sliced(d)) if d + 2 >= n as i64 => Sliced(2 * n as i64 - 3 - d),
                (_, Sliced(d)) if d >= 0 && (d as usize) < input.rank => Sliced(d),
                (_, Sliced(d)) => {
                    return Err(format!("is sliced along dimension {d}, beyond the operand's rank {}", input.rank))
                }
                (_, other) => other,
            })
        }
        ops::SPLIT_HEADS => Is(match require(LocalOrReplicated, "operand").or_else(|_| require(Is(Sliced(1)), "operand"))? {
            Sliced(_) => Sliced(0),
            other => other,
        }),
        ops::MERGE_HEADS => Is(match require(LocalOrReplicated, "operand").or_else(|_| require(Is(Sliced(0)), "operand"))? {
            Sliced(_) => Sliced(1),
            other => other,
        }),
        ops::SOFTMAX => {
            let input = operands.first().ok_or("has no operand")?;
            let last = input.rank.saturating_sub(1) as i64;
            if input.layout == Sliced(last) {
                return Err(format!(
                    "normalises over dimension {last}, which the input is sliced along; all_gather it first"
                ));
            }
            Is(input.layout)
        }
        ops::EXPAND => {
            let input = operands.first().ok_or("has no operand")?;
            let added = result_rank.saturating_sub(input.rank) as i64;
            Is(match (input.layout, dims) {
                // The sliced dimension goes where `dims` puts it.
                (Sliced(dim), Some(dims)) => Sliced(
                    *dims
                        .get(dim as usize)
                        .ok_or_else(|| format!("dims has no entry for sliced dimension {dim}"))?,
                ),
                (Sliced(dim), None) => Sliced(dim + added),
                (other, _) => other,
            })
        }
        _ => return Ok(None),
    };
    Ok(Some(result))
}

/// Megatron-LM's sharding rules for `[M, K] x [K, N]`; `None` when the
/// combination has no rule.
pub fn matmul_result_layout(lhs: Layout, rhs: Layout) -> Option<Layout> {
    use Layout::*;
    match (lhs, rhs) {
        (Replicated, Replicated) => Some(Replicated),
        (Replicated, Sliced(1)) => Some(Sliced(1)),
        (Sliced(1), Sliced(0)) => Some(Local),
        (Sliced(0), Replicated) => Some(Sliced(0)),
        (Local, Replicated) | (Replicated, Local) | (Local, Local) => Some(Local),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Layout::*;

    #[test]
    fn megatron_matmul_rules() {
        // Column-parallel then row-parallel: the MLP's two matmuls.
        assert_eq!(matmul_result_layout(Replicated, Sliced(1)), Some(Sliced(1)));
        assert_eq!(matmul_result_layout(Sliced(1), Sliced(0)), Some(Local));
        assert_eq!(matmul_result_layout(Sliced(0), Replicated), Some(Sliced(0)));
        assert_eq!(
            matmul_result_layout(Replicated, Replicated),
            Some(Replicated)
        );
        for local in [(Local, Replicated), (Replicated, Local), (Local, Local)] {
            assert_eq!(matmul_result_layout(local.0, local.1), Some(Local));
        }
    }

    fn operand(layout: Layout, rank: usize) -> Operand {
        Operand { layout, rank }
    }

    #[test]
    fn collectives_change_layouts_as_coconet_defines() {
        let infer = |op, layout| infer_result_layout(op, &[operand(layout, 1)], 1, None, None);
        assert_eq!(
            infer(ops::ALL_REDUCE, Local),
            Ok(Some(LayoutPattern::Is(Replicated)))
        );
        assert_eq!(
            infer(ops::REDUCE_SCATTER, Local),
            Ok(Some(LayoutPattern::AnySliced))
        );
        assert_eq!(
            infer(ops::ALL_GATHER, Sliced(0)),
            Ok(Some(LayoutPattern::Is(Replicated)))
        );
        assert_eq!(
            infer(ops::BROADCAST, Replicated),
            Ok(Some(LayoutPattern::Is(Replicated)))
        );
        assert_eq!(
            infer(ops::SLICE, Replicated),
            Ok(Some(LayoutPattern::AnySliced))
        );
        assert_eq!(
            infer(ops::ALL_REDUCE, Replicated),
            Err("expects operand layout #coco.local, found #coco.replicated".into())
        );
        assert!(infer(ops::ALL_GATHER, Local).is_err());
    }

    #[test]
    fn layer_norm_cannot_normalise_over_the_sliced_dimension() {
        let params = [operand(Replicated, 1), operand(Replicated, 1)];
        let with = |input: Layout| {
            let mut operands = vec![operand(input, 2)];
            operands.extend(params);
            infer_result_layout(ops::LAYER_NORM, &operands, 2, None, None)
        };
        assert_eq!(with(Sliced(0)), Ok(Some(LayoutPattern::Is(Sliced(0)))));
        assert!(with(Sliced(1)).unwrap_err().contains("sliced along"));
    }

    #[test]
    fn batched_matmuls_keep_heads_sliced() {
        let operands = [operand(Sliced(0), 3), operand(Sliced(0), 3)];
        assert_eq!(
            infer_result_layout(ops::MATMUL, &operands, 3, None, None),
            Ok(Some(LayoutPattern::Is(Sliced(0))))
        );
    }

    #[test]
    fn matmuls_without_a_rule_are_rejected() {
        for (lhs, rhs) in [
            (Sliced(0), Sliced(0)),
            (Sliced(1), Replicated),
            (Replicated, Sliced(0)),
            (Sliced(0), Sliced(1)),
            (Local, Sliced(1)),
        ] {
            assert_eq!(matmul_result_layout(lhs, rhs), None, "{lhs} x {rhs}");
        }
    }
}
