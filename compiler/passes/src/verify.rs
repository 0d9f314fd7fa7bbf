//! `coco-verify`: semantic verification of coco, df and bigtest IR.
//!
//! **Preconditions**: none; this is the check every other pass relies on.
//!
//! **Guarantees**: the IR is unchanged. Every violated rule (layouts of
//! collectives and computations, matmul sharding, process groups and
//! send/recv pairing, UDF signatures, join keys, inline records, bigtest
//! cross references) is reported as an error at the offending op, and the pass
//! fails. The rules live in `coco_dialects::verify_module`; tools also run them
//! right after parsing, so a pipeline only needs this pass to re-check IR that
//! other passes produced.

use coco_dialects::verify_module;
use melior::Context;
use melior::{ir::Operation, pass::Pass};

use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::Options,
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "coco-verify",
    summary: "Check the semantic rules of coco, df and bigtest IR (layouts, process groups, UDF signatures)",
    description: "Reports every violated layout, process-group, UDF-signature or cross-reference rule as an \
                  error at the offending op and fails; leaves the IR unchanged. Runs on `builtin.module`.",
    options: &[],
    create,
};

static PASS_ID: PassId = PassId;

fn create(_options: &Options) -> Result<Pass> {
    Ok(create_module_pass(
        &INFO,
        &PASS_ID,
        "CocoVerify",
        VerifyPass,
    ))
}

#[derive(Clone)]
struct VerifyPass;

impl ModulePass for VerifyPass {
    fn run<'c>(&mut self, _context: &'c Context, module: &Operation<'c>) -> bool {
        verify_module(module) == 0
    }
}
