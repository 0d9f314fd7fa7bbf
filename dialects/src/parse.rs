//! Parsing MLIR text with a buffer name, so that every location (and so every
//! diagnostic) names the file.

use melior::{ir::Module, Context};

use crate::ffi::{self, string_ref};

/// Parses and structurally verifies `source`; returns `None` after emitting
/// diagnostics when it is malformed or fails an ODS verifier.
pub fn parse_module<'c>(context: &'c Context, source: &str, filename: &str) -> Option<Module<'c>> {
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
