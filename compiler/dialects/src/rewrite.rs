//! IR surgery for passes (the MLIR 19 C API has no dialect-conversion
//! driver): insert built ops, redirect uses, erase. Callers validate first
//! (see `coco::build`); these only move handles.

use crate::lifetime;
use melior::ir::{operation::OperationRef, BlockLike, Operation, Value, ValueLike};

use crate::{Error, Result};

/// The block holding `anchor`, with the anchor's lifetime.
fn block_of<'c, 'a>(
    anchor: OperationRef<'c, 'a>,
    new: &Operation<'c>,
) -> Result<melior::ir::BlockRef<'c, 'a>> {
    let block = crate::ir::as_op(&anchor)
        .block()
        .ok_or_else(|| Error::Build {
            op: crate::ir::op_name(new),
            message: "the anchor op is not in a block".into(),
        })?;
    // SAFETY: the block outlives 'a like the anchor does.
    Ok(unsafe { melior::ir::BlockRef::from_raw(block.to_raw()) })
}

/// Inserts `new` right before `anchor` in `anchor`'s block.
pub fn insert_before<'c, 'a>(
    anchor: OperationRef<'c, 'a>,
    new: Operation<'c>,
) -> Result<OperationRef<'c, 'a>> {
    Ok(block_of(anchor, &new)?.insert_operation_before(anchor, new))
}

/// Inserts `new` right after `anchor` in `anchor`'s block.
pub fn insert_after<'c, 'a>(
    anchor: OperationRef<'c, 'a>,
    new: Operation<'c>,
) -> Result<OperationRef<'c, 'a>> {
    Ok(block_of(anchor, &new)?.insert_operation_after(anchor, new))
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

/// Moves `members` (ops of one block, in block order) into the single-block
/// region of a new op `name` (`coco.fused_kernel`, `coco.fused_collective`,
/// `coco.overlap`) placed where the last member was. Member results used
/// outside become the new op's results (through a trailing `coco.yield`).
///
/// The caller guarantees that no op between the first and last member uses a
/// member's result (otherwise the new op would not dominate that use).
pub fn wrap_in_region<'c, 'a>(
    name: &str,
    members: &[OperationRef<'c, 'a>],
    attributes: &[(melior::ir::Identifier<'c>, melior::ir::Attribute<'c>)],
) -> Result<OperationRef<'c, 'a>> {
    use std::collections::HashSet;

    let last = *members.last().ok_or_else(|| Error::Build {
        op: name.into(),
        message: "nothing to wrap".into(),
    })?;
    let inside: HashSet<usize> = members.iter().map(|m| m.to_raw().ptr as usize).collect();
    // A user is inside when it is a member or nested in one.
    let within = |mut op: mlir_sys::MlirOperation| -> bool {
        while !op.ptr.is_null() {
            if inside.contains(&(op.ptr as usize)) {
                return true;
            }
            // SAFETY: walking up the parents of a live op.
            op = unsafe { mlir_sys::mlirOperationGetParentOperation(op) };
        }
        false
    };
    // Results used outside the members, in order.
    let mut escaping = Vec::new();
    for member in members {
        for result in crate::ir::as_op(member).results() {
            let value: Value = result.into();
            if users(value).iter().any(|u| !within(*u)) {
                escaping.push(lifetime::value(value));
            }
        }
    }
    let location = crate::ir::as_op(&last).location();
    let block = melior::ir::Block::new(&[]);
    let region = melior::ir::Region::new();
    let types: Vec<melior::ir::Type> = escaping.iter().map(|v| v.r#type()).collect();
    let body = melior::ir::RegionLike::append_block(&region, block);
    let yield_op = melior::ir::operation::OperationBuilder::new(crate::coco::ops::YIELD, location)
        .add_operands(&escaping)
        .build()?;
    // SAFETY: `body` is owned by `region`, which the new op will own.
    let yield_ref = body.append_operation(yield_op);
    let wrapper = melior::ir::operation::OperationBuilder::new(name, location)
        .add_results(&types)
        .add_attributes(attributes)
        .add_regions([region])
        .build()?;
    let wrapper = insert_before(last, wrapper)?;
    for member in members {
        // SAFETY: both ops are live; moving keeps the member's identity.
        unsafe { mlir_sys::mlirOperationMoveBefore(member.to_raw(), yield_ref.to_raw()) };
    }
    // Outside uses now read the wrapper's results.
    let wrapper_op = crate::ir::as_op(&wrapper);
    for (i, value) in escaping.iter().enumerate() {
        let replacement = wrapper_op.result(i)?;
        // SAFETY: rewriting operands of live ops outside the region.
        unsafe {
            let mut use_ = mlir_sys::mlirValueGetFirstUse(value.to_raw());
            let mut pending = Vec::new();
            while !use_.ptr.is_null() {
                pending.push(use_);
                use_ = mlir_sys::mlirOpOperandGetNextUse(use_);
            }
            for use_ in pending {
                let owner = mlir_sys::mlirOpOperandGetOwner(use_);
                let inside_region = within(owner) || owner.ptr == yield_ref.to_raw().ptr;
                if !inside_region {
                    let number = mlir_sys::mlirOpOperandGetOperandNumber(use_);
                    mlir_sys::mlirOperationSetOperand(owner, number as isize, replacement.to_raw());
                }
            }
        }
    }
    Ok(wrapper)
}
