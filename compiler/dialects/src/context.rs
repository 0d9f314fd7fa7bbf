//! The one initializer: every tool, pass and test gets its context here
//! (cairo_native's `initialize_mlir`).

use melior::{
    dialect::{DialectHandle, DialectRegistry},
    utility::{register_all_dialects, register_all_llvm_translations, register_all_passes},
    Context,
};

use crate::ffi;

/// Registers the coco, df and bigtest dialects into `registry`.
pub fn register_coco_dialects(registry: &DialectRegistry) {
    // SAFETY: the handles are static objects defined by the C++ shim.
    unsafe {
        for handle in [
            ffi::mlirGetDialectHandle__coco__(),
            ffi::mlirGetDialectHandle__df__(),
            ffi::mlirGetDialectHandle__bigtest__(),
        ] {
            DialectHandle::from_raw(handle).insert_dialect(registry);
        }
    }
}

/// A context with every upstream dialect and ours loaded, all upstream passes
/// registered (so textual pipelines can name them) and LLVM translations
/// available.
pub fn context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    register_coco_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    register_all_passes();
    register_all_llvm_translations(&context);
    context
}
