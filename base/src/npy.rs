//! NumPy `.npy` files (format 1.0, little-endian, C order) as raw element
//! bytes, the way the executor moves them into kernel buffers.
//!
//! NumPy has no bfloat16, so bf16 arrays are written as `<f4` (exact) and
//! read back from `<f4`, as the reference interpreter does.
//!
//! Files are untrusted input: only regular files are read (a FIFO would
//! block, a link to a device never end), the header is parsed as the
//! dictionary it is (`header`), and no more than the header plus the data
//! its shape needs is ever read; a file of any other length is an error.

mod header;

use std::{
    fs::File,
    io::Read,
    path::{Path, PathBuf},
};

pub use header::{Header, HeaderError};

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

/// Writes `array` to `path` whole or not at all: into a temporary sibling,
/// renamed over `path` ([`crate::staged`]). A symbolic link at `path` is
/// replaced, never followed, so an output never lands outside its folder.
pub fn write(path: &Path, array: &Array) -> Result<()> {
    let mut header = header::format(descr(array.dtype), &array.shape);
    let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let header_len = u16::try_from(header.len()).map_err(|_| Error::Npy {
        path: path.display().to_string(),
        message: format!(
            "a header for {} dimensions does not fit format 1.0",
            array.shape.len()
        ),
    })?;
    let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + header.len() + array.data.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[1, 0]);
    bytes.extend_from_slice(&header_len.to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    if array.dtype == DType::BF16 {
        bytes.extend_from_slice(&convert(&array.data, DType::BF16, DType::F32));
    } else {
        bytes.extend_from_slice(&array.data);
    }
    let staged = crate::staged::Staged::file(path).map_err(|e| Error::io(path, e))?;
    std::fs::write(staged.path(), bytes).map_err(|e| Error::io(path, e))?;
    staged.commit().map_err(|e| Error::io(path, e))
}

/// The longest header read (NumPy's own reader stops at 10000 bytes unless
/// told otherwise): the length field of a version 2 or 3 file could
/// otherwise ask for 4 GiB before any byte of it is checked.
pub const MAX_HEADER_BYTES: usize = 1 << 16;

/// An opened `.npy` file whose header has been read and checked: its shape
/// is known before its data is read, so a caller can refuse an array of the
/// wrong shape without allocating it.
pub struct Reader {
    path: PathBuf,
    file: File,
    /// The element type asked for (bf16 reads `<f4`).
    dtype: DType,
    stored: DType,
    pub shape: Vec<usize>,
    data_bytes: usize,
}

/// Opens `path`, which must be a regular file holding elements of `dtype`
/// (bf16: `<f4` holding bf16 values), and reads its header. The file's
/// length must be exactly the header's plus the data its shape needs.
pub fn open(path: &Path, dtype: DType) -> Result<Reader> {
    let fail = |message: String| Error::Npy {
        path: path.display().to_string(),
        message,
    };
    // Only a regular file: opening a FIFO waits for a writer, and a device
    // (a link to /dev/zero) never ends.
    let (mut file, metadata) = crate::file::open_regular(path).map_err(|e| match e {
        crate::file::OpenError::Io(e) => Error::io(path, e),
        not_regular => fail(not_regular.to_string()),
    })?;
    let mut preamble = [0u8; 8];
    file.read_exact(&mut preamble)
        .map_err(|_| fail("missing the \\x93NUMPY magic".into()))?;
    if &preamble[..6] != MAGIC {
        return Err(fail("missing the \\x93NUMPY magic".into()));
    }
    // numpy writes and reads versions 1.0, 2.0 and 3.0 only.
    if preamble[7] != 0 {
        return Err(fail(format!(
            "unsupported format version {}.{}",
            preamble[6], preamble[7]
        )));
    }
    let header_len = match preamble[6] {
        1 => {
            let mut len = [0u8; 2];
            file.read_exact(&mut len)
                .map_err(|_| fail("truncated header".into()))?;
            u16::from_le_bytes(len) as usize
        }
        2 | 3 => {
            let mut len = [0u8; 4];
            file.read_exact(&mut len)
                .map_err(|_| fail("truncated header".into()))?;
            u32::from_le_bytes(len) as usize
        }
        v => return Err(fail(format!("unsupported format version {v}.0"))),
    };
    if header_len > MAX_HEADER_BYTES {
        return Err(fail(format!(
            "a header of {header_len} bytes is longer than the {MAX_HEADER_BYTES} this reader accepts"
        )));
    }
    let data_start = if preamble[6] == 1 { 10 } else { 12 } + header_len;
    let mut text = vec![0u8; header_len];
    file.read_exact(&mut text)
        .map_err(|_| fail("truncated header".into()))?;
    let text = String::from_utf8(text).map_err(|_| fail("the header is not text".into()))?;
    let header = header::parse(&text).map_err(|e| fail(e.to_string()))?;
    let stored = file_dtype(&header.descr)
        .ok_or_else(|| fail(format!("unsupported dtype '{}'", header.descr)))?;
    if header.fortran_order {
        return Err(fail("Fortran-order arrays are not supported".into()));
    }
    let expected_stored = if dtype == DType::BF16 {
        DType::F32
    } else {
        dtype
    };
    if stored != expected_stored {
        return Err(Error::NpyDtype {
            path: path.display().to_string(),
            found: format!("{stored} elements ('{}')", header.descr),
            expected: dtype.to_string(),
        });
    }
    let shape = header.shape;
    let data_bytes = stored.array_bytes(&shape).ok_or_else(|| {
        fail(format!(
            "shape {shape:?} has more bytes of {stored} than one array can hold"
        ))
    })?;
    let file_data = metadata.len().saturating_sub(data_start as u64);
    if file_data != data_bytes as u64 {
        return Err(fail(format!(
            "shape {shape:?} needs {data_bytes} bytes of data, the file has {file_data}"
        )));
    }
    Ok(Reader {
        path: path.to_path_buf(),
        file,
        dtype,
        stored,
        shape,
        data_bytes,
    })
}

impl Reader {
    /// Reads the data: exactly the bytes the header's shape needs (a file
    /// that grew or shrank since it was opened is an error).
    pub fn read(self) -> Result<Array> {
        let path = &self.path;
        let fail = |message: String| Error::Npy {
            path: path.display().to_string(),
            message,
        };
        let mut data = Vec::new();
        data.try_reserve_exact(self.data_bytes).map_err(|_| {
            fail(format!(
                "cannot allocate {} bytes for its data",
                self.data_bytes
            ))
        })?;
        (&self.file)
            .take(self.data_bytes as u64 + 1)
            .read_to_end(&mut data)
            .map_err(|e| Error::io(path, e))?;
        if data.len() != self.data_bytes {
            return Err(fail(format!(
                "shape {:?} needs {} bytes of data, read {} (the file changed while read)",
                self.shape,
                self.data_bytes,
                data.len()
            )));
        }
        let data = match self.dtype {
            DType::BF16 => convert(&data, self.stored, DType::BF16),
            // numpy reads any nonzero byte of a bool array as True: so do
            // the kernels, which assume 0 or 1.
            DType::I1 => data.into_iter().map(|b| u8::from(b != 0)).collect(),
            _ => data,
        };
        Ok(Array {
            dtype: self.dtype,
            shape: self.shape,
            data,
        })
    }
}

/// Reads a file whose elements must be `dtype` (bf16: `<f4` holding bf16
/// values).
pub fn read(path: &Path, dtype: DType) -> Result<Array> {
    open(path, dtype)?.read()
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

    /// A scratch directory for one test.
    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("coco-npy-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A version 1.0 file with header `header` (padded) and `data`.
    fn file_with(path: &Path, header: &str, data: &[u8]) {
        let mut header = header.to_string();
        header.push('\n');
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[1, 0]);
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(data);
        std::fs::write(path, bytes).unwrap();
    }

    fn read_error(path: &Path) -> String {
        match read(path, DType::F32) {
            Ok(array) => panic!("{} read as {array:?}", path.display()),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_data_must_be_exactly_what_the_shape_needs() {
        let dir = scratch("lengths");
        let path = dir.join("a.npy");
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
        file_with(&path, header, &[0; 20]);
        let error = read_error(&path);
        assert!(
            error.ends_with("shape [2, 3] needs 24 bytes of data, the file has 20"),
            "{error}"
        );
        file_with(&path, header, &[0; 28]);
        let error = read_error(&path);
        assert!(
            error.ends_with("needs 24 bytes of data, the file has 28"),
            "{error}"
        );
        file_with(&path, header, &[0; 24]);
        assert_eq!(read(&path, DType::F32).unwrap().shape, [2, 3]);
        // A header cut short.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.truncate(30);
        std::fs::write(&path, &bytes).unwrap();
        assert!(read_error(&path).ends_with("truncated header"));
        std::fs::write(&path, b"\x93NUM").unwrap();
        assert!(read_error(&path).contains("missing the \\x93NUMPY magic"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shapes_whose_size_overflows_are_errors() {
        let dir = scratch("overflow");
        let path = dir.join("a.npy");
        file_with(
            &path,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }",
            &[0; 16],
        );
        let error = read_error(&path);
        assert!(
            error.contains(
                "shape [4611686018427387904, 4] has more bytes of f32 than one array can hold"
            ),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_header_is_parsed_not_searched() {
        let dir = scratch("decoy");
        let path = dir.join("a.npy");
        // The first `'shape'` in the text is inside a string.
        file_with(
            &path,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'note': \"'shape': (2,)\"}",
            &[0; 4],
        );
        assert!(read_error(&path).contains("unknown key 'note'"));
        file_with(
            &path,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (2,)}",
            &[0; 8],
        );
        assert!(read_error(&path).contains("key 'shape' appears twice"));
        // Only versions 1.0, 2.0 and 3.0 exist.
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[1, 255, 0, 0]);
        std::fs::write(&path, bytes).unwrap();
        assert!(read_error(&path).contains("unsupported format version 1.255"));
        // A version 2 header length of 4 GiB is refused before it is read.
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[2, 0]);
        bytes.extend_from_slice(&u32::MAX.to_le_bytes());
        std::fs::write(&path, bytes).unwrap();
        assert!(read_error(&path).contains("longer than the 65536 this reader accepts"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = scratch("special");
        let zero = dir.join("zero.npy");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert!(
            read_error(&zero).ends_with("not a valid .npy file: a device is not a regular file"),
            "{}",
            read_error(&zero)
        );
        let fifo = dir.join("fifo.npy");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Would block forever if opened.
            assert!(read_error(&fifo).ends_with("a FIFO is not a regular file"));
        }
        assert!(read_error(&dir).ends_with("a directory is not a regular file"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bool_bytes_other_than_0_and_1_read_as_true() {
        // numpy reads any nonzero byte of a `|b1` array as True; kernels
        // assume 0 or 1, so the reader gives them exactly that.
        let dir = scratch("bool");
        let path = dir.join("b.npy");
        file_with(
            &path,
            "{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }",
            &[0, 1, 2, 255, 128],
        );
        assert_eq!(read(&path, DType::I1).unwrap().data, [0, 1, 1, 1, 1]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn writing_replaces_a_link_instead_of_following_it() {
        let dir = scratch("link");
        let outside = dir.join("outside.txt");
        std::fs::write(&outside, "precious").unwrap();
        let out = dir.join("out");
        std::fs::create_dir(&out).unwrap();
        let path = out.join("x.npy");
        std::os::unix::fs::symlink(&outside, &path).unwrap();
        let array = Array {
            dtype: DType::F32,
            shape: vec![1],
            data: vec![0; 4],
        };
        write(&path, &array).unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
        assert_eq!(read(&path, DType::F32).unwrap(), array);
        let names: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["x.npy"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
