//! Where a program's input records come from: a data directory holding one
//! file per source (test data, `--data`), or the paths and inline records in
//! the program itself.
//!
//! Data files are read as Spark's `sc.textFile` reads them
//! ([`crate::text::split_records`]). Only regular files are read (a FIFO
//! would block the reader, a link to `/dev/zero` feed it forever), and at
//! most a [`DataLimit`] of bytes in all: the interpreter holds every record
//! with its path in memory, about 250 bytes per byte of data.

use std::{
    collections::BTreeMap,
    io::Read,
    path::{Path, PathBuf},
};

use coco_base::file::{open_regular, OpenError};

use crate::{
    model::{OpKind, Program},
    text::{escape, split_records},
};

/// The default of `--max-data-bytes`: 8 MiB, about 2 GiB of interpreter
/// memory (wordcount on 1 million short lines, 10.8 MB, peaked at 2.7 GB).
pub const DEFAULT_MAX_DATA_BYTES: u64 = 8 << 20;

/// The flag that sets a [`DataLimit`], for messages.
pub const MAX_DATA_BYTES_FLAG: &str = "--max-data-bytes";

/// How many bytes of data one command may still read: every source of
/// every test case together. Inline records count too.
#[derive(Clone, Debug)]
pub struct DataLimit {
    limit: u64,
    used: u64,
}

impl DataLimit {
    pub fn new(limit: u64) -> DataLimit {
        DataLimit { limit, used: 0 }
    }

    /// No limit: for data the tool wrote itself.
    pub fn unlimited() -> DataLimit {
        DataLimit::new(u64::MAX)
    }

    /// Bytes read so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    /// Why `size` more bytes are refused: the size, what was read before,
    /// the limit and the flag.
    fn refusal(&self, size: u64, what: &str) -> String {
        let before = if self.used > 0 {
            format!(
                " (with the {} bytes of data read before it, {} bytes)",
                self.used,
                self.used.saturating_add(size)
            )
        } else {
            String::new()
        };
        format!(
            "{what} {size} bytes{before}, more than the limit of {} bytes of data per command \
             (raise it with {MAX_DATA_BYTES_FLAG} N; the interpreter needs about 250 bytes of \
             memory per byte of data)",
            self.limit
        )
    }

    /// Counts `size` bytes, or refuses them when they do not fit.
    fn take(&mut self, size: u64, what: &str) -> Result<(), String> {
        if size > self.remaining() {
            return Err(self.refusal(size, what));
        }
        self.used += size;
        Ok(())
    }
}

impl Default for DataLimit {
    fn default() -> DataLimit {
        DataLimit::new(DEFAULT_MAX_DATA_BYTES)
    }
}

/// The file name a source's records have in a data directory: the base name
/// of its `path`, or `<name>.txt` for inline sources.
pub fn data_file_name(kind: &OpKind) -> Option<String> {
    let OpKind::Source { name, path, .. } = kind else {
        return None;
    };
    Some(match path {
        Some(path) => Path::new(path)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("{name}.txt")),
        None => format!("{name}.txt"),
    })
}

/// The lines of every source of `program`: from `data_dir` when given, else
/// from the program's paths (relative to `base_dir`) and inline records,
/// within [`DataLimit::default`]. Errors name the source and the file.
pub fn load_inputs(
    program: &Program,
    base_dir: &Path,
    data_dir: Option<&Path>,
) -> Result<BTreeMap<String, Vec<String>>, String> {
    load_inputs_within(program, base_dir, data_dir, &mut DataLimit::default())
}

/// [`load_inputs`], counting what it reads against `limit` (shared by the
/// datasets of one command).
pub fn load_inputs_within(
    program: &Program,
    base_dir: &Path,
    data_dir: Option<&Path>,
    limit: &mut DataLimit,
) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut inputs = BTreeMap::new();
    for (_, op) in program.sources() {
        let OpKind::Source {
            name, path, inline, ..
        } = &op.kind
        else {
            continue;
        };
        let file: Option<PathBuf> = match (data_dir, path) {
            (Some(dir), _) => Some(dir.join(data_file_name(&op.kind).unwrap_or_default())),
            (None, Some(path)) => Some(base_dir.join(path)),
            (None, None) => None,
        };
        let source = format!("{}: source \"{}\"", op.loc, escape(name));
        let lines = match file {
            Some(file) => read_lines(&file, limit).map_err(|e| {
                format!(
                    "{source}: cannot read {}: {e}",
                    escape(&file.display().to_string())
                )
            })?,
            None => {
                let records = inline.clone().unwrap_or_default();
                // As a file would hold them, one line each.
                let size = records.iter().map(|r| r.len() as u64 + 1).sum();
                limit
                    .take(size, "its inline records are")
                    .map_err(|e| format!("{source}: {e}"))?;
                records
            }
        };
        inputs.insert(name.clone(), lines);
    }
    Ok(inputs)
}

/// The records of a data file, as Spark's `sc.textFile` reads them
/// ([`split_records`]): `\n`, `\r` and `\r\n` end a line, a leading UTF-8
/// byte order mark is dropped, malformed UTF-8 becomes U+FFFD. Only a
/// regular file is read (links followed), and only when its size fits in
/// `limit`; reading stops there too, should the file grow meanwhile. The
/// error says why, without the file's name.
pub fn read_lines(path: &Path, limit: &mut DataLimit) -> Result<Vec<String>, String> {
    let (file, metadata) = open_regular(path).map_err(|e| match e {
        OpenError::NotRegular(kind) => {
            format!("it is {kind}, not a regular file (data files must be regular files)")
        }
        OpenError::Io(e) => reason(&e),
    })?;
    let size = metadata.len();
    if size > limit.remaining() {
        return Err(limit.refusal(size, "it is"));
    }
    let mut bytes = Vec::new();
    // A limit raised past the memory there is: an error, not an abort.
    bytes
        .try_reserve_exact(size as usize)
        .map_err(|_| format!("it is {size} bytes, more than this machine can hold in memory"))?;
    file.take(limit.remaining().saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| reason(&e))?;
    limit.take(bytes.len() as u64, "it grew while being read to")?;
    Ok(split_records(&bytes))
}

/// An I/O error as the OS words it, without Rust's `(os error N)`.
fn reason(error: &std::io::Error) -> String {
    let text = error.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("coco-io-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn lines_end_as_in_spark_and_bad_utf8_is_replaced() {
        let dir = scratch("lines");
        let file = dir.join("data.txt");
        std::fs::write(&file, b"\xef\xbb\xbfa\rb\r\nc\xff\n\n").unwrap();
        let mut limit = DataLimit::default();
        assert_eq!(
            read_lines(&file, &mut limit).unwrap(),
            ["a", "b", "c\u{fffd}", ""]
        );
        assert_eq!(limit.used(), 12);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = scratch("kinds");
        let zero = dir.join("zero.txt");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let error = read_lines(&zero, &mut DataLimit::default()).unwrap_err();
        assert!(
            error.starts_with("it is a device, not a regular file"),
            "{error}"
        );
        let error = read_lines(&dir, &mut DataLimit::default()).unwrap_err();
        assert!(error.starts_with("it is a directory"), "{error}");
        let fifo = dir.join("fifo.txt");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Would block forever if opened: nobody writes to it.
            let error = read_lines(&fifo, &mut DataLimit::default()).unwrap_err();
            assert!(error.starts_with("it is a FIFO"), "{error}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn data_beyond_the_limit_is_refused_before_reading() {
        let dir = scratch("limit");
        let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
        std::fs::write(&a, "1234\n").unwrap();
        std::fs::write(&b, "567\n").unwrap();
        let mut limit = DataLimit::new(8);
        assert_eq!(read_lines(&a, &mut limit).unwrap(), ["1234"]);
        let error = read_lines(&b, &mut limit).unwrap_err();
        assert_eq!(
            error,
            "it is 4 bytes (with the 5 bytes of data read before it, 9 bytes), more than the \
             limit of 8 bytes of data per command (raise it with --max-data-bytes N; the \
             interpreter needs about 250 bytes of memory per byte of data)"
        );
        assert_eq!(limit.used(), 5);
        // A sparse file of 1 GiB is refused by its size, not read.
        let big = dir.join("big.txt");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(1 << 30)
            .unwrap();
        let error = read_lines(&big, &mut DataLimit::default()).unwrap_err();
        assert!(error.starts_with("it is 1073741824 bytes, more than the limit of 8388608 bytes"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
