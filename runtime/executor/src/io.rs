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
//! Every rank reads the input files itself (the files are on a filesystem
//! every rank sees, as the bundle is) and keeps its part: no traffic before
//! the first step, and a bad file is reported by every rank that reads it.
//! Outputs go the other way: each stage's position 0 gathers its ranks'
//! parts and writes the file, so that a run's outputs can be fed back as
//! inputs and compared with the interpreter's, whose files follow the same
//! convention.

use std::path::{Path, PathBuf};

use coco_base::npy;
use coco_bundle::{Buffer, Io, IoLayout};

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

/// The shape of the file that holds `buffer` for a stage of `size` ranks.
pub fn file_shape(buffer: &Buffer, layout: IoLayout, size: usize) -> Result<Vec<usize>> {
    layout
        .file_shape(&buffer.shape, size)
        .map_err(|e| Error::Plan(format!("buffer '{}': {e}", buffer.name)))
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
    size: usize,
    position: usize,
) -> Result<Vec<u8>> {
    let path = file(dir, io);
    let expected = file_shape(buffer, io.layout, size)?;
    let describe = || {
        format!(
            "buffer '{}' is {}{} on each of {size} rank(s), layout {}",
            buffer.name,
            buffer.dtype,
            shape_text(&buffer.shape),
            io.layout.text()
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
    let array = reader
        .read()
        .map_err(|e| input_error(format!("{e} ({})", describe())))?;
    let elem = buffer.dtype.size();
    Ok(match io.layout {
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
    let shape = file_shape(buffer, io.layout, size)?;
    let elem = buffer.dtype.size();
    let data = match io.layout {
        IoLayout::Scalar | IoLayout::Replicated => data.to_vec(),
        IoLayout::Local | IoLayout::Sliced(_) => {
            let mut gathered = if root {
                zeroed(data.len() * size, &format!("output '{}'", io.name))?
            } else {
                Vec::new()
            };
            comm.gather(elem, data, &mut gathered, 0)?;
            match io.layout {
                IoLayout::Sliced(dim) if root && !layout::parts_contiguous(&shape, dim) => {
                    let mut global = zeroed(gathered.len(), &format!("output '{}'", io.name))?;
                    layout::concat_parts(&gathered, &buffer.shape, elem, dim, size, &mut global);
                    global
                }
                _ => gathered,
            }
        }
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
