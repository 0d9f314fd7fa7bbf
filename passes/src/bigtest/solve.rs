//! `bigtest-solve`: decide the feasibility of every JDU path with Z3.
//!
//! Each `bigtest.jdu_path`'s constraints go to Z3 as they are (so a path
//! edited by hand is solved as written) under a per-query timeout; the op's
//! status becomes `sat`, `unsat` or `unknown` (timeout or a theory Z3 gave up
//! on). A script Z3 cannot parse is an error on the op.

use coco_dialects::{bigtest::PathStatus, diagnostics::emit_error, ir::as_op};
use melior::{
    ir::{attribute::IntegerAttribute, r#type::IntegerType, Operation},
    pass::Pass,
};

use super::{extract, results};
use crate::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::{Options, PassOption},
    registry::PassInfo,
    Error, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "bigtest-solve",
    summary: "Solve each bigtest.jdu_path's constraints with Z3: sat, unsat or unknown",
    description: "Sends every `bigtest.jdu_path`'s constraint script to Z3 with a timeout and records the answer as \
the op's status: `sat`, `unsat`, or `unknown` when Z3 times out or gives up. Never hangs. A script Z3 cannot parse \
is an error on the op.",
    options: &[PassOption {
        name: "timeout-ms",
        summary: "Z3 time limit per path, in milliseconds",
        default: "10000",
    }],
    create,
};

static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct SolvePass {
    timeout_ms: u32,
}

/// Reads the `timeout-ms` option shared by solving passes.
pub fn timeout(options: &Options, pass: &str) -> Result<u32> {
    match options.int(pass, "timeout-ms", 10_000)? {
        t @ 1..=600_000 => Ok(t as u32),
        t => Err(Error::PassOption {
            pass: pass.into(),
            message: format!("option 'timeout-ms' must be between 1 and 600000, found {t}"),
        }),
    }
}

fn create(options: &Options) -> Result<Pass> {
    let pass = SolvePass {
        timeout_ms: timeout(options, INFO.argument)?,
    };
    Ok(create_module_pass(&INFO, &PASS_ID, "BigtestSolve", pass))
}

impl ModulePass for SolvePass {
    fn run(&mut self, module: &Operation) -> bool {
        let context = module.context();
        // SAFETY: the context outlives the pass run.
        let context = unsafe { context.to_ref() };
        let i32_type = IntegerType::new(context, 32).into();
        let mut ok = true;
        for func in &extract::program_functions(module) {
            let name = coco_dialects::ir::str_attr(as_op(func), "sym_name").unwrap_or_default();
            let paths = results::path_ops(module, &name);
            let scripts: Vec<&[String]> = paths.iter().map(|p| p.spec.script.as_slice()).collect();
            let outcomes = solve_all(&scripts, self.timeout_ms);
            for (path, outcome) in paths.iter().zip(outcomes) {
                let status = match outcome {
                    Ok(coco_smt::Outcome::Sat(_)) => PathStatus::Sat,
                    Ok(coco_smt::Outcome::Unsat) => PathStatus::Unsat,
                    Ok(coco_smt::Outcome::Unknown(_)) => PathStatus::Unknown,
                    Err(message) => {
                        emit_error(
                            as_op(&path.op).location(),
                            &format!("Z3 cannot read the constraints: {message}"),
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

/// Solves independent scripts on all cores; answers in the scripts' order.
pub fn solve_all(scripts: &[&[String]], timeout_ms: u32) -> Vec<Result<coco_smt::Outcome, String>> {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(scripts.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut answers: Vec<Option<Result<coco_smt::Outcome, String>>> = vec![None; scripts.len()];
    let done = std::sync::Mutex::new(&mut answers);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(script) = scripts.get(i) else {
                    break;
                };
                let answer = coco_smt::solve(script, timeout_ms);
                done.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(answer);
            });
        }
    });
    answers
        .into_iter()
        .map(|a| a.unwrap_or_else(|| Err("no answer".to_string())))
        .collect()
}
