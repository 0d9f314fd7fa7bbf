//! NumPy `.npy` files as interpreter tensors (exact elements), on top of the
//! runtime's reader and writer (`coco_base::npy`), so that the
//! interpreter and the executor read and write exactly the same files.
//!
//! NumPy has no bfloat16, so bf16 tensors are written as `<f4` (exact) and
//! `<f4` files are accepted for bf16 inputs when every value is exactly a
//! bf16 value.

use std::path::Path;

use coco_base::npy::{self as files, Array};

use crate::{
    error::{Error, Result},
    tensor::{DType, Scalar, Tensor},
};

fn error(path: &Path, error: coco_base::Error) -> Error {
    let message = error.to_string();
    let prefix = format!("{}: ", path.display());
    Error::Npy {
        path: path.display().to_string(),
        message: message
            .strip_prefix(&prefix)
            .unwrap_or(&message)
            .to_string(),
    }
}

/// Writes `data` (with `shape`, which may add a leading rank dimension).
pub fn write(path: &Path, dtype: DType, shape: &[usize], data: &[f64]) -> Result<()> {
    let mut bytes = Vec::with_capacity(data.len() * dtype.size());
    for &x in data {
        dtype.store(x, &mut bytes);
    }
    let array = Array {
        dtype,
        shape: shape.to_vec(),
        data: bytes,
    };
    files::write(path, &array).map_err(|e| error(path, e))
}

pub fn write_tensor(path: &Path, tensor: &Tensor) -> Result<()> {
    let array = Array {
        dtype: tensor.dtype,
        shape: tensor.shape.clone(),
        data: tensor.to_bytes(),
    };
    files::write(path, &array).map_err(|e| error(path, e))
}

/// Reads a file as `dtype` (see the module note on bf16).
pub fn read(path: &Path, dtype: DType) -> Result<Tensor> {
    // bf16 is stored as f32: read the f32 values to check they are bf16.
    let stored = if dtype == DType::BF16 {
        DType::F32
    } else {
        dtype
    };
    let array = files::read(path, stored).map_err(|e| error(path, e))?;
    let tensor = Tensor::from_bytes(stored, array.shape, &array.data);
    if dtype == DType::BF16 {
        if let Some(v) = tensor
            .scalars()
            .map(Scalar::to_f64)
            .find(|&v| DType::BF16.round(v).to_bits() != v.to_bits())
        {
            return Err(Error::Npy {
                path: path.display().to_string(),
                message: format!("value {v} is not a bfloat16 value"),
            });
        }
    }
    Ok(Tensor { dtype, ..tensor })
}
