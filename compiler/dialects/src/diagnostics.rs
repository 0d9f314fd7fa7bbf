//! Diagnostics: emitting errors, warnings and remarks at IR locations from
//! Rust, and collecting what MLIR reports so tools can print it as
//! `file:line:col: severity: message`.
//!
//! All diagnostics, whether from the parser, ODS verifiers, upstream passes or
//! our Rust code, flow through MLIR's one handler chain (the shim adds
//! `cocoEmitRemark`/`cocoEmitWarning`, which the 19 C API lacks), so they come
//! out in the order they were emitted.

use std::{cell::RefCell, fmt, rc::Rc};

use melior::{
    diagnostic::{Diagnostic, DiagnosticSeverity},
    ir::Location,
    Context,
};
use mlir_sys::{mlirEmitError, MlirStringRef};

use crate::ffi::{self, string_ref};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Remark,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Remark => "remark",
            Severity::Note => "note",
        }
    }
}

/// A diagnostic copied out of MLIR.
#[derive(Clone, Debug)]
pub struct Diag {
    pub severity: Severity,
    /// `(file, line, column)`, absent for unknown locations.
    pub position: Option<(String, u32, u32)>,
    pub message: String,
    pub notes: Vec<Diag>,
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match &self.position {
            Some((file, line, col)) => write!(f, "{file}:{line}:{col}: ")?,
            None => write!(f, "<unknown location>: ")?,
        }
        write!(f, "{}: {}", self.severity.as_str(), self.message)?;
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

impl Diag {
    fn from_mlir(diagnostic: &Diagnostic) -> Self {
        let severity = match diagnostic.severity() {
            DiagnosticSeverity::Error => Severity::Error,
            DiagnosticSeverity::Warning => Severity::Warning,
            DiagnosticSeverity::Remark => Severity::Remark,
            DiagnosticSeverity::Note => Severity::Note,
        };
        let notes = (0..diagnostic.note_count())
            .filter_map(|i| diagnostic.note(i).ok())
            .map(|note| Diag::from_mlir(&note))
            .collect();
        Diag {
            severity,
            position: file_line_col(diagnostic.location()),
            message: diagnostic.to_string(),
            notes,
        }
    }
}

/// The file, line and column inside `location` (looking through fused, name
/// and call-site locations).
pub fn file_line_col(location: Location) -> Option<(String, u32, u32)> {
    let mut file = MlirStringRef {
        data: std::ptr::null(),
        length: 0,
    };
    let (mut line, mut col) = (0u32, 0u32);
    // SAFETY: the shim writes a string owned by the context, valid while the
    // location lives; it is copied at once.
    unsafe {
        if !ffi::cocoLocationGetFileLineCol(location.to_raw(), &mut file, &mut line, &mut col) {
            return None;
        }
        let bytes = std::slice::from_raw_parts(file.data.cast::<u8>(), file.length);
        Some((String::from_utf8_lossy(bytes).into_owned(), line, col))
    }
}

pub fn emit_error(location: Location, message: &str) {
    let message = std::ffi::CString::new(message.replace('\0', " "))
        .expect("interior NUL bytes were replaced");
    // SAFETY: `message` outlives the call; MLIR copies it.
    unsafe { mlirEmitError(location.to_raw(), message.as_ptr()) }
}

pub fn emit_warning(location: Location, message: &str) {
    // SAFETY: as above.
    unsafe { ffi::cocoEmitWarning(location.to_raw(), string_ref(message)) }
}

pub fn emit_remark(location: Location, message: &str) {
    // SAFETY: as above.
    unsafe { ffi::cocoEmitRemark(location.to_raw(), string_ref(message)) }
}

/// Collects every diagnostic emitted on a context while it is alive, instead
/// of letting MLIR print them to stderr.
pub struct DiagnosticCollector<'c> {
    context: &'c Context,
    id: Option<melior::diagnostic::DiagnosticHandlerId>,
    diagnostics: Rc<RefCell<Vec<Diag>>>,
}

impl<'c> DiagnosticCollector<'c> {
    pub fn attach(context: &'c Context) -> Self {
        let diagnostics = Rc::new(RefCell::new(Vec::new()));
        let sink = diagnostics.clone();
        let id = context.attach_diagnostic_handler(move |diagnostic| {
            sink.borrow_mut().push(Diag::from_mlir(&diagnostic));
            true
        });
        DiagnosticCollector {
            context,
            id: Some(id),
            diagnostics,
        }
    }

    /// Takes the diagnostics collected so far.
    pub fn take(&self) -> Vec<Diag> {
        std::mem::take(&mut self.diagnostics.borrow_mut())
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics
            .borrow()
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
}

impl Drop for DiagnosticCollector<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            self.context.detach_diagnostic_handler(id);
        }
    }
}
