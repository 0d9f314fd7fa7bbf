//! Names of coco ops, shared by the verifier, passes, the lowering and the
//! interpreter. What each op is (collective, computation, ...) is decided
//! once, in the op facts table (`facts.rs`).

use super::facts::{facts, Class};

pub const ALL_REDUCE: &str = "coco.all_reduce";
pub const REDUCE_SCATTER: &str = "coco.reduce_scatter";
pub const ALL_GATHER: &str = "coco.all_gather";
pub const BROADCAST: &str = "coco.broadcast";
pub const REDUCE: &str = "coco.reduce";
pub const ALL_TO_ALL: &str = "coco.all_to_all";
pub const SEND: &str = "coco.send";
pub const RECV: &str = "coco.recv";
pub const MATMUL: &str = "coco.matmul";
pub const DROPOUT: &str = "coco.dropout";
pub const LAYER_NORM: &str = "coco.layer_norm";
pub const NORM: &str = "coco.norm";
pub const REDUCE_ELEMENTS: &str = "coco.reduce_elements";
pub const ARGMAX: &str = "coco.argmax";
pub const CUMSUM: &str = "coco.cumsum";
pub const GATHER: &str = "coco.gather";
pub const SCATTER_ADD: &str = "coco.scatter_add";
pub const CAST: &str = "coco.cast";
pub const SLICE: &str = "coco.slice";
pub const EXPAND: &str = "coco.expand";
pub const TRANSPOSE: &str = "coco.transpose";
pub const SOFTMAX: &str = "coco.softmax";
pub const SPLIT_HEADS: &str = "coco.split_heads";
pub const MERGE_HEADS: &str = "coco.merge_heads";
pub const UPDATE: &str = "coco.update";
pub const FUSED_KERNEL: &str = "coco.fused_kernel";
pub const FUSED_COLLECTIVE: &str = "coco.fused_collective";
pub const OVERLAP: &str = "coco.overlap";
pub const YIELD: &str = "coco.yield";
pub const PROCESS_GROUP: &str = "coco.process_group";
pub const MESH: &str = "coco.mesh";

/// The discardable attribute naming the process group a function runs on.
pub const GROUP_ATTR: &str = "coco.group";

/// Ops that communicate between ranks: a row of class `Communication` in
/// the op facts table ([`super::facts`]).
pub fn is_collective(name: &str) -> bool {
    facts(name).class == Class::Communication
}

/// A computation: a coco compute op, an upstream element-wise op (`arith`,
/// `math`) or a constant or splat (`tensor.splat`), by the op facts table.
pub fn is_computation(name: &str) -> bool {
    matches!(facts(name).class, Class::Computation | Class::Constant)
}

/// The reduction operator of a collective or `coco.reduce_elements` (the
/// ODS enum `ReductionKind`, stored as an i32 attribute `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    Sum,
    Prod,
    Min,
    Max,
    Avg,
}

impl Reduction {
    pub const ALL: [Reduction; 5] = [
        Reduction::Sum,
        Reduction::Prod,
        Reduction::Min,
        Reduction::Max,
        Reduction::Avg,
    ];

    /// The value of the ODS enum case.
    pub fn value(self) -> i64 {
        self as i64
    }

    pub fn from_value(value: i64) -> Option<Reduction> {
        Self::ALL.into_iter().find(|r| r.value() == value)
    }

    pub fn keyword(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Prod => "prod",
            Reduction::Min => "min",
            Reduction::Max => "max",
            Reduction::Avg => "avg",
        }
    }
}
