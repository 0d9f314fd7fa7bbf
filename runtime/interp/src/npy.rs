//! NumPy `.npy` files (format version 1.0, little-endian, C order).
//!
//! NumPy has no bfloat16, so bf16 tensors are written as `<f4` (exact) and
//! `<f4` files are accepted for bf16 inputs when every value is exactly a
//! bf16 value.

use std::path::Path;

use crate::{
    error::{Error, Result},
    tensor::{DType, Tensor},
};

const MAGIC: &[u8] = b"\x93NUMPY";

fn descr(dtype: DType) -> &'static str {
    match dtype {
        DType::F64 => "<f8",
        DType::F32 | DType::BF16 => "<f4",
        DType::F16 => "<f2",
        DType::I64 => "<i8",
        DType::I32 => "<i4",
        DType::I1 => "|b1",
    }
}

fn file_dtype(descr: &str) -> Option<DType> {
    Some(match descr {
        "<f8" => DType::F64,
        "<f4" => DType::F32,
        "<f2" => DType::F16,
        "<i8" => DType::I64,
        "<i4" => DType::I32,
        "|b1" => DType::I1,
        _ => return None,
    })
}

/// Writes `tensor` (with `shape`, which may add a leading rank dimension).
pub fn write(path: &Path, dtype: DType, shape: &[usize], data: &[f64]) -> Result<()> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_text = match dims.len() {
        0 => "()".to_string(),
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape_text}, }}",
        descr(dtype)
    );
    let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + header.len() + data.len() * dtype.size());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[1, 0]);
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for &x in data {
        match dtype {
            DType::F64 => bytes.extend_from_slice(&x.to_le_bytes()),
            DType::F32 | DType::BF16 => bytes.extend_from_slice(&(x as f32).to_le_bytes()),
            DType::F16 => bytes.extend_from_slice(&half::f16::from_f64(x).to_le_bytes()),
            DType::I64 => bytes.extend_from_slice(&(x as i64).to_le_bytes()),
            DType::I32 => bytes.extend_from_slice(&(x as i32).to_le_bytes()),
            DType::I1 => bytes.push(u8::from(x != 0.0)),
        }
    }
    std::fs::write(path, bytes)?;
    Ok(())
}

pub fn write_tensor(path: &Path, tensor: &Tensor) -> Result<()> {
    write(path, tensor.dtype, &tensor.shape, &tensor.data)
}

/// Reads a file as `dtype` (see the module note on bf16).
pub fn read(path: &Path, dtype: DType) -> Result<Tensor> {
    let fail = |message: String| Error::Npy {
        path: path.display().to_string(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err(fail("not a .npy file (bad magic)".into()));
    }
    let (header_len, header_start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(fail(format!("unsupported .npy version {v}"))),
    };
    let header = bytes
        .get(header_start..header_start + header_len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| fail("truncated header".into()))?;
    let field = |name: &str| -> Option<&str> {
        let at = header.find(&format!("'{name}'"))? + name.len() + 2;
        let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let descr_text = field("descr")
        .and_then(|r| r.strip_prefix('\''))
        .and_then(|r| r.split('\'').next())
        .unwrap_or("");
    let found =
        file_dtype(descr_text).ok_or_else(|| fail(format!("unsupported dtype '{descr_text}'")))?;
    if field("fortran_order").is_some_and(|r| r.starts_with("True")) {
        return Err(fail(
            "Fortran-order arrays are not supported; save with np.ascontiguousarray".into(),
        ));
    }
    let shape_text = field("shape")
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.split(')').next())
        .unwrap_or("");
    let shape = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<usize>()
                .map_err(|_| fail(format!("bad shape '({shape_text})'")))
        })
        .collect::<Result<Vec<_>>>()?;
    let compatible = found == dtype || (dtype == DType::BF16 && found == DType::F32);
    if !compatible {
        return Err(fail(format!(
            "holds {found} values, the program expects {dtype}"
        )));
    }
    let count: usize = shape.iter().product();
    let body = &bytes[header_start + header_len..];
    if body.len() != count * found.size() {
        return Err(fail(format!(
            "holds {} bytes of data, shape {shape:?} needs {}",
            body.len(),
            count * found.size()
        )));
    }
    let data: Vec<f64> = body
        .chunks_exact(found.size())
        .map(|c| match found {
            DType::F64 => f64::from_le_bytes(c.try_into().expect("8 bytes")),
            DType::F32 | DType::BF16 => {
                f64::from(f32::from_le_bytes(c.try_into().expect("4 bytes")))
            }
            DType::F16 => half::f16::from_le_bytes(c.try_into().expect("2 bytes")).to_f64(),
            DType::I64 => i64::from_le_bytes(c.try_into().expect("8 bytes")) as f64,
            DType::I32 => f64::from(i32::from_le_bytes(c.try_into().expect("4 bytes"))),
            DType::I1 => f64::from(c[0] != 0),
        })
        .collect();
    if dtype == DType::BF16 {
        if let Some(v) = data
            .iter()
            .find(|&&v| DType::BF16.round(v).to_bits() != v.to_bits())
        {
            return Err(fail(format!("value {v} is not a bfloat16 value")));
        }
    }
    Ok(Tensor { dtype, shape, data })
}
