//! Small read-only helpers over melior's IR handles: walking, attribute and
//! type accessors. Verifiers and passes share these instead of each writing
//! their own.

/// The element types of runtime buffers, as [`element_dtype`] names them.
pub use coco_base::DType;

use melior::ir::{
    attribute::{DenseI64ArrayAttribute, FloatAttribute, IntegerAttribute, TypeAttribute},
    operation::OperationRef,
    r#type::{FunctionType, TupleType},
    Attribute, AttributeLike, Location, Operation, Type, TypeLike, Value, ValueLike,
};
use melior::ir::{block::BlockArgument, BlockLike, RegionLike};
use mlir_sys::{
    mlirBlockGetFirstOperation, mlirBlockGetNextInRegion, mlirOperationGetFirstRegion,
    mlirOperationGetNextInBlock, mlirRegionGetFirstBlock, mlirRegionGetNextInOperation,
    mlirShapedTypeGetDynamicSize, MlirRegion,
};

/// Every operation nested in `root` (not `root` itself), in pre-order.
pub fn nested_ops<'c, 'a>(root: &'a Operation<'c>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = Vec::new();
    for region in root.regions() {
        // SAFETY: every handle reached from `root` stays valid for 'a; the IR
        // is not mutated while the list is built.
        unsafe { collect_region(region.to_raw(), &mut out) };
    }
    out
}

unsafe fn collect_region<'c, 'a>(region: MlirRegion, out: &mut Vec<OperationRef<'c, 'a>>) {
    let mut block = mlirRegionGetFirstBlock(region);
    while !block.ptr.is_null() {
        let mut child = mlirBlockGetFirstOperation(block);
        while !child.ptr.is_null() {
            out.push(OperationRef::from_raw(child));
            let mut nested = mlirOperationGetFirstRegion(child);
            while !nested.ptr.is_null() {
                collect_region(nested, out);
                nested = mlirRegionGetNextInOperation(nested);
            }
            child = mlirOperationGetNextInBlock(child);
        }
        block = mlirBlockGetNextInRegion(block);
    }
}

/// The operations directly in the first block of `op`'s first region (the
/// body of a module or function).
pub fn body_ops<'c, 'a>(op: &'a Operation<'c>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = Vec::new();
    let Some(block) = op.regions().next().and_then(|r| r.first_block()) else {
        return out;
    };
    // SAFETY: as in `nested_ops`.
    unsafe {
        let mut child = mlirBlockGetFirstOperation(block.to_raw());
        while !child.ptr.is_null() {
            out.push(OperationRef::from_raw(child));
            child = mlirOperationGetNextInBlock(child);
        }
    }
    out
}

/// The op that defines `value`; `None` for block arguments.
pub fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    if !value.is_operation_result() {
        return None;
    }
    // SAFETY: a result's owner is a live op that outlives the value handle.
    unsafe {
        Some(OperationRef::from_raw(mlir_sys::mlirOpResultGetOwner(
            value.to_raw(),
        )))
    }
}

/// The `func.func` ops directly in `module`, collected before any rewrite so
/// that passes never visit erased ops.
pub fn functions<'c, 'a>(module: &'a Operation<'c>) -> Vec<OperationRef<'c, 'a>> {
    body_ops(module)
        .into_iter()
        .filter(|o| op_name(as_op(o)) == "func.func")
        .collect()
}

/// The operation an `OperationRef` points to. The reference borrows the
/// `OperationRef` itself (melior reinterprets the handle in place), so it
/// cannot outlive it: keep the `OperationRef`s in a collection that lives as
/// long as the references are used.
pub fn as_op<'c, 'r>(op: &'r OperationRef<'c, '_>) -> &'r Operation<'c> {
    // SAFETY: OperationRef is a handle with the layout of Operation; the
    // result is tied to the borrow of the handle, which stays valid for 'r.
    unsafe { op.to_ref() }
}

/// The raw handle of `op`. `Operation` is a wrapper around the handle (the
/// layout [`as_op`] relies on too); melior only hands it out by value.
pub fn raw_op(op: &Operation) -> mlir_sys::MlirOperation {
    // SAFETY: `Operation` starts with its `MlirOperation` handle.
    unsafe { *(op as *const Operation).cast::<mlir_sys::MlirOperation>() }
}

pub fn op_name(op: &Operation) -> String {
    // SAFETY: the identifier is owned by the context.
    owned(unsafe { mlir_sys::mlirIdentifierStr(op.name().to_raw()) })
}

/// Copies an `MlirStringRef`. MLIR represents the empty string with a null
/// pointer, which melior's `StringRef::as_str` does not accept.
pub fn owned(string: mlir_sys::MlirStringRef) -> String {
    if string.data.is_null() || string.length == 0 {
        return String::new();
    }
    // SAFETY: MLIR guarantees `length` readable bytes at `data`.
    let bytes = unsafe { std::slice::from_raw_parts(string.data.cast::<u8>(), string.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// The dialect namespace of an op name (`coco` for `coco.all_reduce`).
pub fn dialect_of(name: &str) -> &str {
    name.split_once('.').map(|(d, _)| d).unwrap_or(name)
}

/// Attribute `name` of argument `index` of a function (its `arg_attrs`).
pub fn argument_attr<'c>(func: &Operation<'c>, index: usize, name: &str) -> Option<Attribute<'c>> {
    let arg_attrs = func.attribute("arg_attrs").ok()?;
    // SAFETY: pure queries on attributes of a live op; each kind is checked
    // before it is read.
    unsafe {
        let raw = arg_attrs.to_raw();
        if !mlir_sys::mlirAttributeIsAArray(raw)
            || index as isize >= mlir_sys::mlirArrayAttrGetNumElements(raw)
        {
            return None;
        }
        let dict = mlir_sys::mlirArrayAttrGetElement(raw, index as isize);
        if !mlir_sys::mlirAttributeIsADictionary(dict) {
            return None;
        }
        let found = mlir_sys::mlirDictionaryAttrGetElementByName(
            dict,
            mlir_sys::MlirStringRef {
                data: name.as_ptr().cast(),
                length: name.len(),
            },
        );
        (!found.ptr.is_null()).then(|| Attribute::from_raw(found))
    }
}

pub fn str_attr(op: &Operation, name: &str) -> Option<String> {
    string_value(op.attribute(name).ok()?)
}

/// The value of a string attribute (`None` for other attributes).
pub fn string_value(attr: Attribute) -> Option<String> {
    // SAFETY: pure queries on a valid attribute.
    unsafe {
        let raw = attr.to_raw();
        mlir_sys::mlirAttributeIsAString(raw).then(|| owned(mlir_sys::mlirStringAttrGetValue(raw)))
    }
}

pub fn int_attr(op: &Operation, name: &str) -> Option<i64> {
    let attr = op.attribute(name).ok()?;
    IntegerAttribute::try_from(attr).ok().map(|a| a.value())
}

pub fn float_attr(op: &Operation, name: &str) -> Option<f64> {
    let attr = op.attribute(name).ok()?;
    FloatAttribute::try_from(attr).ok().map(|a| a.value())
}

pub fn symbol_attr(op: &Operation, name: &str) -> Option<String> {
    let attr = op.attribute(name).ok()?;
    flat_symbol(attr)
}

pub fn flat_symbol(attr: Attribute) -> Option<String> {
    // SAFETY: pure queries on a valid attribute.
    unsafe {
        let raw = attr.to_raw();
        mlir_sys::mlirAttributeIsAFlatSymbolRef(raw)
            .then(|| owned(mlir_sys::mlirFlatSymbolRefAttrGetValue(raw)))
    }
}

pub fn str_array_attr(op: &Operation, name: &str) -> Option<Vec<String>> {
    string_array(op.attribute(name).ok()?)
}

/// The strings of an array attribute of strings.
pub fn string_array(attr: Attribute) -> Option<Vec<String>> {
    // melior 0.22's `ArrayAttribute::try_from` tests for a dense i64 array, so
    // array attributes are read through the C API directly.
    // SAFETY: pure queries on a valid attribute; elements share its lifetime.
    unsafe {
        let raw = attr.to_raw();
        if !mlir_sys::mlirAttributeIsAArray(raw) {
            return None;
        }
        (0..mlir_sys::mlirArrayAttrGetNumElements(raw))
            .map(|i| {
                string_value(Attribute::from_raw(mlir_sys::mlirArrayAttrGetElement(
                    raw, i,
                )))
            })
            .collect()
    }
}

pub fn i64_array_attr(op: &Operation, name: &str) -> Option<Vec<i64>> {
    let attr = op.attribute(name).ok()?;
    let array = DenseI64ArrayAttribute::try_from(attr).ok()?;
    (0..array.len()).map(|i| array.element(i).ok()).collect()
}

/// Inputs and results of a `func.func`.
pub fn function_signature<'c>(op: &Operation<'c>) -> Option<(Vec<Type<'c>>, Vec<Type<'c>>)> {
    let attr = op.attribute("function_type").ok()?;
    let ty = TypeAttribute::try_from(attr).ok()?.value();
    let function = FunctionType::try_from(ty).ok()?;
    let inputs = (0..function.input_count())
        .map(|i| function.input(i).ok())
        .collect::<Option<Vec<_>>>()?;
    let results = (0..function.result_count())
        .map(|i| function.result(i).ok())
        .collect::<Option<Vec<_>>>()?;
    Some((inputs, results))
}

pub fn operand_types<'c>(op: &Operation<'c>) -> Vec<Type<'c>> {
    op.operands().map(|v| v.r#type()).collect()
}

pub fn result_types<'c>(op: &Operation<'c>) -> Vec<Type<'c>> {
    op.results().map(|v| v.r#type()).collect()
}

/// The elements of a builtin tuple type, or `None` for any other type.
pub fn tuple_elements(ty: Type) -> Option<Vec<Type>> {
    let tuple = TupleType::try_from(ty).ok()?;
    let mut elements = Vec::with_capacity(tuple.type_count());
    for i in 0..tuple.type_count() {
        // SAFETY: the element type is owned by the context, like `ty`.
        elements.push(unsafe { Type::from_raw(tuple.r#type(i).ok()?.to_raw()) });
    }
    Some(elements)
}

/// Whether `value` is an argument of the entry block of the function `func`.
pub fn is_entry_argument_of(value: Value, func: &Operation) -> bool {
    let Ok(argument) = BlockArgument::try_from(value) else {
        return false;
    };
    let entry = func.regions().next().and_then(|r| r.first_block());
    entry.is_some_and(|entry| entry == argument.owner())
}

/// The nearest enclosing operation named `name`.
pub fn enclosing<'c, 'a>(op: &'a Operation<'c>, name: &str) -> Option<OperationRef<'c, 'a>> {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if op_name(as_op(&parent)) == name {
            return Some(parent);
        }
        // SAFETY: ancestors outlive `op`, so they are valid for 'a.
        current = unsafe {
            let raw = mlir_sys::mlirOperationGetParentOperation(parent.to_raw());
            (!raw.ptr.is_null()).then(|| OperationRef::from_raw(raw))
        };
    }
    None
}

pub fn dynamic_size() -> i64 {
    // SAFETY: a pure query.
    unsafe { mlirShapedTypeGetDynamicSize() }
}

/// `ty` rendered the way MLIR prints it.
pub fn type_text(ty: Type) -> String {
    ty.to_string()
}

/// A location rendered for messages that refer to another op.
pub fn location_text(location: Location) -> String {
    match crate::diagnostics::file_line_col(location) {
        Some((file, line, col)) => format!("{file}:{line}:{col}"),
        None => "an unknown location".into(),
    }
}

/// The element type of runtime buffers that MLIR type `ty` is stored as
/// (`index` as i64); `None` for types coco does not run.
pub fn element_dtype(ty: Type) -> Option<coco_base::DType> {
    use coco_base::DType;
    let raw = ty.to_raw();
    // SAFETY: pure type queries.
    unsafe {
        if mlir_sys::mlirTypeIsAF64(raw) {
            return Some(DType::F64);
        }
        if mlir_sys::mlirTypeIsAF32(raw) {
            return Some(DType::F32);
        }
        if mlir_sys::mlirTypeIsAF16(raw) {
            return Some(DType::F16);
        }
        if mlir_sys::mlirTypeIsABF16(raw) {
            return Some(DType::BF16);
        }
        if mlir_sys::mlirTypeIsAIndex(raw) {
            return Some(DType::I64);
        }
    }
    match melior::ir::r#type::IntegerType::try_from(ty).ok()?.width() {
        64 => Some(DType::I64),
        32 => Some(DType::I32),
        1 => Some(DType::I1),
        _ => None,
    }
}

/// Whether `ty` is a builtin float type.
pub fn is_float(ty: Type) -> bool {
    // SAFETY: pure type queries.
    unsafe {
        let raw = ty.to_raw();
        mlir_sys::mlirTypeIsAF16(raw)
            || mlir_sys::mlirTypeIsABF16(raw)
            || mlir_sys::mlirTypeIsAF32(raw)
            || mlir_sys::mlirTypeIsAF64(raw)
    }
}

/// Where each argument of `func`'s entry block is written, as `(line,
/// column)` (1-based, at its `%name`); `None` for an argument without a
/// file location.
pub fn argument_positions(func: &Operation) -> Vec<Option<(u32, u32)>> {
    let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return Vec::new();
    };
    (0..block.argument_count())
        .map(|i| {
            let argument = block.argument(i).ok()?;
            // SAFETY: a live block argument; the location is owned by the
            // context.
            let location = unsafe {
                melior::ir::Location::from_raw(crate::ffi::cocoValueGetLocation(argument.to_raw()))
            };
            crate::diagnostics::file_line_col(location).map(|(_, line, column)| (line, column))
        })
        .collect()
}

/// The SSA name (without `%`) written at 1-based `column` of `line`, if an
/// SSA name starts there: `%` then letters, digits and `_$.-`, as MLIR's
/// lexer reads suffix identifiers.
pub fn ssa_name_at(line: &str, column: usize) -> Option<String> {
    let rest = line.get(column.checked_sub(1)?..)?.strip_prefix('%')?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || "_$.-".contains(*c))
        .collect();
    (!name.is_empty()).then_some(name)
}
