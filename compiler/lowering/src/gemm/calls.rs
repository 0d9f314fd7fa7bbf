//! After bufferization: every `linalg.matmul` / `linalg.batch_matmul` on
//! memrefs that carries `coco.gemm = @helper` becomes `func.call @helper`,
//! its operands cast to the helper's strided memref types. Bufferized
//! linalg ops have no results, so nothing else changes. A helper that
//! rounds its result (four parameters, [`super::Gemm::rounds_to`]) also
//! takes the output of the narrowing `linalg.generic` reading the
//! matmul's C, and that op goes: the call takes its place.

use std::collections::HashMap;

use coco_dialects::{
    ir::{as_op, function_signature, functions, nested_ops, op_name, str_attr, symbol_attr},
    rewrite,
};
use melior::{
    ir::{
        attribute::FlatSymbolRefAttribute, operation::OperationBuilder, Identifier, Module, Type,
        Value, ValueLike,
    },
    Context,
};

use super::{GEMM_ATTR, ROUNDING_ATTR};
use crate::error::{Error, Result};

/// Replaces the marked matmuls of `module` by calls to their helpers.
pub fn outline(context: &Context, module: &Module) -> Result<()> {
    let top = module.as_operation();
    let funcs = functions(&top);
    let helpers: HashMap<String, Vec<Type>> = funcs
        .iter()
        .filter_map(|f| {
            let name = str_attr(as_op(f), "sym_name")?;
            let (inputs, _) = function_signature(as_op(f))?;
            Some((name, inputs))
        })
        .collect();
    let internal = |message: String| Error::Upstream {
        stage: "CPU GEMM calls".into(),
        diagnostics: message,
    };
    for func in &funcs {
        let marked: Vec<_> = nested_ops(as_op(func))
            .into_iter()
            .filter(|op| {
                matches!(
                    op_name(as_op(op)).as_str(),
                    "linalg.matmul" | "linalg.batch_matmul"
                ) && as_op(op).attribute(GEMM_ATTR).is_ok()
            })
            .collect();
        for op_ref in marked {
            let op = as_op(&op_ref);
            let helper = symbol_attr(op, GEMM_ATTR)
                .ok_or_else(|| internal(format!("{GEMM_ATTR} is not a symbol on {op}")))?;
            let types = helpers
                .get(&helper)
                .ok_or_else(|| internal(format!("no helper @{helper} in the module")))?;
            if op.operand_count() != 3 || op.result_count() != 0 || !(3..=4).contains(&types.len())
            {
                return Err(internal(format!(
                    "a marked matmul that is not bufferized (3 memref operands, no results): {op}"
                )));
            }
            let location = op.location();
            let mut values: Vec<Value> = (0..3)
                .map(|i| op.operand(i))
                .collect::<std::result::Result<_, _>>()
                .map_err(|e| internal(e.to_string()))?;
            // Where the call goes: the matmul's place, or the rounding op's.
            let mut place = op_ref;
            let mut rounding = None;
            if types.len() == 4 {
                let c = values[2];
                let user = rewrite::users(c)
                    .into_iter()
                    // SAFETY: users of a value in this module are live ops of it.
                    .map(|raw| unsafe { melior::ir::OperationRef::from_raw(raw) })
                    .find(|user| {
                        op_name(as_op(user)) == "linalg.generic"
                            && as_op(user).attribute(ROUNDING_ATTR).is_ok()
                            && as_op(user)
                                .operand(0)
                                .is_ok_and(|v| v.to_raw().ptr == c.to_raw().ptr)
                    })
                    .ok_or_else(|| internal(format!("no rounding op reads the result of {op}")))?;
                let d = as_op(&user)
                    .operand(1)
                    .map_err(|e| internal(e.to_string()))?;
                // SAFETY: D is an operand of an op of this function, which
                // outlives the call.
                values.push(unsafe { Value::from_raw(d.to_raw()) });
                place = user;
                rounding = Some(user);
            }
            let mut operands: Vec<Value> = Vec::new();
            for (ty, value) in types.iter().zip(values) {
                let cast = OperationBuilder::new("memref.cast", location)
                    .add_operands(&[value])
                    .add_results(&[*ty])
                    .build()
                    .map_err(|e| internal(e.to_string()))?;
                let cast =
                    rewrite::insert_before(place, cast).map_err(|e| internal(e.to_string()))?;
                let result = as_op(&cast)
                    .result(0)
                    .map_err(|e| internal(e.to_string()))?;
                // SAFETY: the cast lives in the function as long as the call.
                operands.push(unsafe { Value::from_raw(result.to_raw()) });
            }
            let call = OperationBuilder::new("func.call", location)
                .add_operands(&operands)
                .add_attributes(&[(
                    Identifier::new(context, "callee"),
                    FlatSymbolRefAttribute::new(context, &helper).into(),
                )])
                .build()
                .map_err(|e| internal(e.to_string()))?;
            rewrite::insert_before(place, call).map_err(|e| internal(e.to_string()))?;
            if let Some(rounding) = rounding {
                rewrite::erase(rounding).map_err(|e| internal(e.to_string()))?;
            }
            rewrite::erase(op_ref).map_err(|e| internal(e.to_string()))?;
        }
    }
    Ok(())
}
