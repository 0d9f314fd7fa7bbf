//! Device meshes: the ranks of a function's group as a row-major grid of
//! named axes (`coco.mesh @grid [dp = 2, tp = 2]`), and a tensor's
//! [`Placement`], its layout along each axis. A program without a mesh has
//! one unnamed axis over the whole group, so every backend and rule works on
//! placements alone and a plain layout is the same layout on every axis.

use melior::{
    ir::{r#type::RankedTensorType, Attribute, Operation, Type},
    Context,
};

use super::{layout::LocalShapeError, ops, DistTensor, Layout};
use crate::ir::{as_op, body_ops, i64_array_attr, location_text, op_name, str_array_attr};

/// The axes of a group, outermost first, with their sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    pub axes: Vec<(String, usize)>,
}

/// A `coco.mesh` declaration: the mesh and where it is written.
#[derive(Clone, Debug)]
pub struct MeshDecl {
    pub name: String,
    pub mesh: Mesh,
    pub location: String,
}

impl Mesh {
    /// One unnamed axis over a group of `size` ranks: a program without a
    /// `coco.mesh`.
    pub fn flat(size: usize) -> Mesh {
        Mesh {
            axes: vec![(String::new(), size.max(1))],
        }
    }

    /// The ranks the mesh spans.
    pub fn size(&self) -> usize {
        self.axes
            .iter()
            .fold(1usize, |size, (_, n)| size.saturating_mul(*n))
    }

    /// The program's declared mesh (the first `coco.mesh`; the verifier
    /// refuses a second), or `None`.
    pub fn declared(module: &Operation) -> Option<MeshDecl> {
        body_ops(module).iter().find_map(|op| {
            let op = as_op(op);
            (op_name(op) == ops::MESH).then(|| {
                let names = str_array_attr(op, "axes").unwrap_or_default();
                let sizes = i64_array_attr(op, "sizes").unwrap_or_default();
                MeshDecl {
                    name: crate::ir::str_attr(op, "sym_name").unwrap_or_default(),
                    mesh: Mesh {
                        axes: names
                            .into_iter()
                            .zip(sizes)
                            .map(|(n, s)| (n, usize::try_from(s).unwrap_or(1).max(1)))
                            .collect(),
                    },
                    location: location_text(op.location()),
                }
            })
        })
    }

    /// The mesh a function of `module` runs on, over a group of
    /// `group_size` ranks: the declared one, or one flat axis.
    pub fn of_group(module: &Operation, group_size: usize) -> Mesh {
        Mesh::declared(module).map_or_else(|| Mesh::flat(group_size), |d| d.mesh)
    }

    pub fn axis(&self, name: &str) -> Option<usize> {
        self.axes.iter().position(|(n, _)| n == name)
    }

    /// Rank `rank`'s position along each axis.
    pub fn coords(&self, rank: usize) -> Vec<usize> {
        let mut coords = vec![0; self.axes.len()];
        let mut rest = rank;
        for (i, (_, size)) in self.axes.iter().enumerate().rev() {
            coords[i] = rest % size;
            rest /= size;
        }
        coords
    }

    /// The ranks along `axis`, one list per position on the other axes
    /// (in rank order): the groups a collective over `axis` runs on.
    pub fn rows(&self, axis: usize) -> Vec<Vec<usize>> {
        let mut rows: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
        for rank in 0..self.size() {
            let mut key = self.coords(rank);
            key[axis] = 0;
            match rows.iter_mut().find(|(k, _)| *k == key) {
                Some((_, ranks)) => ranks.push(rank),
                None => rows.push((key, vec![rank])),
            }
        }
        rows.into_iter().map(|(_, ranks)| ranks).collect()
    }

    /// The text of the declaration's axes: `[dp = 2, tp = 2]`.
    pub fn text(&self) -> String {
        let axes: Vec<String> = self
            .axes
            .iter()
            .map(|(n, s)| format!("{} = {s}", axis_text(n)))
            .collect();
        format!("[{}]", axes.join(", "))
    }
}

/// An axis name as MLIR writes it: bare when it is an identifier, else
/// quoted and escaped, so a quote or newline in a name stays in it.
pub(crate) fn axis_text(name: &str) -> String {
    let bare = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

/// A tensor's layout along each axis of its mesh, in the mesh's order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Placement(pub Vec<Layout>);

impl Placement {
    /// The layout along every axis when it is one layout (a plain
    /// `#coco.local`, `#coco.replicated` or `#coco.sliced<d>`).
    pub fn uniform(&self) -> Option<Layout> {
        let first = *self.0.first()?;
        self.0.iter().all(|l| *l == first).then_some(first)
    }

    /// Along which axes dimension `dim` is sliced, outermost first.
    pub fn slicing_axes(&self, dim: usize) -> Vec<usize> {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, l)| **l == Layout::Sliced(dim as i64))
            .map(|(a, _)| a)
            .collect()
    }

    /// Into how many blocks the mesh splits dimension `dim`.
    pub fn parts(&self, mesh: &Mesh, dim: usize) -> usize {
        self.slicing_axes(dim)
            .iter()
            .map(|&a| mesh.axes[a].1)
            .product()
    }

    /// Whether some axis holds per-rank values.
    pub fn has_local(&self) -> bool {
        self.0.contains(&Layout::Local)
    }

    /// The positions along the local axes that tell a rank's own value
    /// apart: `(index, count)`, row-major over the local axes in mesh order
    /// (`(0, 1)` when no axis is local).
    pub fn local_part(&self, mesh: &Mesh, rank: usize) -> (usize, usize) {
        let coords = mesh.coords(rank);
        let mut index = 0;
        let mut count = 1;
        for (a, layout) in self.0.iter().enumerate() {
            if *layout == Layout::Local {
                index = index * mesh.axes[a].1 + coords[a];
                count *= mesh.axes[a].1;
            }
        }
        (index, count)
    }

    /// For each dimension of a tensor of rank `rank`: into how many blocks
    /// the mesh splits it and which block rank `rank_in_group` holds
    /// (`(1, 0)` for a dimension no axis slices). A dimension sliced over
    /// several axes splits in mesh order, outermost first.
    pub fn blocks(&self, mesh: &Mesh, rank_in_group: usize, rank: usize) -> Vec<(usize, usize)> {
        let coords = mesh.coords(rank_in_group);
        (0..rank)
            .map(|d| {
                self.slicing_axes(d)
                    .into_iter()
                    .fold((1, 0), |(count, index), a| {
                        (count * mesh.axes[a].1, index * mesh.axes[a].1 + coords[a])
                    })
            })
            .collect()
    }

    /// The shape one rank holds of a tensor of `global` shape.
    pub fn local_shape(
        &self,
        mesh: &Mesh,
        global: &[usize],
    ) -> Result<Vec<usize>, LocalShapeError> {
        let mut shape = global.to_vec();
        for (dim, size) in shape.iter_mut().enumerate() {
            let count = self.parts(mesh, dim);
            if !size.is_multiple_of(count) {
                return Err(LocalShapeError::NotDivisible { dim, size: *size });
            }
            *size /= count;
        }
        Ok(shape)
    }

    /// The text of the layout: the plain layout when uniform, else
    /// `#coco.mesh<{dp = ..., tp = ...}>` (axes in mesh order).
    pub fn text(&self, mesh: &Mesh) -> String {
        if let Some(layout) = self.uniform() {
            return layout.to_string();
        }
        let axes: Vec<String> = mesh
            .axes
            .iter()
            .zip(&self.0)
            .map(|((name, _), layout)| format!("{} = {layout}", axis_text(name)))
            .collect();
        format!("#coco.mesh<{{{}}}>", axes.join(", "))
    }
}

/// The ranked tensor type with `ty`'s shape and element type placed as
/// `placement` on `mesh` (a plain layout when it is one along every axis).
/// `None` when `ty` is not a statically shaped ranked tensor.
pub fn placed_type<'c>(
    context: &'c Context,
    ty: Type<'c>,
    mesh: &Mesh,
    placement: &Placement,
) -> Option<Type<'c>> {
    let tensor = DistTensor::from_type(ty)?;
    let dims: Vec<u64> = tensor.static_shape()?.iter().map(|&d| d as u64).collect();
    shaped_placed_type(context, &dims, tensor.element, mesh, placement)
}

/// The ranked tensor type of shape `dims` and element type `element`
/// placed as `placement` on `mesh`.
pub fn shaped_placed_type<'c>(
    context: &'c Context,
    dims: &[u64],
    element: Type<'c>,
    mesh: &Mesh,
    placement: &Placement,
) -> Option<Type<'c>> {
    let layout = Attribute::parse(context, &placement.text(mesh))?;
    Some(RankedTensorType::new(dims, element, Some(layout)).into())
}

impl DistTensor<'_> {
    /// The tensor's layout along each axis of `mesh`. `Err` names what is
    /// wrong: no coco layout, or a `#coco.mesh` layout that does not name
    /// exactly the mesh's axes.
    pub fn placement(&self, mesh: &Mesh) -> Result<Placement, String> {
        if let Some(layout) = self.layout {
            return Ok(Placement(vec![layout; mesh.axes.len()]));
        }
        let Some(axes) = &self.axes else {
            return Err("has no coco layout".into());
        };
        if mesh.axes.len() == 1 && mesh.axes[0].0.is_empty() {
            return Err(
                "has a #coco.mesh layout, but the program declares no coco.mesh".to_string(),
            );
        }
        if let Some((name, _)) = axes.iter().find(|(n, _)| mesh.axis(n).is_none()) {
            return Err(format!(
                "names axis \"{name}\", which the mesh {} does not have",
                mesh.text()
            ));
        }
        mesh.axes
            .iter()
            .map(|(name, _)| {
                axes.iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, l)| *l)
                    .ok_or_else(|| {
                        format!(
                            "gives no layout along axis \"{name}\" of the mesh {}",
                            mesh.text()
                        )
                    })
            })
            .collect::<Result<_, _>>()
            .map(Placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Mesh {
        Mesh {
            axes: vec![("dp".into(), 2), ("tp".into(), 3)],
        }
    }

    #[test]
    fn ranks_are_row_major_and_rows_run_along_one_axis() {
        let mesh = grid();
        assert_eq!(mesh.coords(4), vec![1, 1]);
        assert_eq!(mesh.rows(1), vec![vec![0, 1, 2], vec![3, 4, 5]]);
        assert_eq!(mesh.rows(0), vec![vec![0, 3], vec![1, 4], vec![2, 5]]);
    }

    #[test]
    fn a_dimension_sliced_over_two_axes_splits_outermost_first() {
        let mesh = grid();
        let both = Placement(vec![Layout::Sliced(0), Layout::Sliced(0)]);
        // Rank 4 is (dp 1, tp 1): block 1 * 3 + 1 of 6, the flat rank's.
        assert_eq!(both.blocks(&mesh, 4, 2), vec![(6, 4), (1, 0)]);
        assert_eq!(both.local_shape(&mesh, &[12, 5]).unwrap(), vec![2, 5]);
        let split = Placement(vec![Layout::Sliced(0), Layout::Sliced(1)]);
        assert_eq!(split.blocks(&mesh, 5, 2), vec![(2, 1), (3, 2)]);
        assert!(split.local_shape(&mesh, &[4, 4]).is_err());
    }

    #[test]
    fn local_axes_number_the_distinct_values() {
        let mesh = grid();
        let per_replica = Placement(vec![Layout::Local, Layout::Sliced(1)]);
        assert_eq!(per_replica.local_part(&mesh, 4), (1, 2));
        assert_eq!(
            Placement(vec![Layout::Replicated; 2]).local_part(&mesh, 4),
            (0, 1)
        );
    }
}
