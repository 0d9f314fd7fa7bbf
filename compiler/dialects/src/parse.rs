//! Parsing MLIR text with a buffer name, so that every location (and so every
//! diagnostic) names the file.

use std::{cell::RefCell, rc::Rc};

use melior::{
    ir::{Location, Module, Type},
    Context,
};

use crate::{
    coco::{DistTensor, Layout},
    diagnostics::emit_error,
    ffi::{self, string_ref},
    nesting::{max_nesting, too_deep, MAX_NESTING_VAR},
    parse_guard::{find_misplaced_forward_reference, line_col},
    verify_module, Error, Result,
};

/// Parses and structurally verifies `source`; returns `None` after emitting
/// diagnostics when it is malformed or fails an ODS verifier.
pub fn parse_module<'c>(context: &'c Context, source: &str, filename: &str) -> Option<Module<'c>> {
    // Before the forward-reference guard too: both are linear, but only
    // this one bounds the depth MLIR recurses to.
    let limit = match max_nesting() {
        Ok(limit) => limit,
        Err(message) => {
            emit_error(Location::new(context, filename, 1, 1), &message);
            return None;
        }
    };
    if let Some(offset) = too_deep(source, limit) {
        let (line, column) = line_col(source, offset);
        emit_error(
            Location::new(context, filename, line, column),
            &format!(
                "nesting depth exceeds {limit} (the limit, set by the environment variable {MAX_NESTING_VAR})"
            ),
        );
        return None;
    }
    if let Some((line, column, name, def_line)) = find_misplaced_forward_reference(source) {
        emit_error(
            Location::new(context, filename, line, column),
            &format!(
                "use of undeclared SSA value {name} (it is defined on line {def_line}, in a region that does not enclose this use)"
            ),
        );
        return None;
    }
    // MLIR's lexer finds the end of the buffer by its NUL terminator, which
    // Rust strings lack.
    let mut buffer = String::with_capacity(source.len() + 1);
    buffer.push_str(source);
    buffer.push('\0');
    let text = string_ref(&buffer[..source.len()]);
    // Type clashes between a value's definition and a use are MLIR's; the
    // ones that differ only in coco layout get a second line saying which
    // op changes the layout (a forgotten all_reduce after a partial sum).
    type Position = Option<(String, u32, u32)>;
    let clashes: Rc<RefCell<Vec<(String, Position)>>> = Rc::default();
    let sink = clashes.clone();
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        let message = diagnostic.to_string();
        if message.contains(TYPE_CLASH) {
            let position = crate::diagnostics::file_line_col(diagnostic.location());
            sink.borrow_mut().push((message, position));
        }
        // Not handled here: the caller's handlers report it.
        false
    });
    // SAFETY: both strings outlive the call; MLIR copies what it keeps.
    let module = unsafe {
        let raw = ffi::cocoParseSourceString(context.to_raw(), text, string_ref(filename));
        Module::from_option_raw(raw)
    };
    context.detach_diagnostic_handler(handler);
    for (message, position) in clashes.take() {
        if let Some(hint) = layout_clash_hint(context, &message) {
            let location = match position {
                Some((file, line, column)) => {
                    Location::new(context, &file, line as usize, column as usize)
                }
                None => Location::unknown(context),
            };
            emit_error(location, &hint);
        }
    }
    module
}

/// How MLIR's parser words a use whose type differs from the definition's.
const TYPE_CLASH: &str = "expects different type than prior uses";

/// For MLIR's "use of value '%v' expects different type than prior uses:
/// 'USE' vs 'DEF'", when the two types are one tensor in two coco layouts:
/// which op turns the one into the other.
fn layout_clash_hint(context: &Context, message: &str) -> Option<String> {
    let name = message.split('\'').nth(1)?;
    let mut types = message.split(": '").nth(1)?.split("' vs '");
    let (wanted, found) = (types.next()?, types.next()?.trim_end_matches('\''));
    let wanted = DistTensor::from_type(Type::parse(context, wanted)?)?;
    let found = DistTensor::from_type(Type::parse(context, found)?)?;
    if wanted.shape != found.shape || wanted.element != found.element {
        return None;
    }
    let (from, to) = (found.layout?, wanted.layout?);
    let how = match (from, to) {
        (Layout::Local, Layout::Replicated) => {
            "coco.all_reduce combines per-rank values (such as a coco.reduce_elements of a slice, a partial sum) into a replicated one"
        }
        (Layout::Local, Layout::Sliced(_)) => "coco.reduce_scatter reduces per-rank values into slices",
        (Layout::Sliced(_), Layout::Replicated) => "coco.all_gather collects the slices",
        (Layout::Replicated, Layout::Sliced(_)) => "coco.slice takes this rank's slice",
        (Layout::Sliced(_), Layout::Sliced(_)) => "coco.all_gather then coco.slice re-slices it",
        (Layout::Replicated | Layout::Sliced(_), Layout::Local) => {
            "a replicated or sliced value is not a per-rank one; declare the use with the value's own layout"
        }
        _ => return None,
    };
    Some(format!(
        "{name} is {from} where it is defined but used as {to}: a value changes layout only through an op; {how}"
    ))
}

/// Parses `source` and runs every verifier (ODS and the semantic rules of
/// `verify_module`); diagnostics say what is wrong when it fails.
pub fn load_module<'c>(context: &'c Context, source: &str, filename: &str) -> Result<Module<'c>> {
    let module = parse_module(context, source, filename)
        .ok_or_else(|| Error::Parse(filename.to_string()))?;
    match verify_module(&module.as_operation()) {
        0 => Ok(module),
        count => Err(Error::Verify {
            file: filename.to_string(),
            count,
        }),
    }
}
