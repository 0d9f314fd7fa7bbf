//! Host tensors of the interpreter. Float values are kept as `f64` and
//! rounded to their element type after every operation, as the hardware
//! would: for f32, f16 and bf16 inputs, computing one `+ - * / sqrt` in f64
//! and rounding once gives the correctly rounded result, so emulation is
//! exact. Integer values are kept as exact `i64`s and wrapped to their
//! width after every operation ([`crate::integer`]), as compiled code
//! wraps: an f64 would lose integers above 2^53.

use std::{fmt, ops::Range};

use melior::ir::Type;

/// Element types are the runtime's (`coco_base::DType`), so interpreter
/// and executor read and write the same files.
pub use coco_base::DType;

use crate::integer;

/// The dtype of an MLIR element type; `None` when unsupported.
pub fn dtype_of(ty: Type) -> Option<DType> {
    coco_dialects::ir::element_dtype(ty)
}

/// A tensor's elements: floats for f64/f32/f16/bf16, integers for
/// i64/i32/i1 (i32 sign-extended, i1 as 0 or 1; see [`crate::integer`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

/// One element, exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Float(f64),
    Int(i64),
}

impl Scalar {
    /// The value as an f64 (rounded for integers beyond 2^53): for
    /// summaries and relative errors, never for equality.
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Float(x) => x,
            Scalar::Int(x) => x as f64,
        }
    }

    /// The bits that equality compares.
    pub fn bits(self) -> u64 {
        match self {
            Scalar::Float(x) => x.to_bits(),
            Scalar::Int(x) => x as u64,
        }
    }

    pub fn is_nan(self) -> bool {
        matches!(self, Scalar::Float(x) if x.is_nan())
    }

    /// The value as an element of the float type `dtype`, rounded.
    pub fn to_float(self, dtype: DType) -> f64 {
        match self {
            Scalar::Float(x) => dtype.round(x),
            Scalar::Int(x) => dtype.round(x as f64),
        }
    }

    /// The value as an element of the integer type `dtype`: integers
    /// wrapped, floats truncated (i1: nonzero is 1).
    pub fn to_int(self, dtype: DType) -> i64 {
        match self {
            Scalar::Int(x) => integer::wrap(dtype, x),
            Scalar::Float(x) => integer::from_f64(dtype, x),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Scalar::Float(x) => write!(f, "{x}"),
            Scalar::Int(x) => write!(f, "{x}"),
        }
    }
}

impl Data {
    pub fn len(&self) -> usize {
        match self {
            Data::Float(v) => v.len(),
            Data::Int(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Empty storage of the same kind.
    fn with_capacity(&self, capacity: usize) -> Data {
        match self {
            Data::Float(_) => Data::Float(Vec::with_capacity(capacity)),
            Data::Int(_) => Data::Int(Vec::with_capacity(capacity)),
        }
    }

    /// Appends `from[range]`; `from` is of the same kind (one value's
    /// parts always are).
    fn extend_range(&mut self, from: &Data, range: Range<usize>) {
        match (self, from) {
            (Data::Float(a), Data::Float(b)) => a.extend_from_slice(&b[range]),
            (Data::Int(a), Data::Int(b)) => a.extend_from_slice(&b[range]),
            _ => unreachable!("parts of one value have one element kind"),
        }
    }

    /// The elements at `indices`, in that order.
    pub fn gather(&self, indices: impl IntoIterator<Item = usize>) -> Data {
        match self {
            Data::Float(v) => Data::Float(indices.into_iter().map(|i| v[i]).collect()),
            Data::Int(v) => Data::Int(indices.into_iter().map(|i| v[i]).collect()),
        }
    }

    /// Element i of `a` where `pick(i)`, of `b` elsewhere (`a` and `b` of
    /// one kind and length).
    pub fn choose(a: &Data, b: &Data, pick: impl Fn(usize) -> bool) -> Data {
        fn choose<T: Copy>(a: &[T], b: &[T], pick: impl Fn(usize) -> bool) -> Vec<T> {
            (0..a.len())
                .map(|i| if pick(i) { a[i] } else { b[i] })
                .collect()
        }
        match (a, b) {
            (Data::Float(a), Data::Float(b)) => Data::Float(choose(a, b, pick)),
            (Data::Int(a), Data::Int(b)) => Data::Int(choose(a, b, pick)),
            _ => unreachable!("arith.select's operands have one type"),
        }
    }

    pub fn get(&self, index: usize) -> Scalar {
        match self {
            Data::Float(v) => Scalar::Float(v[index]),
            Data::Int(v) => Scalar::Int(v[index]),
        }
    }
}

/// A dense row-major tensor (one rank's local part of a distributed value,
/// or a scalar as a 0-d tensor).
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: Data,
}

impl Tensor {
    /// `value` converted to `dtype` everywhere.
    pub fn filled(dtype: DType, shape: Vec<usize>, value: Scalar) -> Tensor {
        let len = shape.iter().product();
        Tensor::from_scalars(dtype, shape, std::iter::repeat_n(value, len))
    }

    /// A tensor of `values` converted to `dtype` ([`Scalar::to_float`],
    /// [`Scalar::to_int`]).
    pub fn from_scalars(
        dtype: DType,
        shape: Vec<usize>,
        values: impl IntoIterator<Item = Scalar>,
    ) -> Tensor {
        let values = values.into_iter();
        let data = if dtype.is_float() {
            Data::Float(values.map(|x| x.to_float(dtype)).collect())
        } else {
            Data::Int(values.map(|x| x.to_int(dtype)).collect())
        };
        Tensor { dtype, shape, data }
    }

    /// Every element converted to `dtype`.
    pub fn cast(&self, dtype: DType) -> Tensor {
        Tensor::from_scalars(dtype, self.shape.clone(), self.scalars())
    }

    /// The little-endian elements of `bytes` (as `.npy` files and bundle
    /// buffers hold them), exactly.
    pub fn from_bytes(dtype: DType, shape: Vec<usize>, bytes: &[u8]) -> Tensor {
        let count = bytes.len() / dtype.size();
        let data = if dtype.is_float() {
            Data::Float((0..count).map(|i| dtype.load(bytes, i)).collect())
        } else {
            Data::Int((0..count).map(|i| integer::load(dtype, bytes, i)).collect())
        };
        Tensor { dtype, shape, data }
    }

    /// The elements as little-endian bytes of the element type.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.len() * self.dtype.size());
        match &self.data {
            Data::Float(v) => v.iter().for_each(|&x| self.dtype.store(x, &mut bytes)),
            Data::Int(v) => v
                .iter()
                .for_each(|&x| integer::store(self.dtype, x, &mut bytes)),
        }
        bytes
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Element `index` (row-major).
    pub fn get(&self, index: usize) -> Scalar {
        self.data.get(index)
    }

    /// Every element, row-major.
    pub fn scalars(&self) -> impl Iterator<Item = Scalar> + '_ {
        (0..self.len()).map(|i| self.get(i))
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
        let mut data = self.data.with_capacity(outer * size * inner);
        for o in 0..outer {
            let start = (o * self.shape[dim] + index * size) * inner;
            data.extend_range(&self.data, start..start + size * inner);
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
        let mut data = first.data.with_capacity(shape.iter().product());
        for o in 0..outer {
            for part in parts {
                let chunk = part.shape[dim] * inner;
                data.extend_range(&part.data, o * chunk..(o + 1) * chunk);
            }
        }
        Tensor {
            dtype: first.dtype,
            shape,
            data,
        }
    }

    /// `parts` (of one shape) stacked along a new leading dimension: how
    /// files hold one tensor per rank.
    pub fn stack(parts: &[Tensor]) -> Tensor {
        let mut shape = vec![parts.len()];
        shape.extend(&parts[0].shape);
        let mut data = parts[0].data.with_capacity(shape.iter().product());
        for part in parts {
            data.extend_range(&part.data, 0..part.len());
        }
        Tensor {
            dtype: parts[0].dtype,
            shape,
            data,
        }
    }

    /// The consecutive tensors of `shape` this tensor's elements make (the
    /// inverse of [`Tensor::stack`]); a last partial one is dropped.
    pub fn split_into(&self, shape: &[usize]) -> Vec<Tensor> {
        let part = shape.iter().product::<usize>().max(1);
        (0..self.len() / part)
            .map(|i| {
                let mut data = self.data.with_capacity(part);
                data.extend_range(&self.data, i * part..(i + 1) * part);
                Tensor {
                    dtype: self.dtype,
                    shape: shape.to_vec(),
                    data,
                }
            })
            .collect()
    }
}
