//! The glue between a Rust pass and MLIR's pass manager, so each pass file
//! holds only its logic: implement [`ModulePass`], declare a [`PassId`]
//! static, and call [`create_module_pass`] from the `PassInfo` constructor.

use coco_dialects::{ir::as_op, lifetime};
use melior::{
    ir::{operation::OperationRef, r#type::TypeId, Operation},
    pass::{create_external, ExternalPass, Pass, RunExternalPass},
    Context, ContextRef,
};

use crate::registry::PassInfo;

/// A pass over the whole `builtin.module`.
pub trait ModulePass: Clone {
    /// Runs on the module, whose context is `context`. Returns `false` to
    /// fail the pipeline, after emitting an error that says why.
    fn run<'c>(&mut self, context: &'c Context, module: &Operation<'c>) -> bool;
}

/// The identity MLIR gives a pass type: one `static` per pass.
#[repr(align(8))]
pub struct PassId;

#[derive(Clone)]
struct Adapter<P>(P);

impl<'c, P: ModulePass> RunExternalPass<'c> for Adapter<P> {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let module = as_op(&operation);
        if !self.0.run(lifetime::context(module), module) {
            pass.signal_failure();
        }
    }
}

/// Wraps `pass` as an MLIR pass anchored on `builtin.module`.
pub fn create_module_pass<P: ModulePass>(
    info: &PassInfo,
    id: &'static PassId,
    name: &str,
    pass: P,
) -> Pass {
    create_external(
        Adapter(pass),
        TypeId::create(id),
        name,
        info.argument,
        info.summary,
        "builtin.module",
        &[],
    )
}
