//! `bigtest-jdu-paths`: enumerate the Joint Dataflow-and-UDF paths of every
//! df program in the module.
//!
//! Operator classes: filter (pass / drop); map and flat_map (one class per
//! UDF path; flat_map sends elements 0..k-1 on); join (both sides / only
//! left / only right, with outer joins keeping their unmatched side);
//! reduce and reduce_by_key (one record, or k records with one key folded
//! through the UDF); group_by_key (one record / k with one key); union
//! (either side); distinct (unique / k duplicates); sinks end paths. UDF
//! paths come from symbolic execution: every branch, loops unrolled k
//! times, and the paths on which the real program fails (`to_int` or
//! `to_float` of text that is no number, division or remainder by zero, a
//! field index past the end of a split, a substring out of range).
//!
//! **Preconditions**: the module verifies (`coco-verify`). **Guarantees**:
//! appends one `bigtest.jdu_path` per path with status `unsolved`, replacing
//! earlier ones of the same program. The constraints are an SMT-LIB 2
//! script (declarations and assertions); `keys` tells `bigtest-emit` which
//! terms are join/group keys at which op, and `records` which constants are
//! the fields of which source record. Programs using a
//! construct the analysis does not model get an error naming the op; no path
//! is guessed.
//!
//! ```mlir
//! // wordcount at k=2: path 0 of 12
//! bigtest.jdu_path 0 of @wordcount status unsolved
//!     branches ["reduce_by_key#3=fold{source#0, flat_map#1=elem0, ... }", "filter#4=pass", "sink#5"]
//!     constraints ["(declare-const lines_0.f0 String)", ...]
//!     keys [{op = 3 : i64, term = "flat_map1_0.p0"}, ...]
//!     records [{fields = ["lines_0.f0"], source = "lines"}, ...]
//! ```

use coco_dialects::{
    bigtest::{BigtestBuilder, PathStatus},
    diagnostics::{emit_error, emit_warning},
    ir::{as_op, body_ops, str_attr},
};
use melior::Context;
use melior::{
    ir::{BlockLike, Operation, RegionLike},
    pass::Pass,
};

use coco_bigtest::{
    bounds,
    enumerate::{enumerate, Limits},
    extract, results,
};
use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::{Options, PassOption},
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "bigtest-jdu-paths",
    summary: "Enumerate the JDU paths of df programs as bigtest.jdu_path ops",
    description: "Enumerates, per df program, every combination of operator equivalence classes and UDF paths \
(symbolic execution: every branch, loops unrolled k times, failing parses, divisions, indexes and substrings) and \
appends one `bigtest.jdu_path` per path, status `unsolved`, constraints as an SMT-LIB 2 script, and the keys and source records the path \
passes as `keys` and `records` (read by `bigtest-emit`). Earlier results for the same program are replaced. Constructs the analysis \
does not model (unknown functions, scf.while, unsigned comparisons, df.size of a split input on the JVM) are errors naming the op. \
All work is bounded: `fuel` (operations per UDF path; constant loops run to the end within it), `max-index` (the \
largest `df.get` index into a split of input text) and `max-paths` (JDU paths per program, UDF paths and record \
combinations per op); going past one is an error on the dataset op naming the limit.",
    options: &[
        PassOption::Int(bounds::K),
        PassOption::Int(bounds::FUEL),
        PassOption::Int(bounds::MAX_INDEX),
        PassOption::Int(bounds::MAX_PATHS),
    ],
    create,
};

static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct JduPathsPass {
    limits: Limits,
}

fn create(options: &Options) -> Result<Pass> {
    Ok(pass(Limits {
        k: options.int(&bounds::K)? as usize,
        fuel: options.int(&bounds::FUEL)? as u64,
        max_index: options.int(&bounds::MAX_INDEX)? as usize,
        max_paths: options.int(&bounds::MAX_PATHS)? as usize,
    }))
}

/// The pass with `limits` (each in the range of its [`bounds`] option).
pub fn pass(limits: Limits) -> Pass {
    create_module_pass(&INFO, &PASS_ID, "BigtestJduPaths", JduPathsPass { limits })
}

impl ModulePass for JduPathsPass {
    fn run<'c>(&mut self, context: &'c Context, module: &Operation<'c>) -> bool {
        let Some(body) = module.regions().next().and_then(|r| r.first_block()) else {
            return true;
        };
        let mut ok = true;
        let functions = extract::program_functions(module);
        for func in &functions {
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
            let ops: Vec<_> = body_ops(func);
            let paths = match enumerate(&program, self.limits) {
                Ok((paths, cut)) => {
                    // Not an error: k is the bound the user chose. But the
                    // paths left out are real behaviour, so say so.
                    for (op, count) in cut {
                        let location = dataset_op_location(&ops, op).unwrap_or(func.location());
                        let udf = program.ops[op].udf().unwrap_or_default();
                        emit_warning(
                            location,
                            &format!(
                                "{count} path(s) of @{udf} loop more than k={} times and are not enumerated; raise k to include them",
                                self.limits.k
                            ),
                        );
                    }
                    paths
                }
                Err(e) => {
                    let location = dataset_op_location(&ops, e.op).unwrap_or(func.location());
                    emit_error(location, &e.message);
                    ok = false;
                    continue;
                }
            };
            results::erase(module, results::RECORD, &name);
            results::erase(module, results::PATH, &name);
            let builder = BigtestBuilder::new(context, func.location());
            for (id, path) in paths.iter().enumerate() {
                match builder.jdu_path(
                    id as i64,
                    &name,
                    PathStatus::Unsolved,
                    &path.branches,
                    &path.script(),
                    &path.path_keys(),
                    &path.path_records(),
                ) {
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
        ok
    }
}

/// The location of the `index`-th dataset op of a program body.
pub fn dataset_op_location<'c>(
    ops: &[melior::ir::operation::OperationRef<'c, '_>],
    index: usize,
) -> Option<melior::ir::Location<'c>> {
    ops.iter()
        .map(as_op)
        .filter(|o| coco_dialects::df::ops::is_dataset_op(&coco_dialects::ir::op_name(o)))
        .nth(index)
        .map(|o| o.location())
}
