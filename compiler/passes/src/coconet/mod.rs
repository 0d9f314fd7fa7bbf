//! CoCoNet's semantics-preserving transformations.

pub mod as_slice;
pub mod fuse;
pub mod overlap;
pub mod partial_reduce;
pub mod reorder;
pub mod split;
pub mod tile;

use coco_dialects::{
    coco::{ops, Mesh},
    diagnostics::emit_remark,
};
use melior::ir::Operation;

/// Whether `pass` leaves `module` as written because it runs on a
/// `coco.mesh`: the transformations reason about collectives over a whole
/// group and plain layouts, and none is proven over mesh axes yet. Says so
/// in a remark at the mesh rather than skip in silence.
pub(crate) fn leaves_mesh_program(module: &Operation, pass: &str) -> bool {
    mesh_remark(module, |mesh| {
        format!("{pass}: not applied: the program runs on the mesh {mesh}, and {pass} does not transform collectives over mesh axes yet")
    })
}

/// Whether `module` runs on a `coco.mesh`; if so, emits the remark
/// `message(mesh)` at the mesh (`mesh`: `@grid [dp = 2, tp = 2]`).
pub(crate) fn mesh_remark(module: &Operation, message: impl Fn(&str) -> String) -> bool {
    let Some(declared) = Mesh::declared(module) else {
        return false;
    };
    let mesh_op = coco_dialects::ir::body_ops(module)
        .into_iter()
        .find(|op| coco_dialects::ir::op_name(coco_dialects::ir::as_op(op)) == ops::MESH);
    if let Some(mesh_op) = mesh_op {
        let location = coco_dialects::ir::as_op(&mesh_op).location();
        emit_remark(
            location,
            &message(&format!("@{} {}", declared.name, declared.mesh.text())),
        );
    }
    true
}
