//! Host tensors of the interpreter. Values are kept as `f64` and rounded to
//! their element type after every operation, as the hardware would: for f32,
//! f16 and bf16 inputs, computing one `+ - * / sqrt` in f64 and rounding once
//! gives the correctly rounded result, so emulation is exact.

use std::fmt;

use melior::ir::{r#type::IntegerType, Type, TypeLike};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F64,
    F32,
    F16,
    BF16,
    I64,
    I32,
    I1,
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let name = match self {
            DType::F64 => "f64",
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I64 => "i64",
            DType::I32 => "i32",
            DType::I1 => "i1",
        };
        write!(f, "{name}")
    }
}

impl DType {
    /// The dtype of an MLIR element type; `None` when unsupported.
    pub fn from_type(ty: Type) -> Option<DType> {
        let raw = ty.to_raw();
        // SAFETY: pure type queries.
        unsafe {
            if mlir_sys::mlirTypeIsAF64(raw) {
                return Some(DType::F64);
            }
            if mlir_sys::mlirTypeIsAF32(raw) {
                return Some(DType::F32);
            }
            if mlir_sys::mlirTypeIsAF16(raw) {
                return Some(DType::F16);
            }
            if mlir_sys::mlirTypeIsABF16(raw) {
                return Some(DType::BF16);
            }
            if mlir_sys::mlirTypeIsAIndex(raw) {
                return Some(DType::I64);
            }
        }
        match IntegerType::try_from(ty).ok()?.width() {
            64 => Some(DType::I64),
            32 => Some(DType::I32),
            1 => Some(DType::I1),
            _ => None,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F64 | DType::F32 | DType::F16 | DType::BF16)
    }

    /// `x` rounded (floats: to nearest, ties to even) or wrapped (integers)
    /// to this type.
    pub fn round(self, x: f64) -> f64 {
        match self {
            DType::F64 => x,
            DType::F32 => x as f32 as f64,
            DType::F16 => half::f16::from_f64(x).to_f64(),
            DType::BF16 => half::bf16::from_f64(x).to_f64(),
            DType::I64 => x.trunc(),
            DType::I32 => (x.trunc() as i64 as i32) as f64,
            DType::I1 => f64::from(x != 0.0),
        }
    }

    /// Bytes per element in `.npy` files.
    pub fn size(self) -> usize {
        match self {
            DType::F64 | DType::I64 => 8,
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::I1 => 1,
        }
    }
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
