//! melior's lifetime casts, in one place, with their safety argument.
//!
//! melior ties each handle to the borrow it was read through: a
//! `Value<'c, 'a>` or `OperationRef<'c, 'a>` lives no longer than the `'a`
//! borrow of the block or op it came from, and an op's context comes back as
//! a `ContextRef` rather than the `&'c Context` that builders take. Rewrites
//! read a value through one short borrow and use it while building ops
//! elsewhere in the same function, which the borrow checker cannot follow.
//!
//! **Why widening is sound here.** An MLIR value stays valid until its
//! defining op (or, for a block argument, its block) is erased, and a
//! context until it is dropped. coco's passes and lowering never erase an op
//! whose results they still hold: they replace uses first and erase after
//! (`rewrite::erase` refuses an op whose results have uses), and every
//! context is made by [`crate::context`] and owned by the tool for the whole
//! run, so a pass or lowering step never outlives it. Callers keep to that
//! rule; nothing else about the cast needs checking at each use.

use std::sync::Mutex;

use melior::{
    ir::{Operation, Value, ValueLike},
    Context, ContextRef,
};

/// `value` detached from the borrow it was read through (see the module
/// doc for why that is sound).
pub fn value<'c, 'a, 'b>(value: impl Into<Value<'c, 'b>>) -> Value<'c, 'a> {
    let value: Value<'c, 'b> = value.into();
    // SAFETY: the module doc's argument: the defining op outlives every use.
    unsafe { Value::from_raw(value.to_raw()) }
}

/// The context `op` belongs to, as the `&'c Context` builders take.
///
/// melior hands out an op's context as a `ContextRef` handle and turns it
/// into `&Context` by reinterpreting the handle in place, so the reference
/// would borrow a local. Here each context's handle is stored once for the
/// process (one pointer per context ever seen) and the reference points
/// there.
pub fn context<'c>(op: &Operation<'c>) -> &'c Context {
    static HANDLES: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
    let handle = op.context();
    // SAFETY: a pure query on a live op.
    let raw = unsafe { mlir_sys::mlirOperationGetContext(crate::ir::raw_op(op)) }.ptr as usize;
    let mut handles = HANDLES.lock().unwrap_or_else(|e| e.into_inner());
    let stored = match handles.iter().find(|(context, _)| *context == raw) {
        Some(&(_, stored)) => stored as *const ContextRef<'c>,
        None => {
            let stored: &ContextRef<'c> = Box::leak(Box::new(handle));
            let stored = stored as *const ContextRef<'c>;
            handles.push((raw, stored as usize));
            stored
        }
    };
    // SAFETY: `stored` points to a leaked handle of this context, valid for
    // the whole process; `ContextRef` has the layout of `Context`, and the
    // context outlives every op of the run (module doc).
    unsafe { (*stored).to_ref() }
}
