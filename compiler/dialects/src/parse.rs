//! Parsing MLIR text with a buffer name, so that every location (and so every
//! diagnostic) names the file.

use melior::{
    ir::{Location, Module},
    Context,
};

use crate::{
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
    // SAFETY: both strings outlive the call; MLIR copies what it keeps.
    unsafe {
        let raw = ffi::cocoParseSourceString(context.to_raw(), text, string_ref(filename));
        Module::from_option_raw(raw)
    }
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
