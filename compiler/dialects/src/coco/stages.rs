//! The world's split into pipeline stages (`coco.process_group`): every
//! stage gets the same number of ranks, so the world size must be a
//! multiple of the stage count. Both backends ask here, so a bad world size
//! reads the same, at the same line, whichever runs the program.

use melior::ir::Operation;

use super::ops;
use crate::ir::{as_op, body_ops, int_attr, location_text, op_name, str_attr};

/// Where and why `ranks` cannot be split into the program's stages:
/// `(location, message)` at the first `coco.process_group`, or `None` when
/// it can (or the program has no stages).
pub fn stage_split_error(module: &Operation, ranks: usize) -> Option<(String, String)> {
    body_ops(module).iter().find_map(|op| {
        let op = as_op(op);
        if op_name(op) != ops::PROCESS_GROUP {
            return None;
        }
        let stages = usize::try_from(int_attr(op, "num_stages").unwrap_or(1)).unwrap_or(1);
        (stages > 1 && !ranks.is_multiple_of(stages)).then(|| {
            (
                location_text(op.location()),
                format!(
                    "world size {ranks} does not divide into the {stages} pipeline stages of coco.process_group @{} (every stage needs the same number of ranks: run on a multiple of {stages})",
                    str_attr(op, "sym_name").unwrap_or_default()
                ),
            )
        })
    })
}
