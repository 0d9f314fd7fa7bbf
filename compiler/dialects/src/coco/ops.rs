//! Names and classes of coco ops, shared by the verifier, passes and the
//! interpreter so that "which ops are collectives" is decided in one place.

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

/// The discardable attribute naming the process group a function runs on.
pub const GROUP_ATTR: &str = "coco.group";

/// Ops that communicate between ranks.
pub const COLLECTIVES: &[&str] = &[
    ALL_REDUCE,
    REDUCE_SCATTER,
    ALL_GATHER,
    BROADCAST,
    REDUCE,
    ALL_TO_ALL,
    SEND,
    RECV,
];

/// coco ops that compute without communicating.
pub const COMPUTATIONS: &[&str] = &[
    MATMUL,
    DROPOUT,
    LAYER_NORM,
    NORM,
    REDUCE_ELEMENTS,
    ARGMAX,
    GATHER,
    SCATTER_ADD,
    CAST,
    SLICE,
    EXPAND,
    TRANSPOSE,
    SOFTMAX,
    SPLIT_HEADS,
    MERGE_HEADS,
];

pub fn is_collective(name: &str) -> bool {
    COLLECTIVES.contains(&name)
}

/// A computation: a coco compute op, or an upstream element-wise op
/// (`arith`, `math`) or tensor construction (`tensor.splat`).
pub fn is_computation(name: &str) -> bool {
    COMPUTATIONS.contains(&name)
        || name.starts_with("arith.")
        || name.starts_with("math.")
        || name == "tensor.splat"
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
