//! `bigtest-emit`: concrete test data for the satisfiable JDU paths.
//!
//! Runs the generator ([`coco_bigtest::generate`]): records per path, merged where
//! one record already serves a path, kept apart from earlier records on join
//! and group keys, and every addition verified by running the program in
//! the reference interpreter. Appends one `bigtest.test_record` per record
//! with the paths it covers; paths in conflict get another test case. A
//! satisfiable path the generator cannot make the program follow is reported
//! as a warning on its op, never claimed as covered.

use melior::Context;
use std::collections::{BTreeMap, BTreeSet};

use coco_dialects::{
    bigtest::{BigtestBuilder, PathStatus},
    diagnostics::{emit_error, emit_warning},
    ir::{as_op, str_attr},
};
use melior::{
    ir::{BlockLike, Operation, RegionLike},
    pass::Pass,
};

use coco_bigtest::{bounds, extract, generate, results};
use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::{Options, PassOption},
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "bigtest-emit",
    summary: "Generate verified test records (bigtest.test_record) covering every satisfiable JDU path",
    description: "Solves the `sat` paths again, keeping new records apart from the keys earlier records use, and keeps \
records only when the reference interpreter confirms the program follows the path (and still follows every path \
covered before). One record serves several paths where it can; paths that cannot share a dataset get a separate \
test case (`case N`). Appends one `bigtest.test_record` per record, listing the paths it covers; a satisfiable path \
that no data makes the program follow is a warning on its `bigtest.jdu_path`. `coco-bigtest generate` writes the \
records as files, one per source, in the source's own text format.",
    options: &[PassOption::Int(bounds::TIMEOUT_MS)],
    create,
};

static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct EmitPass {
    timeout_ms: u32,
    /// Per program, paths that need no data: data the user already has
    /// follows them (`coco-bigtest generate --given`).
    given: BTreeMap<String, BTreeSet<i64>>,
}

fn create(options: &Options) -> Result<Pass> {
    Ok(pass(options.int(&bounds::TIMEOUT_MS)? as u32))
}

/// The pass with a Z3 time limit per query of `timeout_ms` (in the range
/// of [`bounds::TIMEOUT_MS`]).
pub fn pass(timeout_ms: u32) -> Pass {
    given_pass(timeout_ms, BTreeMap::new())
}

/// The pass, generating no data for the paths `given` lists per program
/// (those the user's own data already follows).
pub fn given_pass(timeout_ms: u32, given: BTreeMap<String, BTreeSet<i64>>) -> Pass {
    create_module_pass(
        &INFO,
        &PASS_ID,
        "BigtestEmit",
        EmitPass { timeout_ms, given },
    )
}

impl ModulePass for EmitPass {
    fn run<'c>(&mut self, context: &'c Context, module: &Operation<'c>) -> bool {
        let Some(body) = module.regions().next().and_then(|r| r.first_block()) else {
            return true;
        };
        let mut ok = true;
        for func in &extract::program_functions(module) {
            let func = as_op(func);
            let name = str_attr(func, "sym_name").unwrap_or_default();
            let program = match extract::extract(module, func) {
                Ok(p) => p,
                Err(e) => {
                    emit_error(e.location, &e.message);
                    ok = false;
                    continue;
                }
            };
            let path_ops = results::path_ops(module, &name);
            let given = self.given.get(&name);
            let sat: Vec<generate::PathSpec> = path_ops
                .iter()
                .filter(|p| p.status == PathStatus::Sat)
                .filter(|p| !given.is_some_and(|g| g.contains(&p.spec.id)))
                .map(|p| p.spec.clone())
                .collect();
            let generated = generate::generate(&program, &sat, self.timeout_ms);
            for (id, reason) in &generated.missed {
                if let Some(p) = path_ops.iter().find(|p| p.spec.id == *id) {
                    emit_warning(
                        as_op(&p.op).location(),
                        &format!("no test data makes @{name} follow path {id}: {reason}"),
                    );
                }
            }
            results::erase(module, results::RECORD, &name);
            let builder = BigtestBuilder::new(context, func.location());
            for (index, case) in generated.cases.iter().enumerate() {
                // Paths each record takes part in.
                let mut covers: BTreeMap<(String, usize), Vec<i64>> = BTreeMap::new();
                for (id, records) in &case.covers {
                    for record in records {
                        covers.entry(record.clone()).or_default().push(*id);
                    }
                }
                // A path no record follows (an empty reduce) is the whole
                // case's doing: every record of it was dropped before.
                for (id, records) in &case.covers {
                    if records.is_empty() {
                        for (source, lines) in &case.inputs {
                            for i in 0..lines.len() {
                                covers.entry((source.clone(), i)).or_default().push(*id);
                            }
                        }
                    }
                }
                for (source, lines) in &case.inputs {
                    for (i, line) in lines.iter().enumerate() {
                        let ids = covers
                            .get(&(source.clone(), i))
                            .cloned()
                            .unwrap_or_default();
                        match builder.test_record(&name, index, source, line, &ids) {
                            Ok(op) => {
                                body.append_operation(op);
                            }
                            Err(e) => {
                                emit_error(func.location(), &e.to_string());
                                ok = false;
                            }
                        }
                    }
                }
            }
        }
        ok
    }
}
