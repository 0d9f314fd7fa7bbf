//! A stage's device mesh in the plan: its ranks as a row-major grid of
//! named axes (the program's `coco.mesh`), the axis a collective step runs
//! over, and how an input or output file maps to the ranks' blocks when its
//! layout differs along the axes (`Io::axes`). This mirrors the dialect's
//! `Mesh` and `Placement` (compiler/dialects/src/coco/mesh.rs) without
//! linking MLIR; the reference interpreter cuts and joins files the same
//! way, so a bundle's files are the interpreter's.

use serde::{Deserialize, Serialize};

use crate::plan::{Io, IoLayout, Stage};

/// One axis of a stage's mesh.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshAxis {
    pub name: String,
    pub size: usize,
}

impl Stage {
    /// The index of mesh axis `name`.
    pub fn axis_index(&self, name: &str) -> Option<usize> {
        self.mesh.iter().position(|a| a.name == name)
    }

    /// The ranks a collective over `axis` spans (the whole stage without
    /// one); `None` when the stage has no such axis.
    pub fn axis_size(&self, axis: Option<&str>) -> Option<usize> {
        match axis {
            None => Some(self.size),
            Some(name) => self.axis_index(name).map(|a| self.mesh[a].size),
        }
    }

    /// Stage position `position`'s coordinate along each mesh axis,
    /// outermost first (empty without a mesh).
    pub fn coords(&self, position: usize) -> Vec<usize> {
        let mut coords = vec![0; self.mesh.len()];
        let mut rest = position;
        for (a, axis) in self.mesh.iter().enumerate().rev() {
            coords[a] = rest % axis.size.max(1);
            rest /= axis.size.max(1);
        }
        coords
    }

    /// The communicator of the ranks along axis `a` through `position`:
    /// `(color, key)` for an MPI split, the color numbering the positions
    /// on the other axes and the key the coordinate along `a`.
    pub fn axis_split(&self, a: usize, position: usize) -> (usize, usize) {
        let coords = self.coords(position);
        let color = self
            .mesh
            .iter()
            .zip(&coords)
            .enumerate()
            .filter(|(b, _)| *b != a)
            .fold(0, |color, (_, (axis, c))| color * axis.size + c);
        (color, coords[a])
    }
}

impl Stage {
    /// Writes out what the plan of a stage with a mesh must say explicitly
    /// (`Plan::validate` refuses it left out, since an edit that deleted it
    /// would run differently): on a mesh of two or more axes, the group of
    /// every collective (`axis = ""` for the whole stage), and on any mesh
    /// the layout of every input and output along each axis (a plain
    /// layout's: the same along every axis). The plan runs as before.
    pub fn spell_out_mesh(&mut self) {
        if self.mesh.is_empty() {
            return;
        }
        if self.mesh.len() > 1 {
            for step in &mut self.steps {
                if let Some(axis @ None) = step.axis_mut() {
                    *axis = Some(String::new());
                }
            }
        }
        let axes = self.mesh.len();
        for buffer in &mut self.buffers {
            for io in [&mut buffer.input, &mut buffer.output]
                .into_iter()
                .flatten()
            {
                if io.axes.is_empty() && io.layout != IoLayout::Scalar {
                    io.axes = vec![io.layout; axes];
                    if let IoLayout::Sliced(_) = io.layout {
                        io.layout = IoLayout::Replicated;
                    }
                }
            }
        }
    }
}

/// Where stage position `position` holds its part of a file with `axes`
/// layouts: the index of its value among the local axes' positions
/// (row-major over the local axes, 0 without any), and per dimension of a
/// tensor of `dims` dimensions how many blocks the mesh cuts it into and
/// which one is this rank's (a dimension sliced over several axes splits
/// outermost first).
pub struct Blocks {
    pub local: usize,
    pub locals: usize,
    pub dims: Vec<(usize, usize)>,
}

impl Io {
    /// The blocks of this rank; `Io::axes` names one layout per mesh axis
    /// (`Plan::validate` checks it).
    pub fn blocks(&self, stage: &Stage, position: usize, dims: usize) -> Blocks {
        let coords = stage.coords(position);
        let mut blocks = Blocks {
            local: 0,
            locals: 1,
            dims: vec![(1, 0); dims],
        };
        for ((axis, layout), c) in stage.mesh.iter().zip(&self.axes).zip(coords) {
            match *layout {
                IoLayout::Local => {
                    blocks.local = blocks.local * axis.size + c;
                    blocks.locals *= axis.size;
                }
                IoLayout::Sliced(d) if d < dims => {
                    let (count, index) = blocks.dims[d];
                    blocks.dims[d] = (count * axis.size, index * axis.size + c);
                }
                _ => {}
            }
        }
        blocks
    }

    /// The shape of the file of a buffer of local shape `local` on the
    /// ranks of `stage`: with `axes`, the global tensor (each sliced
    /// dimension times its blocks), with a leading dimension of one tensor
    /// per position on the local axes when there are any; without, as
    /// `IoLayout::file_shape` says.
    pub fn file_shape(&self, local: &[usize], stage: &Stage) -> Result<Vec<usize>, String> {
        if self.axes.is_empty() {
            return self.layout.file_shape(local, stage.size);
        }
        let blocks = self.blocks(stage, 0, local.len());
        let mut shape = Vec::with_capacity(local.len() + 1);
        if self.layout == IoLayout::Local {
            shape.push(blocks.locals);
        }
        for (d, (&n, (count, _))) in local.iter().zip(&blocks.dims).enumerate() {
            shape.push(n.checked_mul(*count).ok_or_else(|| {
                format!("dimension {d} of {local:?} over {count} blocks overflows")
            })?);
        }
        Ok(shape)
    }

    /// The plain layout that moves the file's data exactly as this one
    /// does: `layout` without `axes`, or the layout every axis shares (a
    /// plain layout spans every axis at once, and the blocks of one layout
    /// along every axis, row-major over the axes, are the stage's
    /// positions in order); `None` when the axes differ.
    pub fn plain_layout(&self) -> Option<IoLayout> {
        let Some((first, rest)) = self.axes.split_first() else {
            return Some(self.layout);
        };
        rest.iter().all(|l| l == first).then_some(*first)
    }

    /// Why `axes` cannot describe a file of `stage`, if it cannot: one
    /// layout per mesh axis, none of them `scalar`, and `layout` the file's
    /// form (`local` exactly when some axis is local, else `replicated`).
    pub(crate) fn check_axes(&self, stage: &Stage, dims: usize) -> Result<(), String> {
        if self.axes.is_empty() {
            return Ok(());
        }
        if self.axes.len() != stage.mesh.len() {
            return Err(format!(
                "'{}' gives {} axis layouts for a mesh of {} axes",
                self.name,
                self.axes.len(),
                stage.mesh.len()
            ));
        }
        for layout in &self.axes {
            match layout {
                IoLayout::Scalar => {
                    return Err(format!("'{}': an axis layout cannot be scalar", self.name))
                }
                IoLayout::Sliced(d) if *d >= dims => {
                    return Err(format!(
                        "'{}': sliced-{d}, but the buffer has {dims} dimensions",
                        self.name
                    ))
                }
                _ => {}
            }
        }
        let local = self.axes.contains(&IoLayout::Local);
        let form = if local {
            IoLayout::Local
        } else {
            IoLayout::Replicated
        };
        if self.layout != form {
            return Err(format!(
                "'{}' has layout {} with axis layouts, expected {}",
                self.name,
                self.layout.text(),
                form.text()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Stage {
        Stage {
            function: "f".into(),
            first_rank: 0,
            size: 6,
            mesh: vec![
                MeshAxis {
                    name: "dp".into(),
                    size: 2,
                },
                MeshAxis {
                    name: "tp".into(),
                    size: 3,
                },
            ],
            buffers: Vec::new(),
            steps: Vec::new(),
        }
    }

    #[test]
    fn positions_are_row_major_and_axes_split_by_the_other_coordinates() {
        let stage = grid();
        assert_eq!(stage.coords(4), vec![1, 1]);
        // Along tp, rank 4 is with ranks 3 and 5 (color dp = 1), key 1.
        assert_eq!(stage.axis_split(1, 4), (1, 1));
        // Along dp, rank 4 is with rank 1 (color tp = 1), key 1.
        assert_eq!(stage.axis_split(0, 4), (1, 1));
        assert_eq!(stage.axis_size(Some("tp")), Some(3));
        assert_eq!(stage.axis_size(None), Some(6));
        assert_eq!(stage.axis_size(Some("pp")), None);
    }

    #[test]
    fn files_hold_the_global_tensor_per_local_position() {
        let stage = grid();
        let io = Io {
            name: "x".into(),
            layout: IoLayout::Local,
            axes: vec![IoLayout::Local, IoLayout::Sliced(1)],
        };
        assert_eq!(io.file_shape(&[4, 2], &stage).unwrap(), vec![2, 4, 6]);
        let b = io.blocks(&stage, 5, 2);
        assert_eq!((b.local, b.locals, b.dims), (1, 2, vec![(1, 0), (3, 2)]));
        let both = Io {
            name: "y".into(),
            layout: IoLayout::Replicated,
            axes: vec![IoLayout::Sliced(0), IoLayout::Sliced(0)],
        };
        assert_eq!(both.file_shape(&[2], &stage).unwrap(), vec![12]);
        assert_eq!(both.blocks(&stage, 4, 1).dims, vec![(6, 4)]);
        assert!(both.check_axes(&stage, 1).is_ok());
        let wrong = Io {
            layout: IoLayout::Local,
            ..both
        };
        assert!(wrong.check_axes(&stage, 1).is_err());
    }
}
