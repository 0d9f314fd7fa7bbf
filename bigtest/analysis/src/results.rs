//! Reading and replacing the `bigtest` ops the passes leave in a module.

use coco_dialects::{
    bigtest::{path, PathStatus, JDU_PATH, TEST_RECORD},
    ir::{
        as_op, body_ops, i64_array_attr, int_attr, op_name, str_array_attr, str_attr, symbol_attr,
    },
};
use melior::ir::{operation::OperationRef, Operation};

use crate::{generate::PathSpec, testdata::TestRecord};

/// A `bigtest.jdu_path` of some program.
pub struct PathOp<'c, 'a> {
    pub op: OperationRef<'c, 'a>,
    pub spec: PathSpec,
    pub status: PathStatus,
}

/// The `bigtest.jdu_path` ops of `program`, in module order.
pub fn path_ops<'c, 'a>(module: &'a Operation<'c>, program: &str) -> Vec<PathOp<'c, 'a>> {
    body_ops(module)
        .into_iter()
        .filter_map(|op| {
            let o = as_op(&op);
            if op_name(o) != JDU_PATH || symbol_attr(o, "program").as_deref() != Some(program) {
                return None;
            }
            // The verifier has checked the shape of keys and records.
            let spec = PathSpec {
                id: int_attr(o, "id").unwrap_or(-1),
                branches: str_array_attr(o, "branches").unwrap_or_default(),
                script: str_array_attr(o, "constraints").unwrap_or_default(),
                keys: path::keys(o).unwrap_or_default(),
                records: path::records(o).unwrap_or_default(),
            };
            let status = PathStatus::of(o);
            Some(PathOp { op, spec, status })
        })
        .collect()
}

/// The `bigtest.test_record` ops of `program`, in module order.
pub fn test_records(module: &Operation, program: &str) -> Vec<TestRecord> {
    body_ops(module)
        .into_iter()
        .filter_map(|op| {
            let o = as_op(&op);
            if op_name(o) != TEST_RECORD || symbol_attr(o, "program").as_deref() != Some(program) {
                return None;
            }
            Some(TestRecord {
                case: int_attr(o, "test_case").unwrap_or(0) as usize,
                source: str_attr(o, "source").unwrap_or_default(),
                text: str_attr(o, "text").unwrap_or_default(),
                covers: i64_array_attr(o, "covers").unwrap_or_default(),
            })
        })
        .collect()
}

/// Erases the bigtest ops `name` (`bigtest.jdu_path` or
/// `bigtest.test_record`) of `program`, so a pass can run twice.
pub fn erase(module: &Operation, name: &str, program: &str) {
    for op in body_ops(module) {
        let o = as_op(&op);
        if op_name(o) == name && symbol_attr(o, "program").as_deref() == Some(program) {
            // bigtest ops have no results, so erasing cannot fail.
            let _ = coco_dialects::rewrite::erase(op);
        }
    }
}

pub const PATH: &str = JDU_PATH;
pub const RECORD: &str = TEST_RECORD;
