//! This wing's pass tables, in the order `--list-passes` shows them. A tool
//! composes it with other wings' tables into a [`coco_pass::Registry`]
//! (tools/src/passes.rs); [`REGISTRY`] is this wing alone, which the
//! autotuner uses for the schedules it builds.

use coco_pass::{PassInfo, Registry};

pub const PASSES: &[PassInfo] = &[
    crate::verify::INFO,
    crate::coconet::split::INFO,
    crate::coconet::reorder::INFO,
    crate::coconet::as_slice::INFO,
    crate::coconet::partial_reduce::INFO,
    crate::coconet::fuse::INFO,
    crate::coconet::overlap::INFO,
    crate::coconet::tile::INFO,
    crate::autotune::optimize::INFO,
];

/// Passes that expose analyses to lit tests, registered apart as mlir-opt
/// registers its test passes.
pub const TEST_PASSES: &[PassInfo] = &[crate::testing::layouts::INFO];

/// The CoCoNet passes and the upstream ones.
pub const REGISTRY: Registry = Registry::new(&[PASSES, TEST_PASSES]);
