//! Element types of bundle buffers, named as MLIR names them.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    F64,
    F32,
    F16,
    BF16,
    I64,
    I32,
    I1,
}

impl DType {
    /// Bytes per element in memory (i1 is stored as one byte, as MLIR's
    /// LLVM lowering stores it).
    pub fn size(self) -> usize {
        match self {
            DType::F64 | DType::I64 => 8,
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::I1 => 1,
        }
    }

    /// Bytes of a dense array of `shape`, or `None` when they overflow what
    /// one allocation can hold (`isize::MAX` bytes, the limit of Rust and C
    /// objects): shapes come from files, so their product is never trusted.
    pub fn array_bytes(self, shape: &[usize]) -> Option<usize> {
        if shape.contains(&0) {
            return Some(0);
        }
        let bytes = shape
            .iter()
            .try_fold(self.size(), |n, &d| n.checked_mul(d))?;
        (bytes <= isize::MAX as usize).then_some(bytes)
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F64 | DType::F32 | DType::F16 | DType::BF16)
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::F64 => "f64",
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I64 => "i64",
            DType::I32 => "i32",
            DType::I1 => "i1",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        [
            DType::F64,
            DType::F32,
            DType::F16,
            DType::BF16,
            DType::I64,
            DType::I32,
            DType::I1,
        ]
        .into_iter()
        .find(|d| d.name() == name)
    }

    /// `x` rounded (floats: to nearest, ties to even) or wrapped (integers)
    /// to this type.
    pub fn round(self, x: f64) -> f64 {
        match self {
            DType::F64 => x,
            DType::F32 => x as f32 as f64,
            DType::F16 => half::f16::from_f32(to_f32_odd(x)).to_f64(),
            DType::BF16 => half::bf16::from_f32(to_f32_odd(x)).to_f64(),
            DType::I64 => x.trunc(),
            DType::I32 => (x.trunc() as i64 as i32) as f64,
            DType::I1 => f64::from(x != 0.0),
        }
    }

    /// Element `index` of `bytes` (little-endian) as f64.
    pub fn load(self, bytes: &[u8], index: usize) -> f64 {
        let at = &bytes[index * self.size()..(index + 1) * self.size()];
        match self {
            DType::F64 => f64::from_le_bytes(at.try_into().unwrap()),
            DType::F32 => f32::from_le_bytes(at.try_into().unwrap()) as f64,
            DType::F16 => half::f16::from_le_bytes(at.try_into().unwrap()).to_f64(),
            DType::BF16 => half::bf16::from_le_bytes(at.try_into().unwrap()).to_f64(),
            DType::I64 => i64::from_le_bytes(at.try_into().unwrap()) as f64,
            DType::I32 => i32::from_le_bytes(at.try_into().unwrap()) as f64,
            DType::I1 => f64::from(at[0] != 0),
        }
    }

    /// Integer element `index` of `bytes` (little-endian), exactly: i32
    /// sign-extended, i1 as 0 or 1. Through f64 ([`DType::load`]) an i64
    /// above 2^53 would lose its low bits.
    pub fn load_int(self, bytes: &[u8], index: usize) -> i64 {
        let at = &bytes[index * self.size()..(index + 1) * self.size()];
        match self {
            DType::I32 => i64::from(i32::from_le_bytes(at.try_into().unwrap())),
            DType::I1 => i64::from(at[0] != 0),
            _ => i64::from_le_bytes(at.try_into().unwrap()),
        }
    }

    /// Writes integer `x` wrapped to this type's width as element `index`.
    pub fn write_int(self, x: i64, out: &mut [u8], index: usize) {
        let at = &mut out[index * self.size()..(index + 1) * self.size()];
        match self {
            DType::I32 => at.copy_from_slice(&(x as i32).to_le_bytes()),
            DType::I1 => at[0] = u8::from(x & 1 != 0),
            _ => at.copy_from_slice(&x.to_le_bytes()),
        }
    }

    /// Appends `x` rounded to this type, little-endian.
    pub fn store(self, x: f64, out: &mut Vec<u8>) {
        let at = out.len();
        out.resize(at + self.size(), 0);
        self.write(x, out, at / self.size());
    }

    /// Writes `x` rounded to this type as element `index` of `out`
    /// (integers wrap, as the interpreter's do).
    pub fn write(self, x: f64, out: &mut [u8], index: usize) {
        let at = &mut out[index * self.size()..(index + 1) * self.size()];
        match self {
            DType::F64 => at.copy_from_slice(&x.to_le_bytes()),
            DType::F32 => at.copy_from_slice(&(x as f32).to_le_bytes()),
            DType::F16 => at.copy_from_slice(&half::f16::from_f32(to_f32_odd(x)).to_le_bytes()),
            DType::BF16 => at.copy_from_slice(&half::bf16::from_f32(to_f32_odd(x)).to_le_bytes()),
            DType::I64 => at.copy_from_slice(&(x as i64).to_le_bytes()),
            DType::I32 => at.copy_from_slice(&(x as i64 as i32).to_le_bytes()),
            DType::I1 => at[0] = u8::from(x != 0.0),
        }
    }
}

/// `x` rounded to f32 to odd: truncated toward zero, with the last bit set
/// when inexact. Rounding that to f16 or bf16 (to nearest) rounds `x` once,
/// correctly, since f32 keeps at least two more bits than either (24 is at
/// least 11 plus 2). `half`'s own `from_f64` drops the low 32 bits of the f64 before
/// rounding and so misses ties broken below them (1 + 2^-8 + 2^-30 became
/// bf16 1.0 rather than 1 + 2^-7).
fn to_f32_odd(x: f64) -> f32 {
    let t = x as f32;
    if x.is_nan() || f64::from(t) == x {
        return t;
    }
    let mut bits = t.to_bits();
    if f64::from(t).abs() > x.abs() {
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_rounds_once_to_16_bit_floats() {
        // Ties broken only below the f64's upper 32 bits.
        let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-30);
        assert_eq!(DType::BF16.round(x), 1.0 + 2f64.powi(-7));
        let y = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(DType::F16.round(y), 1.0 + 2f64.powi(-10));
        let mut out = vec![0; 2];
        DType::BF16.write(-x, &mut out, 0);
        assert_eq!(DType::BF16.load(&out, 0), -(1.0 + 2f64.powi(-7)));
        // Exact ties still go to even; overflow and NaN are kept.
        assert_eq!(DType::BF16.round(1.0 + 2f64.powi(-8)), 1.0);
        assert_eq!(DType::BF16.round(f64::MAX), f64::INFINITY);
        assert!(DType::F16.round(f64::NAN).is_nan());
    }
}
