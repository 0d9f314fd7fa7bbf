//! Host tensors of the interpreter. Values are kept as `f64` and rounded to
//! their element type after every operation, as the hardware would: for f32,
//! f16 and bf16 inputs, computing one `+ - * / sqrt` in f64 and rounding once
//! gives the correctly rounded result, so emulation is exact.

use melior::ir::Type;

/// Element types are the runtime's (`coco_base::DType`), so interpreter
/// and executor read and write the same files.
pub use coco_base::DType;

/// The dtype of an MLIR element type; `None` when unsupported.
pub fn dtype_of(ty: Type) -> Option<DType> {
    coco_dialects::ir::element_dtype(ty)
}

/// A dense row-major tensor (one rank's local part of a distributed value,
/// or a scalar as a 0-d tensor).
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

impl Tensor {
    pub fn filled(dtype: DType, shape: Vec<usize>, value: f64) -> Tensor {
        let len = shape.iter().product();
        Tensor {
            dtype,
            shape,
            data: vec![dtype.round(value); len],
        }
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Row-major strides.
    pub fn strides(shape: &[usize]) -> Vec<usize> {
        let mut strides = vec![1; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * shape[i + 1];
        }
        strides
    }

    /// Slice `index` of `parts` equal slices along `dim`.
    pub fn slice(&self, dim: usize, parts: usize, index: usize) -> Tensor {
        let mut shape = self.shape.clone();
        let size = shape[dim] / parts;
        shape[dim] = size;
        let outer: usize = self.shape[..dim].iter().product();
        let inner: usize = self.shape[dim + 1..].iter().product();
        let mut data = Vec::with_capacity(outer * size * inner);
        for o in 0..outer {
            let start = (o * self.shape[dim] + index * size) * inner;
            data.extend_from_slice(&self.data[start..start + size * inner]);
        }
        Tensor {
            dtype: self.dtype,
            shape,
            data,
        }
    }

    /// Concatenation of `parts` along `dim` (the inverse of `slice`).
    pub fn concat(parts: &[Tensor], dim: usize) -> Tensor {
        let first = &parts[0];
        let mut shape = first.shape.clone();
        shape[dim] = parts.iter().map(|p| p.shape[dim]).sum();
        let outer: usize = first.shape[..dim].iter().product();
        let inner: usize = first.shape[dim + 1..].iter().product();
        let mut data = Vec::with_capacity(shape.iter().product());
        for o in 0..outer {
            for part in parts {
                let chunk = part.shape[dim] * inner;
                data.extend_from_slice(&part.data[o * chunk..(o + 1) * chunk]);
            }
        }
        Tensor {
            dtype: first.dtype,
            shape,
            data,
        }
    }
}
