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
