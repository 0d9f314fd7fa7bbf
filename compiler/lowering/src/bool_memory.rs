//! i1 tensors in memory hold one byte per element, 0 or 1, on every
//! backend: the bundle's buffers, `.npy` files (`|b1`), the reference
//! interpreter and the PTX (byte loads and stores). MLIR lowers a scalar
//! access of a `memref<...xi1>` that way, but `affine-super-vectorize`
//! makes `vector<Nxi1>` loads and stores of it, which LLVM packs into N
//! bits: a comparison's 48 flags went into 6 bytes, and a later scalar
//! read of byte `i` (or the executor writing the output) found bits of
//! other flags there. [`widen`] runs after the CPU pipeline and gives
//! every contiguous vector access of i1 data bytes instead (`zext` to
//! `vector<Nxi8>` before a store, `trunc` after a load), so vectorised
//! and scalar code read the same layout. Gathers and scatters move lane
//! by lane, one element (a byte) each, and stay as they are.

use coco_dialects::{
    ir::{as_op, nested_ops, op_name},
    rewrite,
};
use melior::{
    ir::{operation::OperationBuilder, operation::OperationRef, Module, Type, Value, ValueLike},
    Context,
};

use crate::error::{Error, Result};

/// How an op moves a vector to or from memory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Stores operand `index` (its other vector of i1, if any, is a mask).
    Store(usize),
    /// Loads its result.
    Load,
    /// Moves operand `Some(index)` or its result (`None`) in a way
    /// [`widen`] does not rewrite, nor the pipeline produce for i1 data:
    /// refused rather than left packed.
    Refused(Option<usize>),
}

fn access(name: &str) -> Option<Access> {
    match name {
        "llvm.store" | "llvm.intr.masked.store" => Some(Access::Store(0)),
        "llvm.load" | "llvm.intr.masked.load" => Some(Access::Load),
        "llvm.intr.masked.expandload" => Some(Access::Refused(None)),
        "llvm.intr.masked.compressstore" => Some(Access::Refused(Some(0))),
        _ => None,
    }
}

/// Lanes of `ty` when it is a vector of i1 (`vector<16xi1>`); an error for
/// any other shape of i1 vector, which would be packed too.
fn i1_lanes(ty: Type, op: &str) -> Result<Option<usize>> {
    let text = ty.to_string();
    if !text.contains("xi1>") {
        return Ok(None);
    }
    text.strip_prefix("vector<")
        .and_then(|rest| rest.strip_suffix("xi1>"))
        .and_then(|lanes| lanes.parse().ok())
        .map(Some)
        .ok_or_else(|| internal(format!("{op} moves {text}, which has no byte layout here")))
}

fn internal(message: String) -> Error {
    Error::Upstream {
        stage: "CPU i1 memory".into(),
        diagnostics: message,
    }
}

/// Rewrites every vector load and store of i1 data in `module` (LLVM
/// dialect) to move one byte per element.
pub fn widen(context: &Context, module: &Module) -> Result<()> {
    let top = module.as_operation();
    let accesses: Vec<(OperationRef, Access)> = nested_ops(&top)
        .into_iter()
        .filter_map(|op| Some((op, access(&op_name(as_op(&op)))?)))
        .collect();
    for (op_ref, access) in accesses {
        let op = as_op(&op_ref);
        let name = op_name(op);
        let ty = match access {
            Access::Store(index) | Access::Refused(Some(index)) => {
                op.operand(index).map(|v| v.r#type())
            }
            Access::Load | Access::Refused(None) => op.result(0).map(|v| v.r#type()),
        };
        // A store of nothing or a load without a result is not ours.
        let Ok(ty) = ty else { continue };
        let Some(lanes) = i1_lanes(ty, &name)? else {
            continue;
        };
        let bytes = Type::parse(context, &format!("vector<{lanes}xi8>"))
            .ok_or_else(|| internal(format!("cannot spell vector<{lanes}xi8>")))?;
        match access {
            Access::Store(index) => store_bytes(op_ref, index, bytes)?,
            Access::Load => load_bytes(op_ref, ty, bytes)?,
            Access::Refused(_) => {
                return Err(internal(format!(
                    "{name} of i1 data ({ty}) is not rewritten to bytes"
                )))
            }
        }
    }
    Ok(())
}

/// `op`'s operands, as values that outlive the rewrite of `op`.
fn operands<'c, 'a>(op_ref: OperationRef<'c, 'a>) -> Vec<Value<'c, 'a>> {
    as_op(&op_ref)
        .operands()
        // SAFETY: the operands are defined outside `op`, in the same
        // function, which outlives the rewrite.
        .map(|v| unsafe { Value::from_raw(v.to_raw()) })
        .collect()
}

/// A one-operand cast (`llvm.zext`, `llvm.trunc`) of `value` to `to`,
/// placed before `anchor`.
fn cast<'c, 'a>(
    anchor: OperationRef<'c, 'a>,
    name: &str,
    value: Value<'c, 'a>,
    to: Type<'c>,
) -> Result<Value<'c, 'a>> {
    let location = as_op(&anchor).location();
    let op = OperationBuilder::new(name, location)
        .add_operands(&[value])
        .add_results(&[to])
        .build()
        .map_err(|e| internal(e.to_string()))?;
    let op = rewrite::insert_before(anchor, op).map_err(|e| internal(e.to_string()))?;
    let result = as_op(&op).result(0).map_err(|e| internal(e.to_string()))?;
    // SAFETY: the cast stays in the function as long as its users.
    Ok(unsafe { Value::from_raw(result.to_raw()) })
}

/// The stored vector (operand `index`) zero-extended to bytes.
fn store_bytes(op_ref: OperationRef, index: usize, bytes: Type) -> Result<()> {
    let mut values = operands(op_ref);
    values[index] = cast(op_ref, "llvm.zext", values[index], bytes)?;
    let store = rewrite::clone_with(op_ref, &values, &[]).map_err(|e| internal(e.to_string()))?;
    rewrite::insert_before(op_ref, store).map_err(|e| internal(e.to_string()))?;
    rewrite::erase(op_ref).map_err(|e| internal(e.to_string()))
}

/// The vector loaded as bytes and truncated; a masked load's pass-through
/// (operand 2, when present) is widened to bytes too.
fn load_bytes<'c>(op_ref: OperationRef<'c, '_>, flags: Type<'c>, bytes: Type<'c>) -> Result<()> {
    let mut values = operands(op_ref);
    if op_name(as_op(&op_ref)) == "llvm.intr.masked.load" && values.len() > 2 {
        values[2] = cast(op_ref, "llvm.zext", values[2], bytes)?;
    }
    let load =
        rewrite::clone_with(op_ref, &values, &[bytes]).map_err(|e| internal(e.to_string()))?;
    let load = rewrite::insert_before(op_ref, load).map_err(|e| internal(e.to_string()))?;
    let loaded = as_op(&load)
        .result(0)
        .map_err(|e| internal(e.to_string()))?;
    // SAFETY: the new load lives in the function as long as its users.
    let loaded = unsafe { Value::from_raw(loaded.to_raw()) };
    let truncated = cast(op_ref, "llvm.trunc", loaded, flags)?;
    let old = as_op(&op_ref)
        .result(0)
        .map_err(|e| internal(e.to_string()))?;
    rewrite::replace_all_uses(old.into(), truncated);
    rewrite::erase(op_ref).map_err(|e| internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    use coco_dialects::{context, parse_module};

    use super::*;

    fn widened(body: &str) -> Result<String> {
        let context = context();
        let text = format!("llvm.func @k(%p: !llvm.ptr, %m: vector<16xi1>, %v: vector<16xi1>, %s: i1) {{\n{body}  llvm.return\n}}\n");
        let module = parse_module(&context, &text, "test").expect("the test's IR parses");
        widen(&context, &module)?;
        assert!(module.as_operation().verify(), "{}", module.as_operation());
        Ok(module.as_operation().to_string())
    }

    #[test]
    fn vectors_of_flags_move_as_bytes() {
        let text = widened(
            "  llvm.store %v, %p {alignment = 1 : i64} : vector<16xi1>, !llvm.ptr\n\
             \x20 %l = llvm.load %p {alignment = 1 : i64} : !llvm.ptr -> vector<16xi1>\n\
             \x20 llvm.intr.masked.store %l, %p, %m {alignment = 1 : i32} : vector<16xi1>, vector<16xi1> into !llvm.ptr\n\
             \x20 %ml = llvm.intr.masked.load %p, %m, %v {alignment = 1 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xi1>) -> vector<16xi1>\n\
             \x20 llvm.store %ml, %p : vector<16xi1>, !llvm.ptr\n\
             \x20 llvm.store %s, %p : i1, !llvm.ptr\n",
        )
        .unwrap();
        // Every vector moved is bytes; masks stay i1, as does the scalar
        // store (a byte already).
        assert!(!text.contains("vector<16xi1>, !llvm.ptr"), "{text}");
        assert!(!text.contains("!llvm.ptr -> vector<16xi1>"), "{text}");
        assert!(!text.contains("-> vector<16xi1>\n"), "{text}");
        assert_eq!(
            text.matches(": vector<16xi8>, !llvm.ptr").count(),
            2,
            "{text}"
        );
        assert!(
            text.contains("vector<16xi8>, vector<16xi1> into !llvm.ptr"),
            "{text}"
        );
        assert!(
            text.contains("(!llvm.ptr, vector<16xi1>, vector<16xi8>) -> vector<16xi8>"),
            "{text}"
        );
        assert_eq!(text.matches("llvm.trunc").count(), 2, "{text}");
        assert!(text.contains(": i1, !llvm.ptr"), "{text}");
    }

    #[test]
    fn flags_it_cannot_widen_are_refused() {
        let error = widened(
            "  \"llvm.intr.masked.compressstore\"(%v, %p, %m) : (vector<16xi1>, !llvm.ptr, vector<16xi1>) -> ()\n",
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("llvm.intr.masked.compressstore of i1 data"),
            "{error}"
        );
    }
}
