//! `test-coco-layouts`: reports the layout inferred for every coco op's result.
//!
//! **Preconditions**: none. **Guarantees**: the IR is unchanged; each coco op
//! with a layout rule gets a remark `result layout: <layout>` (or
//! `<pattern>` when the op's result type chooses, as for `#coco.sliced<d>`),
//! so lit tests can check layout inference with `expected-remark`.

use coco_dialects::{
    coco::{
        infer_result_layout,
        rules::{rule_dims, Operand},
        DistTensor, Reduction,
    },
    diagnostics::emit_remark,
    ir::{as_op, dialect_of, int_attr, nested_ops, op_name, operand_types, result_types},
};
use melior::Context;
use melior::{ir::Operation, pass::Pass};

use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::Options,
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "test-coco-layouts",
    summary: "Test only: report the inferred result layout of every coco op as a remark",
    description: "Leaves the IR unchanged. For every coco op with a layout rule, emits the remark \
                  `result layout: <layout>` at the op, computed from its operands by the same rules \
                  the verifier and the transformations use (`coco_dialects::coco::rules`).",
    options: &[],
    create,
};

static PASS_ID: PassId = PassId;

fn create(_options: &Options) -> Result<Pass> {
    Ok(create_module_pass(
        &INFO,
        &PASS_ID,
        "TestCocoLayouts",
        LayoutsPass,
    ))
}

#[derive(Clone)]
struct LayoutsPass;

impl ModulePass for LayoutsPass {
    fn run<'c>(&mut self, _context: &'c Context, module: &Operation<'c>) -> bool {
        for op in nested_ops(module) {
            let op = as_op(&op);
            let name = op_name(op);
            if dialect_of(&name) != "coco" {
                continue;
            }
            let operands: Option<Vec<Operand>> = operand_types(op)
                .into_iter()
                .map(|ty| DistTensor::from_type(ty)?.rule_operand())
                .collect();
            let Some(operands) = operands else {
                continue;
            };
            let result_rank = result_types(op)
                .first()
                .and_then(|ty| DistTensor::from_type(*ty))
                .map_or(0, |t| t.rank());
            let kind = int_attr(op, "kind").and_then(Reduction::from_value);
            let message = match infer_result_layout(
                &name,
                &operands,
                result_rank,
                kind,
                rule_dims(op).as_deref(),
            ) {
                Ok(Some(pattern)) => format!("result layout: {pattern}"),
                Ok(None) => continue,
                Err(reason) => format!("no result layout: {reason}"),
            };
            emit_remark(op.location(), &message);
        }
        true
    }
}
