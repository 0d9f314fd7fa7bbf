//! Declarations of the C++ shim (`cpp/CAPI.cpp`): registration handles and the
//! accessors and diagnostics helpers that the MLIR 19 C API lacks.

use std::ffi::c_void;

use mlir_sys::{
    MlirAttribute, MlirContext, MlirDialectHandle, MlirLocation, MlirModule, MlirStringRef,
    MlirType, MlirValue,
};

extern "C" {
    pub fn mlirGetDialectHandle__coco__() -> MlirDialectHandle;
    pub fn mlirGetDialectHandle__df__() -> MlirDialectHandle;
    pub fn mlirGetDialectHandle__bigtest__() -> MlirDialectHandle;

    pub fn cocoAttributeIsALocal(attr: MlirAttribute) -> bool;
    pub fn cocoAttributeIsAReplicated(attr: MlirAttribute) -> bool;
    pub fn cocoAttributeIsASliced(attr: MlirAttribute) -> bool;
    pub fn cocoSlicedAttrGetDim(attr: MlirAttribute) -> i64;
    pub fn cocoAttributeIsAMeshLayout(attr: MlirAttribute) -> bool;
    pub fn cocoMeshLayoutAttrGetAxes(attr: MlirAttribute) -> MlirAttribute;
    pub fn cocoLocalAttrGet(ctx: MlirContext) -> MlirAttribute;
    pub fn cocoReplicatedAttrGet(ctx: MlirContext) -> MlirAttribute;
    pub fn cocoSlicedAttrGet(ctx: MlirContext, dim: i64) -> MlirAttribute;

    pub fn dfTypeIsAString(ty: MlirType) -> bool;
    pub fn dfTypeIsAList(ty: MlirType) -> bool;
    pub fn dfTypeIsAOption(ty: MlirType) -> bool;
    pub fn dfTypeIsADataset(ty: MlirType) -> bool;
    pub fn dfTypeGetParameter(ty: MlirType) -> MlirType;
    pub fn dfStringTypeGet(ctx: MlirContext) -> MlirType;
    pub fn dfListTypeGet(element: MlirType) -> MlirType;
    pub fn dfOptionTypeGet(element: MlirType) -> MlirType;
    pub fn dfDatasetTypeGet(record: MlirType) -> MlirType;

    pub fn cocoEmitRemark(loc: MlirLocation, message: MlirStringRef);
    pub fn cocoEmitWarning(loc: MlirLocation, message: MlirStringRef);
    pub fn cocoLocationGetFileLineCol(
        loc: MlirLocation,
        file: *mut MlirStringRef,
        line: *mut u32,
        column: *mut u32,
    ) -> bool;
    pub fn cocoValueGetLocation(value: MlirValue) -> MlirLocation;
    pub fn cocoParseSourceString(
        ctx: MlirContext,
        source: MlirStringRef,
        source_name: MlirStringRef,
    ) -> MlirModule;

    pub fn cocoPipelinePassAnchors(
        pipeline: MlirStringRef,
        on_pass: unsafe extern "C" fn(MlirStringRef, MlirStringRef, *mut c_void),
        on_error: unsafe extern "C" fn(MlirStringRef, *mut c_void),
        user_data: *mut c_void,
    ) -> bool;
    pub fn cocoHostTargetCpus(
        on_triple: unsafe extern "C" fn(MlirStringRef, *mut c_void),
        on_cpu: unsafe extern "C" fn(MlirStringRef, *mut c_void),
        user_data: *mut c_void,
    ) -> bool;
}

/// The text of an `MlirStringRef` the callee lends for the call.
///
/// # Safety
/// `s` points to `s.length` readable bytes (or is empty).
pub unsafe fn lent_string(s: MlirStringRef) -> String {
    if s.length == 0 || s.data.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(s.data.cast::<u8>(), s.length)).into_owned()
}

/// Borrows a Rust string as an `MlirStringRef` (valid while `s` lives).
pub fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr().cast(),
        length: s.len(),
    }
}
