//! `bigtest-solve`: decide the feasibility of every JDU path with Z3.
//!
//! Each `bigtest.jdu_path`'s constraints go to Z3 as they are (so a path
//! edited by hand is solved as written) under a per-query timeout; the op's
//! status becomes `sat`, `unsat` or `unknown` (timeout or a theory Z3 gave up
//! on). A script Z3 cannot parse is an error on the op.

use coco_dialects::{diagnostics::emit_error, ir::as_op};
use melior::Context;
use melior::{
    ir::{attribute::IntegerAttribute, r#type::IntegerType, Operation},
    pass::Pass,
};

use coco_bigtest::{bounds, extract, feasibility, results};
use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::{Options, PassOption},
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "bigtest-solve",
    summary: "Solve each bigtest.jdu_path's constraints with Z3: sat, unsat or unknown",
    description: "Sends every `bigtest.jdu_path`'s constraint script to Z3 with a timeout and records the answer as \
the op's status: `sat`, `unsat`, or `unknown` when Z3 times out or gives up. Never hangs. A script Z3 cannot parse \
is an error on the op.",
    options: &[PassOption::Int(bounds::TIMEOUT_MS)],
    create,
};

static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct SolvePass {
    timeout_ms: u32,
}

fn create(options: &Options) -> Result<Pass> {
    Ok(pass(options.int(&bounds::TIMEOUT_MS)? as u32))
}

/// The pass with a Z3 time limit per query of `timeout_ms` (in the range
/// of [`bounds::TIMEOUT_MS`]).
pub fn pass(timeout_ms: u32) -> Pass {
    create_module_pass(&INFO, &PASS_ID, "BigtestSolve", SolvePass { timeout_ms })
}

impl ModulePass for SolvePass {
    fn run<'c>(&mut self, context: &'c Context, module: &Operation<'c>) -> bool {
        let i32_type = IntegerType::new(context, 32).into();
        let mut ok = true;
        for func in &extract::program_functions(module) {
            let name = coco_dialects::ir::str_attr(as_op(func), "sym_name").unwrap_or_default();
            let paths = results::path_ops(module, &name);
            let scripts: Vec<&[String]> = paths.iter().map(|p| p.spec.script.as_slice()).collect();
            let fields: Vec<Vec<Vec<String>>> =
                paths.iter().map(|p| p.spec.record_fields()).collect();
            let records: Vec<&[Vec<String>]> = fields.iter().map(Vec::as_slice).collect();
            let outcomes = feasibility::solve_all(&scripts, &records, self.timeout_ms);
            for (path, outcome) in paths.iter().zip(outcomes) {
                let status = match outcome {
                    Ok(outcome) => feasibility::status(&outcome),
                    Err(error) => {
                        emit_error(
                            as_op(&path.op).location(),
                            &format!("Z3 cannot read the constraints: {error}"),
                        );
                        ok = false;
                        continue;
                    }
                };
                let attr = IntegerAttribute::new(i32_type, status.value());
                // SAFETY: setting an inherent attribute of a live op.
                unsafe {
                    let name = melior::StringRef::new("status");
                    mlir_sys::mlirOperationSetAttributeByName(
                        path.op.to_raw(),
                        name.to_raw(),
                        melior::ir::AttributeLike::to_raw(&attr),
                    );
                }
            }
        }
        ok
    }
}
