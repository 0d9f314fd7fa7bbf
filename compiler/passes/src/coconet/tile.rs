//! `coco-tile`: choose the tile sizes kernel generation uses.
//!
//! Every computation that becomes a kernel gets a `coco.tile` attribute with
//! one tile size per dimension of its (local) result: matmuls get
//! `[rows, cols]` output tiles (`[rows, cols, depth]` with a depth, the
//! k-extent of a block), element-wise ops, fused kernels and fused
//! collectives get a 1-D block over the flattened elements. The CPU's GEMM
//! helpers block A and B by a matmul's tile (`coco_lowering::gemm`: rows
//! of A and columns of B per cache block, and their depth); the semantics
//! do not change. Defaults depend on `target`:
//!
//! | target | matmul tile | element-wise block |
//! |---|---|---|
//! | `gpu` (default) | 128 x 128 | 1024 |
//! | `cpu` | 192 x 2048 x 256 | 4096 |
//!
//! **Preconditions**: none; tile sizes larger than a dimension are clamped to
//! it, so every tile is valid. On a `coco.mesh` too: only attributes change.
//!
//! **Guarantees**: the IR is unchanged except for `coco.tile` attributes.
//!
//! ```mlir
//! %y = coco.matmul %x, %w : ... -> tensor<512x256xf16, #coco.sliced<1>>
//! // after --coco-tile (4 ranks do not matter: tiles refer to global shapes)
//! %y = coco.matmul %x, %w {coco.tile = array<i64: 128, 128>} : ...
//! ```

use coco_dialects::lifetime;
use coco_dialects::{
    coco::{
        facts::{facts, Tile},
        ops, DistTensor,
    },
    diagnostics::emit_error,
    ir::{as_op, functions, nested_ops, op_name},
};
use melior::Context;
use melior::{
    ir::{attribute::DenseI64ArrayAttribute, operation::OperationRef, Operation, ValueLike},
    pass::Pass,
};

use coco_pass::{
    module_pass::{create_module_pass, ModulePass, PassId},
    options::{ChoiceOption, IntOption, Options, PassOption},
    PassInfo, Result,
};

/// The attribute carrying tile sizes.
pub const TILE_ATTR: &str = "coco.tile";

pub const INFO: PassInfo = PassInfo {
    argument: "coco-tile",
    summary: "Attach kernel tile sizes (coco.tile) to matmuls, element-wise ops and fused regions",
    description: "**Preconditions**: none; tiles larger than a dimension are clamped to it.\n\n\
                  **Guarantees**: only `coco.tile` attributes are added: `[rows, cols]` output tiles on \
                  matmuls (`[rows, cols, depth]` with a depth: the CPU's GEMMs block A and B by them), \
                  a 1-D block over the flattened elements on element-wise ops and fused regions. \
                  Defaults: `gpu` 128x128 and 1024, `cpu` 192x2048x256 and 4096.\n\n\
                  ```mlir\n\
                  %y = coco.matmul %x, %w : ... -> tensor<512x256xf16, #coco.sliced<1>>\n\
                  // becomes\n\
                  %y = coco.matmul %x, %w {coco.tile = array<i64: 128, 128>} : ...\n\
                  ```",
    options: &[
        PassOption::Choice(TARGET),
        PassOption::Int(MATMUL_ROWS),
        PassOption::Int(MATMUL_COLS),
        PassOption::Int(MATMUL_DEPTH),
        PassOption::Int(BLOCK),
    ],
    create,
};

const TARGET: ChoiceOption = ChoiceOption {
    name: "target",
    summary: "`gpu` or `cpu`: chooses the default tile sizes",
    default: "gpu",
    choices: &["gpu", "cpu"],
};

/// A tile size: 0 is the target's default; larger than any kernel needs is
/// a typo.
const fn tile_size(name: &'static str, summary: &'static str) -> IntOption {
    IntOption {
        name,
        summary,
        default: 0,
        min: 0,
        max: 65_536,
    }
}

const MATMUL_ROWS: IntOption =
    tile_size("matmul-rows", "matmul output tile rows (0: target default)");
const MATMUL_COLS: IntOption = tile_size(
    "matmul-cols",
    "matmul output tile columns (0: target default)",
);
const MATMUL_DEPTH: IntOption = tile_size(
    "matmul-depth",
    "matmul k-extent of a block (0: target default; none on gpu)",
);
const BLOCK: IntOption = tile_size(
    "block",
    "elements per block of element-wise kernels (0: target default)",
);

static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct TilePass {
    rows: i64,
    cols: i64,
    /// 0: no depth in the tile.
    depth: i64,
    block: i64,
}

fn create(options: &Options) -> Result<Pass> {
    let (rows, cols, depth, block) = match options.choice(&TARGET)? {
        "cpu" => (192, 2048, 256, 4096),
        _ => (128, 128, 0, 1024),
    };
    let pick = |bound: &IntOption, default: i64| -> Result<i64> {
        match options.int(bound)? {
            0 => Ok(default),
            v => Ok(v),
        }
    };
    let pass = TilePass {
        rows: pick(&MATMUL_ROWS, rows)?,
        cols: pick(&MATMUL_COLS, cols)?,
        depth: pick(&MATMUL_DEPTH, depth)?,
        block: pick(&BLOCK, block)?,
    };
    Ok(create_module_pass(&INFO, &PASS_ID, "CocoTile", pass))
}

impl TilePass {
    /// The tile for `op`, if it becomes a kernel.
    fn tile(&self, op: &Operation) -> Option<Vec<i64>> {
        let name = op_name(op);
        let result = DistTensor::from_type(op.result(0).ok()?.r#type())?;
        let shape = result.static_shape()?;
        let elements: i64 = shape.iter().product();
        // Which ops become kernels with a tile: the op facts table.
        match facts(&name).tile {
            Tile::Matmul => {
                let n = shape.len();
                let mut tile = vec![self.rows.min(shape[n - 2]), self.cols.min(shape[n - 1])];
                if self.depth > 0 {
                    let lhs = DistTensor::from_type(op.operand(0).ok()?.r#type())?;
                    let k = *lhs.static_shape()?.last()?;
                    tile.push(self.depth.min(k.max(1)));
                }
                Some(tile)
            }
            Tile::Block => Some(vec![self.block.min(elements.max(1))]),
            Tile::None => None,
        }
    }
}

impl ModulePass for TilePass {
    fn run<'c>(&mut self, _context: &'c Context, module: &Operation<'c>) -> bool {
        let functions = functions(module);
        for func in functions {
            // Ops inside fused regions share the region's tile; an overlap
            // region's ops are kernels of their own.
            let ops: Vec<OperationRef> = nested_ops(as_op(&func))
                .into_iter()
                .filter(|o| {
                    as_op(o).parent_operation().is_some_and(|p| {
                        matches!(op_name(as_op(&p)).as_str(), "func.func" | ops::OVERLAP)
                    })
                })
                .collect();
            for op_ref in ops {
                let op = as_op(&op_ref);
                let Some(tile) = self.tile(op) else { continue };
                let context = lifetime::context(op);
                let attr = DenseI64ArrayAttribute::new(context, &tile);
                // SAFETY: setting a discardable attribute on a live op.
                unsafe {
                    mlir_sys::mlirOperationSetAttributeByName(
                        op_ref.to_raw(),
                        mlir_sys::MlirStringRef {
                            data: TILE_ATTR.as_ptr().cast(),
                            length: TILE_ATTR.len(),
                        },
                        melior::ir::AttributeLike::to_raw(&attr),
                    );
                }
                if op.attribute(TILE_ATTR).is_err() {
                    emit_error(
                        op.location(),
                        "coco-tile: internal error: the tile attribute was not set",
                    );
                    return false;
                }
            }
        }
        true
    }
}
