//! The passes the tools offer: each wing's table composed into one
//! registry, as circt-opt and Triton's RegisterTritonDialects.h compose
//! their dialects' passes. `coco-opt`, `--list-passes`, docs/passes.md and
//! the filetests read this registry; no pass crate knows another wing's.

use coco_pass::Registry;

/// The CoCoNet passes, the BigTest passes, the test passes, then (listed
/// apart) upstream MLIR's.
pub const REGISTRY: Registry = Registry::new(&[
    coco_passes::PASSES,
    coco_bigtest_passes::PASSES,
    coco_passes::TEST_PASSES,
]);
