//! `coco-fuse`: group ops so the lowering emits them as one unit.
//!
//! * **Fused collective** (CoCoNet's fuse(RS_C_AG)): a `coco.reduce_scatter`,
//!   the computations on slices that follow from it and the `coco.all_gather`s
//!   of their results become one `coco.fused_collective` region, which the
//!   lowering runs as one collective with the computation in between.
//!   Scalar `coco.all_reduce`s that only feed the group join it with the
//!   partial reductions they combine (`coco-partial-reduce`'s norms).
//! * **Fused kernel**: every run of two or more consecutive computations
//!   (element-wise arith/math, coco computations other than matmul, which is
//!   a GEMM call of its own) outside such regions becomes one
//!   `coco.fused_kernel`.
//!
//! **Preconditions**: the grouped ops are in one block and no op between the
//! first and the last one uses a grouped result (the region is placed where
//! the last one was, so such a use would come before its definition, a cycle
//! through the region). A reduce_scatter whose slices reach no all_gather is
//! left alone. Each refusal is a remark naming the blocking op.
//!
//! **Guarantees**: the same ops compute the same values in the same order
//! (bitwise-identical results); grouped results used outside are the region's
//! results.
//!
//! ```mlir
//! // before (after coco-split, coco-reorder)
//! %s = coco.reduce_scatter sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>
//! %t = arith.mulf %s, %s : tensor<1024xf32, #coco.sliced<0>>
//! %r = coco.all_gather %t : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
//! // after --coco-fuse
//! %r = coco.fused_collective -> tensor<1024xf32, #coco.replicated> {
//!   %s = coco.reduce_scatter sum %g : ...
//!   %t = arith.mulf %s, %s : ...
//!   %0 = coco.all_gather %t : ...
//!   coco.yield %0 : tensor<1024xf32, #coco.replicated>
//! }
//! ```

use melior::Context;
use std::collections::HashSet;

use coco_dialects::{
    coco::{
        facts::{facts, Fusion},
        ops, DistTensor, Layout,
    },
    diagnostics::{emit_error, emit_remark},
    ir::{as_op, body_ops, functions, location_text, op_name},
    rewrite::{users, wrap_in_region},
};
use melior::{
    ir::{operation::OperationRef, Operation, ValueLike},
    pass::Pass,
};

use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::{BoolOption, Options, PassOption},
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "coco-fuse",
    summary: "Group reduce_scatter + sliced computations + all_gather into fused collectives, and computation runs into fused kernels",
    description: "**Preconditions**: on a `coco.mesh` only fused kernels are formed (a remark at the mesh says so). grouped ops share a block and no op between the first and last one uses \
                  a grouped result (that would be a cycle through the region); a reduce_scatter whose slices \
                  reach no all_gather is left alone. Each refusal is a remark naming the blocking op.\n\n\
                  **Guarantees**: bitwise-identical results; grouped results used outside become the region's \
                  results.\n\n\
                  ```mlir\n\
                  %s = coco.reduce_scatter sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>\n\
                  %t = arith.mulf %s, %s : tensor<1024xf32, #coco.sliced<0>>\n\
                  %r = coco.all_gather %t : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>\n\
                  // becomes\n\
                  %r = coco.fused_collective -> tensor<1024xf32, #coco.replicated> {\n\
                    ... the three ops ...\n\
                    coco.yield %0 : tensor<1024xf32, #coco.replicated>\n\
                  }\n\
                  ```",
    options: &[
        PassOption::Bool(COLLECTIVES),
        PassOption::Bool(KERNELS),
    ],
    create,
};

const COLLECTIVES: BoolOption = BoolOption {
    name: "collectives",
    summary: "form fused collectives (RS + C + AG)",
    default: true,
};

const KERNELS: BoolOption = BoolOption {
    name: "kernels",
    summary: "form fused kernels from runs of computations",
    default: true,
};

static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct FusePass {
    collectives: bool,
    kernels: bool,
}

fn create(options: &Options) -> Result<Pass> {
    let pass = FusePass {
        collectives: options.bool(&COLLECTIVES)?,
        kernels: options.bool(&KERNELS)?,
    };
    Ok(create_module_pass(&INFO, &PASS_ID, "CocoFuse", pass))
}

/// Which groups the op called `name` may join: its row in the op facts
/// table (`coco_dialects::coco::facts`): element-wise upstream ops, tensor
/// construction and coco computations, never regions or effects.
fn fusion(name: &str) -> Fusion {
    facts(name).fusion
}

/// A `coco.all_reduce` of one value: it combines the partial reductions of
/// slices (`coco-partial-reduce`), so it belongs to the fused collective
/// whose slices it reduces (CoCoNet's fused LAMB).
fn is_scalar_all_reduce(op: &Operation) -> bool {
    op_name(op) == ops::ALL_REDUCE
        && op
            .result(0)
            .ok()
            .and_then(|r| DistTensor::from_type(r.r#type()))
            .is_some_and(|t| t.rank() == 0)
}

fn is_sliced(op: &Operation) -> bool {
    op.result_count() > 0
        && op.results().all(|r| {
            DistTensor::from_type(r.r#type())
                .is_some_and(|t| matches!(t.layout, Some(Layout::Sliced(_))))
        })
}

fn key(op: &OperationRef) -> usize {
    op.to_raw().ptr as usize
}

/// The op between `members`' first and last position (exclusive) that uses
/// a member result without being a member, if any.
fn blocking_use(block: &[OperationRef], members: &[OperationRef]) -> Option<usize> {
    let set: HashSet<usize> = members.iter().map(key).collect();
    let first = block.iter().position(|o| key(o) == key(&members[0]))?;
    let last_member = key(members.last()?);
    let last = block.iter().position(|o| key(o) == last_member)?;
    (first + 1..last).find(|&i| {
        let op = as_op(&block[i]);
        !set.contains(&key(&block[i]))
            && op.operands().any(|v| {
                // SAFETY: a pure query.
                let owner = unsafe { mlir_sys::mlirOpResultGetOwner(v.to_raw()) };
                v.is_operation_result() && set.contains(&(owner.ptr as usize))
            })
    })
}

impl FusePass {
    /// The ops of one fused collective rooted at the reduce_scatter at
    /// `start`: computations on slices that depend on it, and the all_gathers
    /// of those slices.
    fn collective_members<'c, 'a>(
        &self,
        block: &[OperationRef<'c, 'a>],
        start: usize,
    ) -> Vec<OperationRef<'c, 'a>> {
        let mut members = vec![block[start]];
        let mut produced: HashSet<usize> = as_op(&block[start])
            .results()
            .map(|r| r.to_raw().ptr as usize)
            .collect();
        for op_ref in &block[start + 1..] {
            let op = as_op(op_ref);
            let name = op_name(op);
            let depends = op
                .operands()
                .any(|v| produced.contains(&(v.to_raw().ptr as usize)));
            let joins = depends
                && ((fusion(&name).on_slices() && is_sliced(op)) || name == ops::ALL_GATHER);
            if joins {
                members.push(*op_ref);
                produced.extend(op.results().map(|r| r.to_raw().ptr as usize));
            }
        }
        // Trailing computations after the last gather stay outside.
        while members.len() > 1
            && op_name(as_op(members.last().expect("non-empty"))) != ops::ALL_GATHER
        {
            members.pop();
        }
        if members.len() < 2 {
            return members;
        }
        // Pull in the computations that only feed the group (such as
        // `beta1 * m` on a sliced moment, or a bias broadcast that is then
        // sliced): they belong to the same kernel. So do scalar all_reduces
        // that only feed it, with the partial reductions before them.
        let mut set: HashSet<usize> = members.iter().map(key).collect();
        let last = block
            .iter()
            .position(|o| key(o) == key(members.last().expect("non-empty")))
            .unwrap_or(0);
        loop {
            let mut changed = false;
            for op_ref in block[..last].iter().rev() {
                let op = as_op(op_ref);
                let name = op_name(op);
                let joins = fusion(&name).feeding_collective() || is_scalar_all_reduce(op);
                if set.contains(&key(op_ref)) || !joins {
                    continue;
                }
                let only_feeds_group = op.results().all(|r| {
                    let uses = users(r.into());
                    !uses.is_empty() && uses.iter().all(|u| set.contains(&(u.ptr as usize)))
                });
                if only_feeds_group {
                    set.insert(key(op_ref));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        block
            .iter()
            .filter(|o| set.contains(&key(o)))
            .copied()
            .collect()
    }

    fn fuse_collectives(&self, func: &Operation) -> coco_dialects::Result<()> {
        let mut index = 0;
        loop {
            let block = body_ops(func);
            let Some(start) = block
                .iter()
                .skip(index)
                .position(|o| op_name(as_op(o)) == ops::REDUCE_SCATTER)
                .map(|p| p + index)
            else {
                return Ok(());
            };
            index = start + 1;
            let members = self.collective_members(&block, start);
            let rs = as_op(&block[start]);
            if members.len() < 2 {
                emit_remark(rs.location(), "coco-fuse: not fused: no coco.all_gather collects the slices this coco.reduce_scatter produces");
                continue;
            }
            // A use of a grouped value before the group ends: keep the part
            // of the group before that use, if it still ends with a gather.
            let mut members = members;
            if let Some(i) = blocking_use(&block, &members) {
                let position =
                    |op: &OperationRef| block.iter().position(|o| key(o) == key(op)).unwrap_or(0);
                let mut shorter: Vec<OperationRef> = members
                    .iter()
                    .copied()
                    .filter(|m| position(m) < i)
                    .collect();
                while shorter.len() > 1
                    && op_name(as_op(shorter.last().expect("non-empty"))) != ops::ALL_GATHER
                {
                    shorter.pop();
                }
                if shorter.len() >= 2 && blocking_use(&block, &shorter).is_none() {
                    members = shorter;
                }
            }
            if let Some(i) = blocking_use(&block, &members) {
                let blocker = as_op(&block[i]);
                emit_remark(
                    rs.location(),
                    &format!(
                        "coco-fuse: not fused: '{}' at {} uses a value of the group before its end, so the region would come after a use of its own result",
                        op_name(blocker),
                        location_text(blocker.location())
                    ),
                );
                continue;
            }
            wrap_in_region(ops::FUSED_COLLECTIVE, &members, &[])?;
            index = 0;
        }
    }

    fn fuse_kernels(&self, func: &Operation) -> coco_dialects::Result<()> {
        let block = body_ops(func);
        let mut runs: Vec<Vec<OperationRef>> = vec![Vec::new()];
        for op_ref in &block {
            let name = op_name(as_op(op_ref));
            // A matmul is a GEMM library call of its own, and stays visible
            // to coco-overlap; constants are rematerialised by every kernel.
            if fusion(&name).in_kernels() {
                runs.last_mut().expect("non-empty").push(*op_ref);
            } else if !runs.last().expect("non-empty").is_empty() {
                runs.push(Vec::new());
            }
        }
        for run in runs.into_iter().filter(|r| r.len() >= 2) {
            // A run is contiguous, so no outside op sits between its members.
            let produces_used_value = run
                .iter()
                .any(|m| as_op(m).results().any(|r| !users(r.into()).is_empty()));
            if produces_used_value {
                wrap_in_region(ops::FUSED_KERNEL, &run, &[])?;
            }
        }
        Ok(())
    }
}

impl ModulePass for FusePass {
    fn run<'c>(&mut self, _context: &'c Context, module: &Operation<'c>) -> bool {
        // On a mesh only fused kernels are formed: they group computations,
        // whatever the collectives between them run over; a fused
        // collective's peer kernel spans the whole stage.
        let collectives = self.collectives
            && !super::mesh_remark(module, |mesh| {
                format!("coco-fuse: fused collectives not formed: the program runs on the mesh {mesh}, and coco-fuse does not fuse collectives over mesh axes yet (fused kernels are formed)")
            });
        let functions = functions(module);
        for func in functions {
            let func_op = as_op(&func);
            let result = (if collectives {
                self.fuse_collectives(func_op)
            } else {
                Ok(())
            })
            .and_then(|_| {
                if self.kernels {
                    self.fuse_kernels(func_op)
                } else {
                    Ok(())
                }
            });
            if let Err(e) = result {
                emit_error(
                    func_op.location(),
                    &format!("coco-fuse: internal error: {e}"),
                );
                return false;
            }
        }
        true
    }
}
