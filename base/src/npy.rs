//! NumPy `.npy` files (format 1.0, little-endian, C order) as raw element
//! bytes, the way the executor moves them into kernel buffers.
//!
//! NumPy has no bfloat16, so bf16 arrays are written as `<f4` (exact) and
//! read back from `<f4`, as the reference interpreter does.

use std::path::Path;

use crate::{dtype::DType, error::Error, error::Result};

const MAGIC: &[u8] = b"\x93NUMPY";

/// A dense row-major array: `data` holds `shape.product()` elements of
/// `dtype`, little-endian.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

impl Array {
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

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

/// Converts `data` between element types (only bf16 <-> f32 is needed).
fn convert(data: &[u8], from: DType, to: DType) -> Vec<u8> {
    let n = data.len() / from.size();
    let mut out = Vec::with_capacity(n * to.size());
    for i in 0..n {
        to.store(from.load(data, i), &mut out);
    }
    out
}

pub fn write(path: &Path, array: &Array) -> Result<()> {
    let dims: Vec<String> = array.shape.iter().map(|d| d.to_string()).collect();
    let shape_text = match dims.len() {
        0 => "()".to_string(),
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape_text}, }}",
        descr(array.dtype)
    );
    let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + header.len() + array.data.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[1, 0]);
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    if array.dtype == DType::BF16 {
        bytes.extend_from_slice(&convert(&array.data, DType::BF16, DType::F32));
    } else {
        bytes.extend_from_slice(&array.data);
    }
    std::fs::write(path, bytes).map_err(|e| Error::io(path, e))
}

/// Reads a file whose elements must be `dtype` (bf16: `<f4` holding bf16
/// values).
pub fn read(path: &Path, dtype: DType) -> Result<Array> {
    let fail = |message: String| Error::Npy {
        path: path.display().to_string(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err(fail("missing the \\x93NUMPY magic".into()));
    }
    let (header_len, header_start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(fail(format!("unsupported format version {v}"))),
    };
    let header = bytes
        .get(header_start..header_start + header_len)
        .ok_or_else(|| fail("truncated header".into()))?;
    let header = String::from_utf8_lossy(header);
    let field = |key: &str| -> Option<String> {
        let at = header.find(&format!("'{key}'"))? + key.len() + 2;
        let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
        if let Some(rest) = rest.strip_prefix('\'') {
            Some(rest[..rest.find('\'')?].to_string())
        } else if rest.starts_with('(') {
            Some(rest[..=rest.find(')')?].to_string())
        } else {
            Some(
                rest[..rest.find(',').unwrap_or(rest.len())]
                    .trim()
                    .to_string(),
            )
        }
    };
    let file_descr = field("descr").ok_or_else(|| fail("no 'descr' in the header".into()))?;
    let stored =
        file_dtype(&file_descr).ok_or_else(|| fail(format!("unsupported dtype '{file_descr}'")))?;
    if field("fortran_order").as_deref() != Some("False") {
        return Err(fail("Fortran-order arrays are not supported".into()));
    }
    let shape_text = field("shape").ok_or_else(|| fail("no 'shape' in the header".into()))?;
    let shape = shape_text
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>())
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| fail(format!("bad shape {shape_text}")))?;
    let expected_stored = if dtype == DType::BF16 {
        DType::F32
    } else {
        dtype
    };
    if stored != expected_stored {
        return Err(Error::NpyDtype {
            path: path.display().to_string(),
            found: format!("{stored} elements ('{file_descr}')"),
            expected: dtype.to_string(),
        });
    }
    let count: usize = shape.iter().product();
    let data = &bytes[header_start + header_len..];
    if data.len() != count * stored.size() {
        return Err(fail(format!(
            "shape {shape:?} needs {} bytes of data, the file has {}",
            count * stored.size(),
            data.len()
        )));
    }
    let data = if dtype == DType::BF16 {
        convert(data, DType::F32, DType::BF16)
    } else {
        data.to_vec()
    };
    Ok(Array { dtype, shape, data })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_dtype() {
        let dir = std::env::temp_dir().join(format!("coco-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for dtype in [
            DType::F64,
            DType::F32,
            DType::F16,
            DType::BF16,
            DType::I64,
            DType::I32,
            DType::I1,
        ] {
            let mut data = Vec::new();
            for x in [1.0, -2.5, 0.0, 3.0, 1.0, 0.0] {
                dtype.store(x, &mut data);
            }
            let array = Array {
                dtype,
                shape: vec![2, 3],
                data,
            };
            let path = dir.join(format!("{dtype}.npy"));
            write(&path, &array).unwrap();
            assert_eq!(read(&path, dtype).unwrap(), array, "{dtype}");
        }
        let wrong = read(&dir.join("f32.npy"), DType::F16)
            .unwrap_err()
            .to_string();
        assert!(wrong.contains("expected f16"), "{wrong}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
