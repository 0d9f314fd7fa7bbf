//! A rank's block of a distributed value, computed in the kernel from
//! `%rank` (the position in the stage): the block index along each
//! dimension is the rank's coordinates on the axes that slice it, outermost
//! first, as the reference interpreter's `Placement::blocks` counts them.
//! Without a `coco.mesh` the stage is one flat axis and a sliced dimension's
//! block is the position itself; `coco.slice` and dropout's counters are
//! the kernels that need it.

use coco_dialects::coco::{DistTensor, Placement};
use melior::ir::Type;

use super::Emitter;

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    /// The layout along each axis of the stage's mesh of a value of type
    /// `ty` (replicated when it has no coco layout).
    pub(super) fn placement_of(&self, ty: Type) -> Placement {
        DistTensor::from_type(ty)
            .and_then(|t| t.placement(&self.group).ok())
            .unwrap_or_else(|| {
                Placement(vec![
                    coco_dialects::coco::Layout::Replicated;
                    self.group.axes.len()
                ])
            })
    }

    /// The rank's block index along `dim` of a value placed as
    /// `placement`, as an `index`: `(lines, value)`, the lines to put
    /// inside the loop body that uses it (on the GPU the host part of a
    /// kernel may only scale the rank, `LaunchParam::RankTimes`, so the
    /// coordinates are computed on the device); `None` when no axis slices
    /// `dim`. A flat group's one axis is the position itself, with no lines.
    pub(super) fn block_index(
        &mut self,
        placement: &Placement,
        dim: usize,
    ) -> Option<(String, String)> {
        let axes = placement.slicing_axes(dim);
        let mesh = self.group.clone();
        let mut lines = String::new();
        let mut index: Option<String> = None;
        let mut line = |text: String| {
            lines.push_str("      ");
            lines.push_str(&text);
            lines.push('\n');
        };
        for a in axes {
            let size = mesh.axes[a].1;
            let stride: usize = mesh.axes[a + 1..].iter().map(|(_, n)| n).product();
            let coordinate = if mesh.axes.len() == 1 {
                "%rank".to_string()
            } else {
                let quotient = if stride == 1 {
                    "%rank".to_string()
                } else {
                    let s = self.fresh("bs");
                    let q = self.fresh("bq");
                    line(format!("{s} = arith.constant {stride} : index"));
                    line(format!("{q} = arith.divui %rank, {s} : index"));
                    q
                };
                let n = self.fresh("bn");
                let coordinate = self.fresh("bc");
                line(format!("{n} = arith.constant {size} : index"));
                line(format!(
                    "{coordinate} = arith.remui {quotient}, {n} : index"
                ));
                coordinate
            };
            index = Some(match index {
                None => coordinate,
                Some(outer) => {
                    let n = self.fresh("bn");
                    let scaled = self.fresh("bm");
                    let sum = self.fresh("bi");
                    line(format!("{n} = arith.constant {size} : index"));
                    line(format!("{scaled} = arith.muli {outer}, {n} : index"));
                    line(format!("{sum} = arith.addi {scaled}, {coordinate} : index"));
                    sum
                }
            });
        }
        index.map(|value| (lines, value))
    }
}
