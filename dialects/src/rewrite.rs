//! IR surgery for passes (the MLIR 19 C API has no dialect-conversion
//! driver): insert built ops, redirect uses, erase. Callers validate first
//! (see `coco::build`); these only move handles.

use melior::ir::{operation::OperationRef, BlockLike, Operation, Value, ValueLike};

use crate::{Error, Result};

/// Inserts `new` right before `anchor` in `anchor`'s block.
pub fn insert_before<'c, 'a>(
    anchor: OperationRef<'c, 'a>,
    new: Operation<'c>,
) -> Result<OperationRef<'c, 'a>> {
    let block = crate::ir::as_op(&anchor)
        .block()
        .ok_or_else(|| Error::Build {
            op: crate::ir::op_name(&new),
            message: "the anchor op is not in a block".into(),
        })?;
    // SAFETY: the block outlives 'a like the anchor does.
    let block = unsafe { melior::ir::BlockRef::from_raw(block.to_raw()) };
    Ok(block.insert_operation_before(anchor, new))
}

/// Inserts `new` right after `anchor` in `anchor`'s block.
pub fn insert_after<'c, 'a>(
    anchor: OperationRef<'c, 'a>,
    new: Operation<'c>,
) -> Result<OperationRef<'c, 'a>> {
    let block = crate::ir::as_op(&anchor)
        .block()
        .ok_or_else(|| Error::Build {
            op: crate::ir::op_name(&new),
            message: "the anchor op is not in a block".into(),
        })?;
    // SAFETY: as above.
    let block = unsafe { melior::ir::BlockRef::from_raw(block.to_raw()) };
    Ok(block.insert_operation_after(anchor, new))
}

/// Makes every use of `old` use `new` instead.
pub fn replace_all_uses(old: Value, new: Value) {
    // SAFETY: both values are live; MLIR rewires the use lists.
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) }
}

/// Erases `op`, whose results must have no uses left.
pub fn erase(op: OperationRef) -> Result<()> {
    let name = crate::ir::op_name(crate::ir::as_op(&op));
    for result in crate::ir::as_op(&op).results() {
        // SAFETY: a pure query.
        if unsafe {
            !mlir_sys::mlirValueGetFirstUse(result.to_raw())
                .ptr
                .is_null()
        } {
            return Err(Error::Build {
                op: name,
                message: "cannot erase an op whose results are still used".into(),
            });
        }
    }
    // SAFETY: the op has no remaining uses; destroying unlinks it.
    unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
    Ok(())
}

/// A copy of `op` (attributes and properties included) with new operands and
/// result types, not inserted anywhere. `operands` and `result_types` must
/// have the op's arity; the caller makes the new op valid.
pub fn clone_with<'c>(
    op_ref: OperationRef<'c, '_>,
    operands: &[Value<'c, '_>],
    result_types: &[melior::ir::Type<'c>],
) -> Result<Operation<'c>> {
    let op = crate::ir::as_op(&op_ref);
    let name = crate::ir::op_name(op);
    if operands.len() != op.operand_count() || result_types.len() != op.result_count() {
        return Err(Error::Build {
            op: name,
            message: "clone_with: wrong number of operands or results".into(),
        });
    }
    // SAFETY: the clone is a fresh detached op owned by the returned value;
    // positions are within its arity (checked above).
    unsafe {
        let raw = mlir_sys::mlirOperationClone(op_ref.to_raw());
        for (i, operand) in operands.iter().enumerate() {
            mlir_sys::mlirOperationSetOperand(raw, i as isize, operand.to_raw());
        }
        for (i, ty) in result_types.iter().enumerate() {
            let result = mlir_sys::mlirOperationGetResult(raw, i as isize);
            mlir_sys::mlirValueSetType(result, melior::ir::TypeLike::to_raw(ty));
        }
        Ok(Operation::from_raw(raw))
    }
}

/// The operations that use `value` (once per use).
pub fn users(value: Value) -> Vec<mlir_sys::MlirOperation> {
    let mut out = Vec::new();
    // SAFETY: walking a live value's use list without mutating it.
    unsafe {
        let mut use_ = mlir_sys::mlirValueGetFirstUse(value.to_raw());
        while !use_.ptr.is_null() {
            out.push(mlir_sys::mlirOpOperandGetOwner(use_));
            use_ = mlir_sys::mlirOpOperandGetNextUse(use_);
        }
    }
    out
}
