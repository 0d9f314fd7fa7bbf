//! `coco-split`: all_reduce → reduce_scatter + all_gather (CoCoNet's split).
//!
//! An all_reduce is the composition of a reduce_scatter (each rank receives
//! the reduction of one slice) and an all_gather (every rank collects all
//! slices). Splitting exposes the sliced intermediate, on which `coco-reorder`
//! can move computations (CoCoNet's RS_C_AG schedule). With
//! `via=reduce-broadcast` it instead becomes a reduce to rank 0 and a
//! broadcast from it.
//!
//! **Preconditions**: the all_reduce's tensor has a dimension `dim` (0-d
//! tensors are left alone, with a remark). On a `coco.mesh`, an all_reduce
//! over one axis splits into collectives over that axis, the intermediate
//! sliced along `dim` on it (`#coco.mesh<{dp = #coco.sliced<0>, ...}>`),
//! when no axis inside that one slices `dim` already: the reduce_scatter
//! cuts each rank's block in coordinate order, which is the placement's
//! block order (axes slice outermost first) only then. The split program runs only on
//! world sizes that divide dimension `dim`; the interpreter and runtime
//! report others by name. A mesh fixes the world size, so there an
//! all_reduce whose dimension `dim` the intermediate's blocks do not divide
//! is left alone, with a remark.
//!
//! **Guarantees**: results are bitwise identical to the all_reduce's for every
//! valid world size, for every reduction (`avg` divides once, after the
//! reduction, in both forms): both fold the ranks' values in rank order.
//!
//! ```mlir
//! // before
//! %r = coco.all_reduce sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.replicated>
//! // after --coco-split
//! %s = coco.reduce_scatter sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>
//! %r = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
//! ```

use coco_dialects::lifetime;
use coco_dialects::{
    coco::{ops, CocoBuilder, DistTensor, Layout, Mesh, OnAxis, Placement, Reduction},
    diagnostics::{emit_error, emit_remark},
    ir::{as_op, int_attr, nested_ops, op_name, str_attr},
    rewrite::{erase, insert_before, replace_all_uses},
};
use melior::Context;
use melior::{
    ir::{operation::OperationRef, Operation, ValueLike},
    pass::Pass,
};

use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::{BoolOption, ChoiceOption, IntOption, Options, PassOption},
    PassInfo, Result,
};

pub const INFO: PassInfo = PassInfo {
    argument: "coco-split",
    summary: "Split every coco.all_reduce into reduce_scatter + all_gather (or reduce + broadcast)",
    description: "**Preconditions**: the tensor has dimension `dim` (0-d all_reduces get a remark and stay). \
                  On a `coco.mesh`, an all_reduce over one axis splits into a reduce_scatter and an all_gather over that axis, the \
                  intermediate sliced along `dim` on it, when no axis inside that one slices `dim` already (else a remark). \
                  The split program needs a world size that divides dimension `dim`; on a mesh, which fixes the world \
                  size, an all_reduce whose dimension `dim` does not divide into the intermediate's blocks gets a remark and stays.\n\n\
                  **Guarantees**: bitwise-identical results for every valid world size and reduction.\n\n\
                  ```mlir\n\
                  %r = coco.all_reduce sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.replicated>\n\
                  // becomes\n\
                  %s = coco.reduce_scatter sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>\n\
                  %r = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>\n\
                  ```",
    options: &[
        PassOption::Int(DIM),
        PassOption::Choice(VIA),
        PassOption::Bool(STRICT),
    ],
    create,
};

/// Beyond the rank of any tensor a program has.
const DIM: IntOption = IntOption {
    name: "dim",
    summary: "dimension the intermediate is sliced along",
    default: 0,
    min: 0,
    max: 63,
};

const VIA: ChoiceOption = ChoiceOption {
    name: "via",
    summary: "`reduce-scatter` (reduce_scatter + all_gather) or `reduce-broadcast` (reduce to rank 0 + broadcast)",
    default: "reduce-scatter",
    choices: &["reduce-scatter", "reduce-broadcast"],
};

const STRICT: BoolOption = BoolOption {
    name: "strict",
    summary: "fail instead of remarking when an all_reduce cannot be split",
    default: false,
};

static PASS_ID: PassId = PassId;

#[derive(Clone, Copy, PartialEq)]
enum Via {
    ReduceScatter,
    ReduceBroadcast,
}

#[derive(Clone)]
struct SplitPass {
    dim: i64,
    via: Via,
    strict: bool,
}

fn create(options: &Options) -> Result<Pass> {
    let via = match options.choice(&VIA)? {
        "reduce-broadcast" => Via::ReduceBroadcast,
        _ => Via::ReduceScatter,
    };
    let pass = SplitPass {
        dim: options.int(&DIM)?,
        via,
        strict: options.bool(&STRICT)?,
    };
    Ok(create_module_pass(&INFO, &PASS_ID, "CocoSplit", pass))
}

/// An all_reduce over one axis of the program's mesh: the mesh, the
/// axis's index and name, and the operand's placement.
struct OverAxis {
    mesh: Mesh,
    axis: usize,
    name: String,
    operand: Placement,
}

impl SplitPass {
    /// Why `op` cannot be split, if it cannot; on a mesh, the axis it runs
    /// over (`None`: the whole group, with plain layouts).
    fn check(
        &self,
        op: &Operation,
        mesh: Option<&Mesh>,
    ) -> std::result::Result<Option<OverAxis>, String> {
        let tensor = op
            .operand(0)
            .ok()
            .and_then(|v| DistTensor::from_type(v.r#type()));
        let over = match (mesh, str_attr(op, "axis")) {
            (Some(mesh), Some(name)) => {
                let axis = mesh
                    .axis(&name)
                    .ok_or_else(|| format!("the mesh has no axis \"{name}\""))?;
                let operand = tensor
                    .as_ref()
                    .and_then(|t| t.placement(mesh).ok())
                    .ok_or("its operand has no placement on the mesh")?;
                Some(OverAxis {
                    mesh: mesh.clone(),
                    axis,
                    name,
                    operand,
                })
            }
            (Some(_), None) if tensor.as_ref().is_some_and(|t| t.layout.is_none()) => {
                return Err(
                    "it spans the whole mesh with a #coco.mesh layout (split the collectives over one axis)"
                        .into(),
                )
            }
            _ => None,
        };
        if self.via == Via::ReduceBroadcast {
            return Ok(over);
        }
        let rank = tensor.as_ref().map_or(0, |t| t.rank());
        if self.dim as usize >= rank {
            return Err(format!(
                "the tensor has rank {rank}, so there is no dimension {} to slice the intermediate along",
                self.dim
            ));
        }
        if let Some(mesh) = mesh {
            self.check_divides(tensor.as_ref(), mesh, over.as_ref())?;
        }
        if let Some(over) = &over {
            // The reduce_scatter cuts each rank's block along `dim` in
            // coordinate order: the placement's block order when the axis
            // becomes the innermost to slice `dim` (axes slice outermost
            // first), so no axis inside it may slice `dim` already.
            if let Some(&inner) = over
                .operand
                .slicing_axes(self.dim as usize)
                .iter()
                .find(|&&b| b > over.axis)
            {
                return Err(format!(
                    "dimension {} is sliced along axis \"{}\", inside \"{}\", so the intermediate cannot be sliced along it over \"{}\" (choose another with dim=)",
                    self.dim, over.mesh.axes[inner].0, over.name, over.name
                ));
            }
        }
        Ok(over)
    }

    /// A mesh fixes the world size, so an intermediate whose dimension
    /// `dim` does not divide into its blocks there could never run: the
    /// blocks are the sizes of the axes that slice `dim` in the
    /// intermediate (the split axis and any outside it), or the whole mesh
    /// for an all_reduce over the whole group. Without a mesh the world
    /// size is the run's choice, and the runtime names sizes that do not
    /// divide.
    fn check_divides(
        &self,
        tensor: Option<&DistTensor>,
        mesh: &Mesh,
        over: Option<&OverAxis>,
    ) -> std::result::Result<(), String> {
        let dim = self.dim as usize;
        let Some(Some(size)) = tensor.and_then(|t| t.shape.get(dim).copied()) else {
            return Ok(());
        };
        let (blocks, axes) = match over {
            Some(over) => {
                let mut middle = over.operand.clone();
                middle.0[over.axis] = Layout::Sliced(self.dim);
                let axes: Vec<String> = middle
                    .slicing_axes(dim)
                    .iter()
                    .map(|&a| format!("\"{}\"", mesh.axes[a].0))
                    .collect();
                (middle.parts(mesh, dim), axes.join(" x "))
            }
            None => (mesh.size(), format!("the mesh {}", mesh.text())),
        };
        let size = usize::try_from(size).unwrap_or(0);
        if !size.is_multiple_of(blocks) {
            return Err(format!(
                "dimension {dim} has size {size}, which {axes} ({blocks} ranks) cannot slice evenly, \
                 so the split program could not run on the mesh (choose another with dim=)"
            ));
        }
        Ok(())
    }

    /// The two collectives over one mesh axis that replace `op`.
    fn split_over_axis<'c>(
        &self,
        builder: &CocoBuilder<'c>,
        op_ref: OperationRef<'c, '_>,
        over: &OverAxis,
        kind: Reduction,
    ) -> coco_dialects::Result<Operation<'c>> {
        let op = as_op(&op_ref);
        let input = op.operand(0).map_err(coco_dialects::Error::from)?;
        let result = op.result(0).map_err(coco_dialects::Error::from)?;
        let output = DistTensor::from_type(result.r#type())
            .and_then(|t| t.placement(&over.mesh).ok())
            .ok_or_else(|| coco_dialects::Error::Build {
                op: ops::ALL_REDUCE.into(),
                message: "its result has no placement on the mesh".into(),
            })?;
        let (first, second, root) = match self.via {
            Via::ReduceScatter => {
                let mut middle = over.operand.clone();
                middle.0[over.axis] = Layout::Sliced(self.dim);
                (
                    builder.over_axis(
                        ops::REDUCE_SCATTER,
                        input,
                        OnAxis {
                            axis: &over.name,
                            mesh: &over.mesh,
                            placement: &middle,
                        },
                        Some(kind),
                        None,
                    )?,
                    ops::ALL_GATHER,
                    None,
                )
            }
            Via::ReduceBroadcast => (
                builder.over_axis(
                    ops::REDUCE,
                    input,
                    OnAxis {
                        axis: &over.name,
                        mesh: &over.mesh,
                        placement: &over.operand,
                    },
                    Some(kind),
                    Some(0),
                )?,
                ops::BROADCAST,
                Some(0),
            ),
        };
        let first = insert_before(op_ref, first)?;
        let intermediate = as_op(&first)
            .result(0)
            .map_err(coco_dialects::Error::from)?
            .into();
        builder.over_axis(
            second,
            intermediate,
            OnAxis {
                axis: &over.name,
                mesh: &over.mesh,
                placement: &output,
            },
            None,
            root,
        )
    }

    fn rewrite(&self, op_ref: OperationRef, over: Option<&OverAxis>) -> coco_dialects::Result<()> {
        let op = as_op(&op_ref);
        let context = lifetime::context(op);
        let builder = CocoBuilder::new(context, op.location());
        let kind = int_attr(op, "kind")
            .and_then(Reduction::from_value)
            .unwrap_or(Reduction::Sum);
        // The first collective goes in before `op`; `second` is the one
        // whose result replaces `op`'s.
        let second = match over {
            Some(over) => self.split_over_axis(&builder, op_ref, over, kind)?,
            None => {
                let input = op.operand(0).map_err(coco_dialects::Error::from)?;
                let (first, root) = match self.via {
                    Via::ReduceScatter => (builder.reduce_scatter(kind, input, self.dim)?, None),
                    Via::ReduceBroadcast => (builder.reduce(kind, input, 0)?, Some(0)),
                };
                let first = insert_before(op_ref, first)?;
                let intermediate = as_op(&first)
                    .result(0)
                    .map_err(coco_dialects::Error::from)?
                    .into();
                match root {
                    None => builder.all_gather(intermediate)?,
                    Some(root) => builder.broadcast(intermediate, root)?,
                }
            }
        };
        let second = insert_before(op_ref, second)?;
        let old = op.result(0).map_err(coco_dialects::Error::from)?.into();
        let new = as_op(&second)
            .result(0)
            .map_err(coco_dialects::Error::from)?
            .into();
        replace_all_uses(old, new);
        erase(op_ref)
    }
}

impl ModulePass for SplitPass {
    fn run<'c>(&mut self, _context: &'c Context, module: &Operation<'c>) -> bool {
        let mesh = Mesh::declared(module).map(|d| d.mesh);
        let candidates: Vec<OperationRef> = nested_ops(module)
            .into_iter()
            .filter(|op| op_name(as_op(op)) == ops::ALL_REDUCE)
            .collect();
        let mut ok = true;
        for op_ref in candidates {
            let op = as_op(&op_ref);
            let over = match self.check(op, mesh.as_ref()) {
                Ok(over) => over,
                Err(reason) => {
                    let message = format!("coco-split: not applied to coco.all_reduce: {reason}");
                    if self.strict {
                        emit_error(op.location(), &message);
                        ok = false;
                    } else {
                        emit_remark(op.location(), &message);
                    }
                    continue;
                }
            };
            let location = op.location();
            if let Err(e) = self.rewrite(op_ref, over.as_ref()) {
                emit_error(location, &format!("coco-split: internal error: {e}"));
                return false;
            }
        }
        ok
    }
}
