//! `coco-overlap`: pipeline a matmul with the collective that consumes it
//! (CoCoNet's overlap).
//!
//! A `coco.matmul` whose result only feeds a `coco.all_reduce`, a
//! `coco.reduce_scatter` or a `coco.fused_collective` is grouped with that
//! consumer in a `coco.overlap chunks N` region. The lowering splits the
//! matmul's rows into `N` chunks and runs the collective on chunk `i` while
//! chunk `i + 1` is computed, on two streams; the region's semantics are its
//! body's, so the interpreter runs it unchanged.
//!
//! **Preconditions**: the matmul's result has no other use; its row count is
//! divisible by `chunks`. Otherwise a remark names the reason. On a
//! `coco.mesh` too: a collective over one axis reduces each row of ranks
//! element by element, so its chunks of matmul rows are independent just
//! as over the whole group.
//!
//! **Guarantees**: bitwise-identical results (the same ops, in order).
//!
//! ```mlir
//! // before
//! %p = coco.matmul %x, %w : ... -> tensor<16x1024xf16, #coco.local>
//! %r = coco.all_reduce sum %p : tensor<16x1024xf16, #coco.local> -> tensor<16x1024xf16, #coco.replicated>
//! // after --coco-overlap="chunks=4"
//! %r = coco.overlap chunks 4 -> tensor<16x1024xf16, #coco.replicated> {
//!   %p = coco.matmul %x, %w : ...
//!   %0 = coco.all_reduce sum %p : ...
//!   coco.yield %0 : tensor<16x1024xf16, #coco.replicated>
//! }
//! ```

use coco_dialects::lifetime;
use coco_dialects::{
    coco::{ops, DistTensor},
    diagnostics::{emit_error, emit_remark},
    ir::{as_op, body_ops, functions, op_name},
    rewrite::{users, wrap_in_region},
};
use melior::Context;
use melior::{
    ir::{
        attribute::IntegerAttribute, operation::OperationRef, r#type::IntegerType, Identifier,
        Operation, ValueLike,
    },
    pass::Pass,
};

use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::{IntOption, Options, PassOption},
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "coco-overlap",
    summary: "Group a matmul with the collective consuming it into an overlap region pipelined in chunks",
    description: "**Preconditions**: the matmul's result only feeds one coco.all_reduce, coco.reduce_scatter or \
                  coco.fused_collective, and its row count is divisible by `chunks`; otherwise a remark.\n\n\
                  **Guarantees**: bitwise-identical results; the lowering pipelines chunk `i`'s collective with \
                  chunk `i + 1`'s matmul.\n\n\
                  ```mlir\n\
                  %p = coco.matmul %x, %w : ... -> tensor<16x1024xf16, #coco.local>\n\
                  %r = coco.all_reduce sum %p : tensor<16x1024xf16, #coco.local> -> tensor<16x1024xf16, #coco.replicated>\n\
                  // becomes\n\
                  %r = coco.overlap chunks 4 -> tensor<16x1024xf16, #coco.replicated> {\n\
                    %p = coco.matmul %x, %w : ...\n\
                    %0 = coco.all_reduce sum %p : ...\n\
                    coco.yield %0 : tensor<16x1024xf16, #coco.replicated>\n\
                  }\n\
                  ```",
    options: &[PassOption::Int(CHUNKS)],
    create,
};

/// Each chunk becomes its own kernels and collective.
const CHUNKS: IntOption = IntOption {
    name: "chunks",
    summary: "number of pipeline chunks (rows of the matmul)",
    default: 4,
    min: 1,
    max: 1024,
};

static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct OverlapPass {
    chunks: i64,
}

fn create(options: &Options) -> Result<Pass> {
    let chunks = options.int(&CHUNKS)?;
    Ok(create_module_pass(
        &INFO,
        &PASS_ID,
        "CocoOverlap",
        OverlapPass { chunks },
    ))
}

const CONSUMERS: &[&str] = &[ops::ALL_REDUCE, ops::REDUCE_SCATTER, ops::FUSED_COLLECTIVE];

impl OverlapPass {
    /// The consumer to overlap `matmul` with, or why there is none.
    fn check<'c, 'a>(
        &self,
        matmul: &Operation<'c>,
        block: &[OperationRef<'c, 'a>],
    ) -> std::result::Result<OperationRef<'c, 'a>, String> {
        let result = matmul.result(0).map_err(|e| e.to_string())?;
        let rows = DistTensor::from_type(result.r#type())
            .and_then(|t| t.shape.first().copied().flatten())
            .unwrap_or(0);
        if rows % self.chunks != 0 {
            return Err(format!(
                "its {rows} rows do not split into {} chunks",
                self.chunks
            ));
        }
        let uses = users(result.into());
        // The consumer is the op in this block that is, or contains, the user.
        let mut consumer: Option<OperationRef> = None;
        for user in uses {
            let found = block.iter().find(|op| {
                let mut current = user;
                loop {
                    if current.ptr == op.to_raw().ptr {
                        return true;
                    }
                    // SAFETY: walking up parents of a live op.
                    current = unsafe { mlir_sys::mlirOperationGetParentOperation(current) };
                    if current.ptr.is_null() {
                        return false;
                    }
                }
            });
            match (found, consumer) {
                (Some(op), None) => consumer = Some(*op),
                (Some(op), Some(c)) if op.to_raw().ptr == c.to_raw().ptr => {}
                _ => return Err("its result has uses other than one collective".into()),
            }
        }
        let consumer = consumer.ok_or("its result is unused")?;
        let name = op_name(as_op(&consumer));
        if !CONSUMERS.contains(&name.as_str()) {
            // all_to_all and all_gather are collectives too, just not ones
            // this pass chunks: say which it does.
            let what = if ops::is_collective(&name) {
                "a collective this pass does not overlap"
            } else {
                "not a collective"
            };
            return Err(format!(
                "its result feeds '{name}', {what} (it overlaps a matmul with coco.all_reduce, coco.reduce_scatter or coco.fused_collective)"
            ));
        }
        Ok(consumer)
    }
}

impl ModulePass for OverlapPass {
    fn run<'c>(&mut self, _context: &'c Context, module: &Operation<'c>) -> bool {
        let functions = functions(module);
        for func in functions {
            let matmuls: Vec<_> = body_ops(as_op(&func))
                .into_iter()
                .filter(|o| op_name(as_op(o)) == ops::MATMUL)
                .collect();
            for matmul in matmuls {
                let block = body_ops(as_op(&func));
                let op = as_op(&matmul);
                let location = op.location();
                match self.check(op, &block) {
                    Err(reason) => emit_remark(
                        location,
                        &format!("coco-overlap: not applied to coco.matmul: {reason}"),
                    ),
                    Ok(consumer) => {
                        let context = lifetime::context(op);
                        let chunks = (
                            Identifier::new(context, "chunks"),
                            IntegerAttribute::new(
                                IntegerType::new(context, 64).into(),
                                self.chunks,
                            )
                            .into(),
                        );
                        if let Err(e) = wrap_in_region(ops::OVERLAP, &[matmul, consumer], &[chunks])
                        {
                            emit_error(location, &format!("coco-overlap: internal error: {e}"));
                            return false;
                        }
                    }
                }
            }
        }
        true
    }
}
