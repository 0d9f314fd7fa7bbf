//! Semantic verification of coco, df and bigtest IR: the rules ODS cannot
//! express (layouts, process groups, UDF signatures, cross references). Every
//! tool runs it right after parsing; the `coco-verify` pass runs it in a
//! pipeline. Each violation is an error at the offending op's location.

use std::fmt::Display;

use melior::ir::Operation;

use crate::{diagnostics::emit_error, ir::op_name};

/// Counts the errors emitted while verifying.
#[derive(Default)]
pub struct Reporter {
    errors: usize,
}

impl Reporter {
    /// Emits `'<op name>' op <message>` at `op`'s location, as MLIR's own
    /// op verifiers do.
    pub fn op_error(&mut self, op: &Operation, message: impl Display) {
        emit_error(op.location(), &format!("'{}' op {message}", op_name(op)));
        self.errors += 1;
    }

    pub fn errors(&self) -> usize {
        self.errors
    }
}

/// Verifies every coco, df and bigtest op in `module`; returns the number of
/// errors emitted (0 means valid).
pub fn verify_module(module: &Operation) -> usize {
    let mut reporter = Reporter::default();
    crate::coco::verify::verify(module, &mut reporter);
    crate::df::verify::verify(module, &mut reporter);
    crate::bigtest::verify::verify(module, &mut reporter);
    reporter.errors()
}
