//! Program inputs and outputs as `.npy` files, distributed by their
//! [`IoLayout`] over the ranks of a stage of `size` ranks, rank r at
//! position r:
//!
//! | layout       | file shape                        | rank r's buffer        |
//! |--------------|-----------------------------------|------------------------|
//! | `scalar`     | `()` (0-d)                        | the value              |
//! | `replicated` | the local shape                   | the whole file         |
//! | `local`      | `[size, ...local]`                | row r                  |
//! | `sliced-d`   | local, dim d multiplied by `size` | part r of `size` along d |
//!
//! On a stage with a mesh, a file whose layout differs along the axes
//! (`Io::axes`) holds the global tensor (one per position on the local
//! axes, stacked, when some are local) and each rank its block, as the
//! reference interpreter cuts it (`coco_bundle::mesh`).
//!
//! Every rank reads the input files itself (the files are on a filesystem
//! every rank sees, as the bundle is) and keeps its part: no traffic before
//! the first step, and a bad file is reported by every rank that reads it.
//! Outputs go the other way: each stage's position 0 gathers its ranks'
//! parts and writes the file, so that a run's outputs can be fed back as
//! inputs and compared with the interpreter's, whose files follow the same
//! convention.

use std::path::{Path, PathBuf};

use coco_base::npy;
use coco_bundle::{Buffer, Io, IoLayout, Stage};

use crate::{
    comm::Comm,
    error::{Error, Result},
    layout,
    limits::zeroed,
};

fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// The shape of the file that holds `buffer` (written as `io`) for the
/// ranks of `stage`.
pub fn file_shape(buffer: &Buffer, io: &Io, stage: &Stage) -> Result<Vec<usize>> {
    io.file_shape(&buffer.shape, stage)
        .map_err(|e| Error::Plan(format!("buffer '{}': {e}", buffer.name)))
}

/// The layout a message names: `layout`, or the layout along each axis.
fn layout_text(io: &Io, stage: &Stage) -> String {
    if io.axes.is_empty() {
        return io.layout.text();
    }
    let axes: Vec<String> = stage
        .mesh
        .iter()
        .zip(&io.axes)
        .map(|(axis, layout)| format!("{} = {}", axis.name, layout.text()))
        .collect();
    format!("{{{}}}", axes.join(", "))
}

/// `<dir>/<name>.npy`; the plan's names are plain file names
/// (`Plan::validate`), so the file is inside `dir`.
fn file(dir: &Path, io: &Io) -> PathBuf {
    dir.join(format!("{}.npy", io.name))
}

/// This rank's part of input `io` (filling `buffer`) from `<dir>/<name>.npy`.
/// The file's header is checked against the plan before its data is read,
/// so a file of the wrong shape costs no allocation.
pub fn read_input(
    dir: &Path,
    buffer: &Buffer,
    io: &Io,
    stage: &Stage,
    position: usize,
) -> Result<Vec<u8>> {
    let size = stage.size;
    let path = file(dir, io);
    let expected = file_shape(buffer, io, stage)?;
    let describe = || {
        format!(
            "buffer '{}' is {}{} on each of {size} rank(s), layout {}",
            buffer.name,
            buffer.dtype,
            shape_text(&buffer.shape),
            layout_text(io, stage)
        )
    };
    if !path.exists() {
        return Err(Error::MissingInput {
            input: io.name.clone(),
            path: path.display().to_string(),
        });
    }
    let input_error = |message: String| Error::Input {
        input: io.name.clone(),
        message,
    };
    let reader =
        npy::open(&path, buffer.dtype).map_err(|e| input_error(format!("{e} ({})", describe())))?;
    if reader.shape != expected {
        return Err(input_error(format!(
            "{} has shape {}, expected {} ({})",
            path.display(),
            shape_text(&reader.shape),
            shape_text(&expected),
            describe()
        )));
    }
    let mut array = reader
        .read()
        .map_err(|e| input_error(format!("{e} ({})", describe())))?;
    let elem = buffer.dtype.size();
    // One layout along every axis is a plain layout: no blocks to cut.
    let Some(plain) = io.plain_layout() else {
        let blocks = io.blocks(stage, position, buffer.shape.len());
        let global = &expected[expected.len() - buffer.shape.len()..];
        let whole = global.iter().product::<usize>() * elem;
        let mut block = zeroed(buffer.bytes(), &format!("input '{}'", io.name))?;
        let tensor = &mut array.data[blocks.local * whole..(blocks.local + 1) * whole];
        layout::copy_block(tensor, global, &blocks.dims, elem, &mut block, true);
        return Ok(block);
    };
    Ok(match plain {
        IoLayout::Scalar | IoLayout::Replicated => array.data,
        IoLayout::Local => {
            let row = buffer.bytes();
            array.data[position * row..(position + 1) * row].to_vec()
        }
        IoLayout::Sliced(dim) => layout::slice(&array.data, &expected, elem, dim, size, position),
    })
}

/// Gathers output `io` (this rank's `data`) to position 0 of the stage,
/// which writes `<dir>/<name>.npy` (collective over `comm`; nothing at all
/// without a `dir`, which is the same on every rank).
pub(crate) fn write_output(
    comm: &Comm,
    stage: &Stage,
    dir: Option<&Path>,
    buffer: &Buffer,
    io: &Io,
    data: &[u8],
) -> Result<()> {
    let Some(dir) = dir else {
        return Ok(());
    };
    let size = comm.size();
    let root = comm.rank() == 0;
    let shape = file_shape(buffer, io, stage)?;
    let elem = buffer.dtype.size();
    let data = if let Some(plain) = io.plain_layout() {
        match plain {
            IoLayout::Scalar | IoLayout::Replicated => data.to_vec(),
            IoLayout::Local | IoLayout::Sliced(_) => {
                let mut gathered = if root {
                    zeroed(data.len() * size, &format!("output '{}'", io.name))?
                } else {
                    Vec::new()
                };
                comm.gather(elem, data, &mut gathered, 0)?;
                match plain {
                    IoLayout::Sliced(dim) if root && !layout::parts_contiguous(&shape, dim) => {
                        let mut global = zeroed(gathered.len(), &format!("output '{}'", io.name))?;
                        layout::concat_parts(
                            &gathered,
                            &buffer.shape,
                            elem,
                            dim,
                            size,
                            &mut global,
                        );
                        global
                    }
                    _ => gathered,
                }
            }
        }
    } else {
        assemble_blocks(comm, stage, buffer, io, data, &shape)?
    };
    if !root {
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let array = npy::Array {
        dtype: buffer.dtype,
        shape,
        data,
    };
    npy::write(&file(dir, io), &array)?;
    Ok(())
}

/// A block of an output file: the position on the local axes, and per
/// dimension `(count, index)`.
type BlockKey = (usize, Vec<(usize, usize)>);

/// Every rank's block gathered to position 0, which places each where its
/// mesh coordinates say in a file of `shape`. Ranks that hold the same
/// block (replicas along replicated axes) must hold it bitwise alike, as
/// the interpreter requires of its own outputs. Empty on the other
/// positions.
fn assemble_blocks(
    comm: &Comm,
    stage: &Stage,
    buffer: &Buffer,
    io: &Io,
    data: &[u8],
    shape: &[usize],
) -> Result<Vec<u8>> {
    let what = format!("output '{}'", io.name);
    let size = comm.size();
    let root = comm.rank() == 0;
    let elem = buffer.dtype.size();
    let mut gathered = if root {
        zeroed(data.len() * size, &what)?
    } else {
        Vec::new()
    };
    comm.gather(elem, data, &mut gathered, 0)?;
    if !root {
        return Ok(Vec::new());
    }
    let mut file = zeroed(shape.iter().product::<usize>() * elem, &what)?;
    let global = &shape[shape.len() - buffer.shape.len()..];
    let whole = global.iter().product::<usize>() * elem;
    // The first position that wrote each block.
    let mut written: Vec<(BlockKey, usize)> = Vec::new();
    let mut replica = vec![0u8; data.len()];
    for (position, block) in gathered.chunks_mut(data.len().max(1)).enumerate() {
        let blocks = io.blocks(stage, position, buffer.shape.len());
        let tensor = &mut file[blocks.local * whole..(blocks.local + 1) * whole];
        let at = (blocks.local, blocks.dims);
        match written.iter().find(|(key, _)| *key == at) {
            Some(&(_, first)) => {
                layout::copy_block(tensor, global, &at.1, elem, &mut replica, true);
                if let Some(byte) = replica.iter().zip(block.iter()).position(|(a, b)| a != b) {
                    return Err(Error::ReplicaMismatch {
                        output: io.name.clone(),
                        function: stage.function.clone(),
                        first,
                        second: position,
                        element: byte / elem,
                    });
                }
            }
            None => {
                layout::copy_block(tensor, global, &at.1, elem, block, false);
                written.push((at, position));
            }
        }
    }
    Ok(file)
}
