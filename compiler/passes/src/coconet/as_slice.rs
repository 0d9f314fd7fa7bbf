//! `coco-as-slice`: a replicated program input that is only used through
//! slices becomes a sliced input (CoCoNet's asSlice; ZeRO-style partitioning
//! of optimizer state).
//!
//! After `coco-split` and `coco-reorder`, Adam reads its moments only as
//! `coco.slice %m` and writes them back with `coco.update %m, all_gather(%x)`.
//! Holding `%m` sliced removes both the slices and the gather, and each rank
//! stores `1/N` of the state.
//!
//! **Preconditions**: the argument is `#coco.replicated`; every use is a
//! `coco.slice` along one dimension `d` or the target of a `coco.update`.
//! An argument with a slice and any other use gets a remark naming that use.
//!
//! **Guarantees**: the argument's global value, and the global value written
//! back, are unchanged (bitwise); only its distribution changes, so callers
//! pass the same tensors. Updates with `all_gather(x)` write `x` directly;
//! other updated values are sliced.
//!
//! ```mlir
//! // before
//! %ms = coco.slice %m : tensor<1024xf32, #coco.replicated> -> tensor<1024xf32, #coco.sliced<0>>
//! %new = arith.mulf %ms, %ms : tensor<1024xf32, #coco.sliced<0>>
//! %g = coco.all_gather %new : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
//! coco.update %m, %g : tensor<1024xf32, #coco.replicated>
//! // after --coco-as-slice (%m : tensor<1024xf32, #coco.sliced<0>>)
//! %new = arith.mulf %m, %m : tensor<1024xf32, #coco.sliced<0>>
//! coco.update %m, %new : tensor<1024xf32, #coco.sliced<0>>
//! ```
//!
//! Arguments marked `{coco.keep_replicated}` stay replicated (weights that a
//! forward pass needs whole); option `keep` lists further positions.

use coco_dialects::lifetime;
use coco_dialects::{
    coco::{layout::with_layout, ops, CocoBuilder, DistTensor, Layout},
    diagnostics::{emit_error, emit_remark},
    ir::{
        argument_attr, as_op, defining_op, function_signature, functions, location_text, op_name,
    },
    rewrite::{erase, insert_before, replace_all_uses, users},
};
use melior::Context;
use melior::{
    ir::{
        attribute::TypeAttribute, block::BlockArgument, operation::OperationRef,
        r#type::FunctionType, BlockLike, Operation, RegionLike, Type, Value, ValueLike,
    },
    pass::Pass,
};

use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::{Options, PassOption, TextOption},
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "coco-as-slice",
    summary: "Turn replicated inputs used only through slices into sliced inputs (optimizer-state partitioning)",
    description: "**Preconditions**: the program is on no `coco.mesh` (on one, a remark says the pass leaves it as written). a `#coco.replicated` function argument whose every use is a `coco.slice` \
                  along one dimension or the target of a `coco.update`; an argument with a slice and any other \
                  use gets a remark naming that use.\n\n\
                  **Guarantees**: the global values read and written back are unchanged (bitwise); updates with \
                  `all_gather(x)` write `x`, other updates are sliced.\n\n\
                  ```mlir\n\
                  %ms = coco.slice %m : tensor<1024xf32, #coco.replicated> -> tensor<1024xf32, #coco.sliced<0>>\n\
                  %new = arith.mulf %ms, %ms : tensor<1024xf32, #coco.sliced<0>>\n\
                  %g = coco.all_gather %new : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>\n\
                  coco.update %m, %g : tensor<1024xf32, #coco.replicated>\n\
                  // becomes (%m : tensor<1024xf32, #coco.sliced<0>>)\n\
                  %new = arith.mulf %m, %m : tensor<1024xf32, #coco.sliced<0>>\n\
                  coco.update %m, %new : tensor<1024xf32, #coco.sliced<0>>\n\
                  ```",
    options: &[PassOption::Text(KEEP)],
    create,
};

const KEEP: TextOption = TextOption {
    name: "keep",
    summary: "comma-separated argument positions to leave replicated (besides arguments marked {coco.keep_replicated})",
    default: "",
};

static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct AsSlicePass {
    keep: Vec<usize>,
}

fn create(options: &Options) -> Result<Pass> {
    let keep = options
        .text(&KEEP)
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>().map_err(|_| {
                options.error(format!(
                    "option 'keep' expects argument positions like 1,3, found '{s}'"
                ))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(create_module_pass(
        &INFO,
        &PASS_ID,
        "CocoAsSlice",
        AsSlicePass { keep },
    ))
}

/// How one argument is used.
struct Plan {
    dim: i64,
    slices: Vec<mlir_sys::MlirOperation>,
    updates: Vec<mlir_sys::MlirOperation>,
}

fn operand_is(op: mlir_sys::MlirOperation, index: isize, value: Value) -> bool {
    // SAFETY: pure queries on a live op.
    unsafe {
        index < mlir_sys::mlirOperationGetNumOperands(op)
            && mlir_sys::mlirOperationGetOperand(op, index).ptr == value.to_raw().ptr
    }
}

/// Whether `argument` can become sliced, and how; `Err` names the blocking
/// use (`Ok(None)`: no slice uses, nothing to do).
fn check(argument: Value) -> std::result::Result<Option<Plan>, String> {
    let Some(tensor) = DistTensor::from_type(argument.r#type()) else {
        return Ok(None);
    };
    if tensor.layout != Some(Layout::Replicated) {
        return Ok(None);
    }
    let mut plan = Plan {
        dim: -1,
        slices: Vec::new(),
        updates: Vec::new(),
    };
    let mut blocker = None;
    for user in users(argument) {
        // SAFETY: users are live ops of this function.
        let user_ref = unsafe { OperationRef::from_raw(user) };
        let user_op = as_op(&user_ref);
        let name = op_name(user_op);
        let sliced_dim = user_op
            .result(0)
            .ok()
            .and_then(|r| DistTensor::from_type(r.r#type()))
            .and_then(|t| t.layout);
        match (name.as_str(), sliced_dim) {
            (ops::SLICE, Some(Layout::Sliced(d))) if plan.dim == -1 || plan.dim == d => {
                plan.dim = d;
                plan.slices.push(user);
            }
            (ops::UPDATE, _) if operand_is(user, 0, argument) && !operand_is(user, 1, argument) => {
                plan.updates.push(user)
            }
            _ => {
                blocker.get_or_insert_with(|| {
                    format!(
                        "'{name}' (at {}) uses it",
                        location_text(user_op.location())
                    )
                });
            }
        }
    }
    match (plan.slices.is_empty(), blocker) {
        (true, _) => Ok(None),
        (false, Some(reason)) => Err(format!("{reason}, which needs the replicated value")),
        (false, None) => Ok(Some(plan)),
    }
}

impl AsSlicePass {
    fn rewrite(
        &self,
        func: &Operation,
        index: usize,
        argument: Value,
        plan: Plan,
    ) -> coco_dialects::Result<()> {
        let context = lifetime::context(func);
        let sliced_type = with_layout(context, argument.r#type(), Layout::Sliced(plan.dim))
            .ok_or_else(|| coco_dialects::Error::Build {
                op: "func.func".into(),
                message: "argument is not a static tensor".into(),
            })?;
        let builder = CocoBuilder::new(context, func.location());
        for update in plan.updates {
            // SAFETY: live op of this function.
            let update_ref = unsafe { OperationRef::from_raw(update) };
            let value = as_op(&update_ref).operand(1)?;
            let replacement: Value = match gathered_input(value) {
                Some(x) if x.r#type() == sliced_type => x,
                _ => {
                    let slice = insert_before(update_ref, builder.slice(value, plan.dim)?)?;
                    lifetime::value(as_op(&slice).result(0)?)
                }
            };
            // SAFETY: position 1 exists on coco.update.
            unsafe { mlir_sys::mlirOperationSetOperand(update, 1, replacement.to_raw()) };
            if let Some(gather) = defining_op(value) {
                if op_name(as_op(&gather)) == ops::ALL_GATHER && users(value).is_empty() {
                    erase(gather)?;
                }
            }
        }
        for slice in plan.slices {
            // SAFETY: live op of this function.
            let slice_ref = unsafe { OperationRef::from_raw(slice) };
            replace_all_uses(as_op(&slice_ref).result(0)?.into(), argument);
            erase(slice_ref)?;
        }
        // SAFETY: `argument` is a block argument of the entry block.
        unsafe {
            mlir_sys::mlirBlockArgumentSetType(
                argument.to_raw(),
                melior::ir::TypeLike::to_raw(&sliced_type),
            )
        };
        let (mut inputs, results) =
            function_signature(func).ok_or_else(|| coco_dialects::Error::Build {
                op: "func.func".into(),
                message: "no function_type".into(),
            })?;
        inputs[index] = sliced_type;
        let function_type: Type = FunctionType::new(context, &inputs, &results).into();
        // SAFETY: setting an inherent attribute of the right kind.
        unsafe {
            let name = "function_type";
            mlir_sys::mlirOperationSetAttributeByName(
                func_raw(func),
                mlir_sys::MlirStringRef {
                    data: name.as_ptr().cast(),
                    length: name.len(),
                },
                melior::ir::AttributeLike::to_raw(&TypeAttribute::new(function_type)),
            );
        }
        Ok(())
    }
}

/// The raw handle of `func` (through its entry block's parent).
fn func_raw(func: &Operation) -> mlir_sys::MlirOperation {
    let block = func.region(0).ok().and_then(|r| r.first_block());
    // SAFETY: the entry block's parent is `func` itself.
    block.map_or(
        mlir_sys::MlirOperation {
            ptr: std::ptr::null_mut(),
        },
        |b| unsafe { mlir_sys::mlirBlockGetParentOperation(b.to_raw()) },
    )
}

/// Whether argument `index` carries `{coco.keep_replicated}`: the program
/// needs it whole (weights read by the forward pass), whatever its uses here.
fn keeps_replicated(func: &Operation, index: usize) -> bool {
    argument_attr(func, index, KEEP_REPLICATED_ATTR).is_some()
}

/// The argument attribute that keeps an input replicated.
pub const KEEP_REPLICATED_ATTR: &str = "coco.keep_replicated";

/// `x` when `value` is `coco.all_gather x`.
fn gathered_input<'c, 'a>(value: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
    let op = defining_op(value)?;
    if op_name(as_op(&op)) != ops::ALL_GATHER {
        return None;
    }
    let input = as_op(&op).operand(0).ok()?;
    Some(lifetime::value(input))
}

impl ModulePass for AsSlicePass {
    fn run<'c>(&mut self, _context: &'c Context, module: &Operation<'c>) -> bool {
        if super::leaves_mesh_program(module, "coco-as-slice") {
            return true;
        }
        let functions = functions(module);
        for func_ref in functions {
            let func = as_op(&func_ref);
            let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
                continue;
            };
            for index in 0..block.argument_count() {
                if self.keep.contains(&index) || keeps_replicated(func, index) {
                    continue;
                }
                let Ok(argument) = block.argument(index) else {
                    continue;
                };
                let argument: Value = BlockArgument::into(argument);
                match check(argument) {
                    Ok(None) => {}
                    Ok(Some(plan)) => {
                        if let Err(e) = self.rewrite(func, index, argument, plan) {
                            emit_error(
                                func.location(),
                                &format!("coco-as-slice: internal error: {e}"),
                            );
                            return false;
                        }
                    }
                    Err(reason) => emit_remark(
                        func.location(),
                        &format!("coco-as-slice: not applied to argument #{index}: {reason}"),
                    ),
                }
            }
        }
        true
    }
}
