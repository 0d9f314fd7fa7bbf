//! What the compiler knows about an op from its name, in one table: its
//! class, whether it is element-wise, what `coco-fuse` may group it with,
//! the tile `coco-tile` gives it and its cost class in the autotuner's
//! model. The verifier, the passes and the lowering look ops up here
//! ([`facts`]) instead of keeping lists of their own, so a new op is one row
//! of [`OP_FACTS`] (docs/architecture.md, "Add an op, end to end").
//!
//! Rows name the coco ops (every op of `CocoOps.td`, a unit test checks),
//! the upstream ops coco programs use by name (`arith.constant`,
//! `tensor.splat`, `func.return`) and two whole upstream dialects, `arith.*`
//! and `math.*`: any op of theirs is an element-wise computation, which the
//! interpreter and the kernel emitter both take as it is. A row for an exact
//! name wins over its dialect's row; a name with neither gets [`UNKNOWN`].

use super::ops;

/// What an op is, as the verifier, the autotuner and the partitioner tell
/// ops apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Computes without communicating: a coco compute op or an upstream
    /// element-wise op ([`ops::is_computation`]).
    Computation,
    /// A computation that reads nothing from a buffer: a constant, or a
    /// `tensor.splat` of a scalar. The lowering rematerialises it in every
    /// kernel that uses it instead of storing it.
    Constant,
    /// Communicates between ranks: a collective, `coco.send` or `coco.recv`
    /// ([`ops::is_collective`]).
    Communication,
    /// A region the lowering runs as one unit: a fused kernel, a fused
    /// collective, an overlap.
    Region,
    /// Program structure: process groups, state updates, terminators.
    Structure,
    /// An op the table does not know: no computation, no communication.
    Unknown,
}

/// Whether an op computes each element of its result from the same
/// element of its operands (what `coco-reorder` moves onto slices), and
/// which kernel computes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elementwise {
    No,
    /// An upstream `arith`/`math` op: one op in the body of the element-wise
    /// kernel's `linalg.generic`; on builtin scalars, scalar arithmetic that
    /// every kernel reading it recomputes (the lowering's
    /// `is_scalar_arithmetic`).
    Upstream,
    /// A coco op on tensors that the element-wise kernel's body computes
    /// (`coco.cast`, a conversion per element).
    Coco,
    /// Element-wise, but a kernel of its own computes it (`coco.dropout`,
    /// whose mask comes from the counter-based generator).
    OwnKernel,
}

impl Elementwise {
    /// Computes each result element from the same operand elements.
    pub fn is_elementwise(self) -> bool {
        self != Elementwise::No
    }

    /// Computed in the body of the element-wise kernel's `linalg.generic`.
    pub fn in_generic(self) -> bool {
        matches!(self, Elementwise::Upstream | Elementwise::Coco)
    }
}

/// Which groups `coco-fuse` may put an op in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fusion {
    Never,
    /// In a fused collective only as a computation on its slices: never
    /// pulled in for only feeding one, never in a fused kernel. A GEMM
    /// library call of its own, which stays visible to `coco-overlap`
    /// (`coco.matmul`).
    SlicesOnly,
    /// In fused collectives, but no part of a fused kernel's run (a
    /// constant, which every kernel rematerialises anyway).
    CollectivesOnly,
    /// In fused collectives and fused kernels.
    Anywhere,
}

impl Fusion {
    /// Joins a fused collective as a computation on its slices.
    pub fn on_slices(self) -> bool {
        self != Fusion::Never
    }

    /// Joins a fused collective as a computation that only feeds it.
    pub fn feeding_collective(self) -> bool {
        matches!(self, Fusion::CollectivesOnly | Fusion::Anywhere)
    }

    /// Joins runs of computations that become fused kernels.
    pub fn in_kernels(self) -> bool {
        self == Fusion::Anywhere
    }
}

/// The `coco.tile` that `coco-tile` attaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tile {
    None,
    /// `[rows, cols]`, an output tile of a matmul.
    Matmul,
    /// A 1-D block over the result's flattened elements.
    Block,
}

/// The autotuner's cost class (`autotune/cost.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cost {
    /// Nothing at run time: constants are materialised at compile time,
    /// slicing a replicated tensor is an offset view, structure is no work.
    Free,
    /// Alpha-beta: latency and bytes over links, moved as [`Traffic`] says.
    Collective(Traffic),
    /// What the ops of its region cost.
    Region,
    /// Roofline with 2·m·n·k flops.
    Matmul,
    /// Roofline with 8 flops per result element.
    LayerNorm,
    /// Roofline with 2 flops per operand element (norms, reductions).
    Reduction,
    /// Roofline with one flop per result element; also any op the table
    /// does not know.
    PerElement,
}

/// How NCCL moves a collective's bytes (`CostModel::collective_parts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Traffic {
    /// A ring (reduce_scatter + all_gather) or a double binary tree,
    /// whichever is cheaper.
    AllReduce,
    /// One ring half inside a node, two levels across nodes.
    ScatterLike,
    /// A tree from or to a root.
    Rooted,
    /// One message.
    PointToPoint,
}

/// The facts about one op name (or, `dialect.*`, every op of a dialect).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpFacts {
    pub name: &'static str,
    pub class: Class,
    pub elementwise: Elementwise,
    pub fusion: Fusion,
    pub tile: Tile,
    pub cost: Cost,
}

const fn op(
    name: &'static str,
    class: Class,
    elementwise: Elementwise,
    fusion: Fusion,
    tile: Tile,
    cost: Cost,
) -> OpFacts {
    OpFacts {
        name,
        class,
        elementwise,
        fusion,
        tile,
        cost,
    }
}

/// What a name without a row is.
pub const UNKNOWN: OpFacts = op(
    "",
    Class::Unknown,
    Elementwise::No,
    Fusion::Never,
    Tile::None,
    Cost::PerElement,
);

use Class as K;
use Cost as C;
use Elementwise as E;
use Fusion as F;
use Traffic as T;

/// Every op the compiler knows by name. Add a row with a new op.
#[rustfmt::skip]
pub const OP_FACTS: &[OpFacts] = &[
    //  name                     class             element-wise    fusion              tile          cost
    op(ops::ALL_REDUCE,          K::Communication, E::No,          F::Never,           Tile::None,   C::Collective(T::AllReduce)),
    op(ops::REDUCE_SCATTER,      K::Communication, E::No,          F::Never,           Tile::None,   C::Collective(T::ScatterLike)),
    op(ops::ALL_GATHER,          K::Communication, E::No,          F::Never,           Tile::None,   C::Collective(T::ScatterLike)),
    op(ops::ALL_TO_ALL,          K::Communication, E::No,          F::Never,           Tile::None,   C::Collective(T::ScatterLike)),
    op(ops::BROADCAST,           K::Communication, E::No,          F::Never,           Tile::None,   C::Collective(T::Rooted)),
    op(ops::REDUCE,              K::Communication, E::No,          F::Never,           Tile::None,   C::Collective(T::Rooted)),
    op(ops::SEND,                K::Communication, E::No,          F::Never,           Tile::None,   C::Collective(T::PointToPoint)),
    op(ops::RECV,                K::Communication, E::No,          F::Never,           Tile::None,   C::Collective(T::PointToPoint)),
    op(ops::MATMUL,              K::Computation,   E::No,          F::SlicesOnly,      Tile::Matmul, C::Matmul),
    op(ops::DROPOUT,             K::Computation,   E::OwnKernel,   F::Anywhere,        Tile::Block,  C::PerElement),
    op(ops::LAYER_NORM,          K::Computation,   E::No,          F::Anywhere,        Tile::Block,  C::LayerNorm),
    op(ops::SOFTMAX,             K::Computation,   E::No,          F::Anywhere,        Tile::Block,  C::PerElement),
    op(ops::NORM,                K::Computation,   E::No,          F::Anywhere,        Tile::None,   C::Reduction),
    op(ops::REDUCE_ELEMENTS,     K::Computation,   E::No,          F::Anywhere,        Tile::None,   C::Reduction),
    op(ops::ARGMAX,              K::Computation,   E::No,          F::Anywhere,        Tile::None,   C::PerElement),
    op(ops::CUMSUM,              K::Computation,   E::No,          F::Never,           Tile::None,   C::PerElement),
    op(ops::GATHER,              K::Computation,   E::No,          F::Anywhere,        Tile::None,   C::PerElement),
    op(ops::SCATTER_ADD,         K::Computation,   E::No,          F::Anywhere,        Tile::None,   C::PerElement),
    op(ops::CAST,                K::Computation,   E::Coco,        F::Anywhere,        Tile::Block,  C::PerElement),
    op(ops::SLICE,               K::Computation,   E::No,          F::Anywhere,        Tile::None,   C::Free),
    op(ops::EXPAND,              K::Computation,   E::No,          F::Anywhere,        Tile::Block,  C::PerElement),
    op(ops::TRANSPOSE,           K::Computation,   E::No,          F::Anywhere,        Tile::Block,  C::PerElement),
    op(ops::SPLIT_HEADS,         K::Computation,   E::No,          F::Anywhere,        Tile::Block,  C::PerElement),
    op(ops::MERGE_HEADS,         K::Computation,   E::No,          F::Anywhere,        Tile::Block,  C::PerElement),
    op(ops::FUSED_KERNEL,        K::Region,        E::No,          F::Never,           Tile::Block,  C::Region),
    op(ops::FUSED_COLLECTIVE,    K::Region,        E::No,          F::Never,           Tile::Block,  C::Region),
    op(ops::OVERLAP,             K::Region,        E::No,          F::Never,           Tile::None,   C::Region),
    op(ops::UPDATE,              K::Structure,     E::No,          F::Never,           Tile::None,   C::Free),
    op(ops::YIELD,               K::Structure,     E::No,          F::Never,           Tile::None,   C::Free),
    op(ops::PROCESS_GROUP,       K::Structure,     E::No,          F::Never,           Tile::None,   C::Free),
    op(ops::MESH,                K::Structure,     E::No,          F::Never,           Tile::None,   C::Free),
    op("arith.*",                K::Computation,   E::Upstream,    F::Anywhere,        Tile::Block,  C::PerElement),
    op("math.*",                 K::Computation,   E::Upstream,    F::Anywhere,        Tile::Block,  C::PerElement),
    op("arith.constant",         K::Constant,      E::No,          F::CollectivesOnly, Tile::None,   C::Free),
    op("tensor.splat",           K::Constant,      E::No,          F::Anywhere,        Tile::Block,  C::PerElement),
    op("func.return",            K::Structure,     E::No,          F::Never,           Tile::None,   C::Free),
];

/// The facts about the op called `name`: its own row, else its dialect's
/// (`arith.*`), else [`UNKNOWN`].
pub fn facts(name: &str) -> &'static OpFacts {
    let row = |wanted: &str| OP_FACTS.iter().find(|f| f.name == wanted);
    row(name)
        .or_else(|| {
            let (dialect, _) = name.split_once('.')?;
            OP_FACTS
                .iter()
                .find(|f| f.name.strip_suffix(".*") == Some(dialect))
        })
        .unwrap_or(&UNKNOWN)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// Every op name of `CocoOps.td`, as `coco.<mnemonic>`.
    fn ods_ops() -> Vec<String> {
        let td = include_str!("../../td/coco/CocoOps.td");
        td.lines()
            .filter(|l| l.starts_with("def "))
            .filter_map(|l| {
                let rest = &l[l.find(": Coco_Op<\"")? + ": Coco_Op<\"".len()..];
                Some(format!("coco.{}", &rest[..rest.find('"')?]))
            })
            .collect()
    }

    #[test]
    fn names_are_unique() {
        let mut seen = HashSet::new();
        for row in OP_FACTS {
            assert!(seen.insert(row.name), "{} has two rows", row.name);
        }
    }

    #[test]
    fn every_coco_op_has_a_row_and_every_coco_row_an_op() {
        let ods = ods_ops();
        assert_eq!(ods.len(), 31, "CocoOps.td read wrongly: {ods:?}");
        for name in &ods {
            assert!(
                OP_FACTS.iter().any(|f| f.name == name),
                "{name} (CocoOps.td) has no row in OP_FACTS"
            );
        }
        for row in OP_FACTS.iter().filter(|f| f.name.starts_with("coco.")) {
            assert!(
                ods.iter().any(|n| n == row.name),
                "{} has a row but is not in CocoOps.td",
                row.name
            );
        }
    }

    #[test]
    fn the_columns_agree() {
        for f in OP_FACTS {
            let name = f.name;
            assert_eq!(
                f.class == Class::Communication,
                matches!(f.cost, Cost::Collective(_)),
                "{name}: communication is what collectives cost"
            );
            assert_eq!(f.class == Class::Region, f.cost == Cost::Region, "{name}");
            if f.fusion != Fusion::Never || f.elementwise.is_elementwise() {
                assert!(
                    matches!(f.class, Class::Computation | Class::Constant),
                    "{name}: only computations fuse or are element-wise"
                );
            }
        }
        assert_eq!(facts("arith.addf").name, "arith.*");
        assert_eq!(facts("arith.constant").name, "arith.constant");
        assert_eq!(facts("tensor.empty"), &UNKNOWN);
        assert_eq!(facts("arith"), &UNKNOWN);
    }

    // The answers of the lists the table replaced, as they were written.

    fn dialect_of(name: &str) -> &str {
        name.split_once('.').map(|(d, _)| d).unwrap_or(name)
    }

    const COLLECTIVES: &[&str] = &[
        ops::ALL_REDUCE,
        ops::REDUCE_SCATTER,
        ops::ALL_GATHER,
        ops::BROADCAST,
        ops::REDUCE,
        ops::ALL_TO_ALL,
        ops::SEND,
        ops::RECV,
    ];

    const COMPUTATIONS: &[&str] = &[
        ops::MATMUL,
        ops::DROPOUT,
        ops::LAYER_NORM,
        ops::NORM,
        ops::REDUCE_ELEMENTS,
        ops::ARGMAX,
        ops::CUMSUM,
        ops::GATHER,
        ops::SCATTER_ADD,
        ops::CAST,
        ops::SLICE,
        ops::EXPAND,
        ops::TRANSPOSE,
        ops::SOFTMAX,
        ops::SPLIT_HEADS,
        ops::MERGE_HEADS,
    ];

    /// `coco/ops.rs`.
    fn old_is_computation(name: &str) -> bool {
        COMPUTATIONS.contains(&name)
            || name.starts_with("arith.")
            || name.starts_with("math.")
            || name == "tensor.splat"
    }

    /// `coconet/fuse.rs`.
    fn old_is_fusable_computation(name: &str) -> bool {
        matches!(dialect_of(name), "arith" | "math")
            || name == "tensor.splat"
            || matches!(
                name,
                ops::MATMUL
                    | ops::DROPOUT
                    | ops::LAYER_NORM
                    | ops::SOFTMAX
                    | ops::TRANSPOSE
                    | ops::SPLIT_HEADS
                    | ops::MERGE_HEADS
                    | ops::NORM
                    | ops::REDUCE_ELEMENTS
                    | ops::ARGMAX
                    | ops::GATHER
                    | ops::SCATTER_ADD
                    | ops::CAST
                    | ops::SLICE
                    | ops::EXPAND
            )
    }

    /// `coconet/tile.rs`: `Some(true)` a matmul tile, `Some(false)` a block.
    fn old_tile(name: &str) -> Option<bool> {
        if name == ops::MATMUL {
            return Some(true);
        }
        let kernel = matches!(dialect_of(name), "arith" | "math") && name != "arith.constant"
            || matches!(
                name,
                ops::DROPOUT
                    | ops::LAYER_NORM
                    | ops::CAST
                    | ops::EXPAND
                    | ops::SOFTMAX
                    | ops::TRANSPOSE
                    | ops::SPLIT_HEADS
                    | ops::MERGE_HEADS
                    | ops::FUSED_KERNEL
                    | ops::FUSED_COLLECTIVE
                    | "tensor.splat"
            );
        kernel.then_some(false)
    }

    /// `autotune/cost.rs`.
    fn old_is_free(name: &str) -> bool {
        matches!(
            name,
            "arith.constant"
                | ops::SLICE
                | ops::UPDATE
                | ops::YIELD
                | "func.return"
                | ops::PROCESS_GROUP
                | ops::MESH
        )
    }

    /// `autotune/cost.rs`: which flop count `work` uses.
    fn old_flops(name: &str) -> u8 {
        match name {
            ops::MATMUL => 1,
            ops::LAYER_NORM => 2,
            ops::NORM | ops::REDUCE_ELEMENTS => 3,
            _ => 0,
        }
    }

    /// `autotune/cost.rs`: `collective_parts`.
    fn old_traffic(name: &str) -> Option<Traffic> {
        match name {
            ops::ALL_REDUCE => Some(Traffic::AllReduce),
            ops::REDUCE_SCATTER | ops::ALL_GATHER | ops::ALL_TO_ALL => Some(Traffic::ScatterLike),
            ops::BROADCAST | ops::REDUCE => Some(Traffic::Rooted),
            ops::SEND | ops::RECV => Some(Traffic::PointToPoint),
            _ => None,
        }
    }

    /// `coconet/reorder.rs`.
    fn old_reorder_elementwise(name: &str) -> bool {
        (dialect_of(name) == "arith" && name != "arith.constant")
            || dialect_of(name) == "math"
            || name == ops::DROPOUT
            || name == ops::CAST
    }

    /// The lowering's `partition.rs`: arith/math by prefix (its element-wise
    /// and scalar arithmetic ops), constants and splats by name.
    fn old_upstream_arithmetic(name: &str) -> bool {
        (name.starts_with("arith.") || name.starts_with("math.")) && name != "arith.constant"
    }

    #[test]
    fn the_table_gives_the_answers_of_the_lists_it_replaced() {
        let mut names: Vec<String> = ods_ops();
        names.extend(
            [
                "arith.constant",
                "arith.addf",
                "arith.mulf",
                "arith.divsi",
                "arith.cmpf",
                "arith.select",
                "arith.truncf",
                "arith.fptosi",
                "math.exp",
                "math.sqrt",
                "math.powf",
                "tensor.splat",
                "tensor.empty",
                "tensor.from_elements",
                "func.return",
                "func.func",
                "func.call",
                "scf.for",
                "linalg.generic",
                "builtin.module",
                "df.map",
                "bigtest.jdu_path",
                "coco.no_such_op",
                "mathematics.exp",
                "arithmetic.addf",
            ]
            .map(String::from),
        );
        for name in &names {
            let name = name.as_str();
            let f = facts(name);
            assert_eq!(
                ops::is_collective(name),
                COLLECTIVES.contains(&name),
                "{name}: is_collective"
            );
            assert_eq!(
                ops::is_computation(name),
                old_is_computation(name),
                "{name}: is_computation"
            );
            // coco-fuse: its three questions.
            let fusable = old_is_fusable_computation(name);
            assert_eq!(f.fusion.on_slices(), fusable, "{name}: fuse on slices");
            assert_eq!(
                f.fusion.feeding_collective(),
                fusable && name != ops::MATMUL,
                "{name}: fuse feeding"
            );
            assert_eq!(
                f.fusion.in_kernels(),
                fusable && name != "arith.constant" && name != ops::MATMUL,
                "{name}: fused kernels"
            );
            let tile = match f.tile {
                Tile::None => None,
                Tile::Matmul => Some(true),
                Tile::Block => Some(false),
            };
            assert_eq!(tile, old_tile(name), "{name}: tile");
            assert_eq!(f.cost == Cost::Free, old_is_free(name), "{name}: free");
            let flops = match f.cost {
                Cost::Matmul => 1,
                Cost::LayerNorm => 2,
                Cost::Reduction => 3,
                _ => 0,
            };
            assert_eq!(flops, old_flops(name), "{name}: flops");
            let traffic = match f.cost {
                Cost::Collective(t) => Some(t),
                _ => None,
            };
            assert_eq!(traffic, old_traffic(name), "{name}: traffic");
            assert_eq!(
                f.elementwise.is_elementwise(),
                old_reorder_elementwise(name),
                "{name}: reorder's element-wise"
            );
            // partition.rs: `is_elementwise` (coco.cast, or arith/math),
            // `is_scalar_arithmetic` (arith/math) and `is_free` (by name).
            assert_eq!(
                f.elementwise == Elementwise::Upstream,
                old_upstream_arithmetic(name),
                "{name}: scalar arithmetic"
            );
            assert_eq!(
                f.elementwise.in_generic(),
                name == ops::CAST || old_upstream_arithmetic(name),
                "{name}: element-wise kernel"
            );
            assert_eq!(
                f.class == Class::Constant,
                name == "arith.constant" || name == "tensor.splat",
                "{name}: rematerialised"
            );
        }
    }
}
