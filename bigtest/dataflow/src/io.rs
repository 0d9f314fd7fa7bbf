//! Where a program's input records come from: a data directory holding one
//! file per source (test data, `--data`), or the paths and inline records in
//! the program itself.
//!
//! Data files are read as Spark's `sc.textFile` reads them
//! ([`crate::text::split_records`]). Only regular files are read (a FIFO
//! would block the reader, a link to `/dev/zero` feed it forever), and at
//! most a [`DataLimit`] of bytes in all: the interpreter holds every record
//! with its path in memory, about [`MEMORY_PER_DATA_BYTE`] bytes per byte of
//! data, so the limit is also held below what this process's memory
//! ([`MemoryLimit`]) can take.

use std::{
    collections::BTreeMap,
    io::Read,
    path::{Path, PathBuf},
};

use coco_base::{
    file::{open_regular, OpenError},
    memory::MemoryLimit,
};

use crate::{
    model::{OpKind, Program},
    text::{escape, split_records},
};

/// The default of `--max-data-bytes`: 8 MiB, about 2 GiB of interpreter
/// memory (wordcount on 1 million short lines, 10.8 MB, peaked at 2.7 GB).
pub const DEFAULT_MAX_DATA_BYTES: u64 = 8 << 20;

/// The flag that sets a [`DataLimit`], for messages.
pub const MAX_DATA_BYTES_FLAG: &str = "--max-data-bytes";

/// Bytes of interpreter memory per byte of data it reads, at the most the
/// examples needed: peak resident memory over data size, measured with
/// `/usr/bin/time -v coco-bigtest run` on each example's data grown to
/// 10 MB (docs/bigtest.md, "How much data").
pub const MEMORY_PER_DATA_BYTE: u64 = 250;

/// How many bytes of data one command may still read: every source of
/// every test case together. Inline records count too.
#[derive(Clone, Debug)]
pub struct DataLimit {
    limit: u64,
    used: u64,
    /// The memory the data's interpreter may use, if bounded.
    memory: Option<MemoryLimit>,
}

impl DataLimit {
    /// `limit` bytes, or less where this process's memory holds less
    /// ([`DataLimit::ceiling`]): data beyond that is refused by name rather
    /// than left to abort the interpreter.
    pub fn new(limit: u64) -> DataLimit {
        DataLimit::within(limit, MemoryLimit::from_env().ok())
    }

    fn within(limit: u64, memory: Option<MemoryLimit>) -> DataLimit {
        DataLimit {
            limit,
            used: 0,
            memory: memory.filter(|m| m.bytes != u64::MAX),
        }
    }

    /// No limit: for data the tool wrote itself.
    pub fn unlimited() -> DataLimit {
        DataLimit::within(u64::MAX, None)
    }

    /// The most data the memory holds, where it is bounded.
    pub fn ceiling(&self) -> Option<u64> {
        self.memory.as_ref().map(|m| m.bytes / MEMORY_PER_DATA_BYTE)
    }

    /// Bytes read so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    fn remaining(&self) -> u64 {
        self.limit
            .min(self.ceiling().unwrap_or(u64::MAX))
            .saturating_sub(self.used)
    }

    /// Why `size` more bytes are refused: the size, what was read before,
    /// and the limit and the flag, or the memory that cannot hold them.
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
        if let (Some(memory), Some(ceiling)) = (&self.memory, self.ceiling()) {
            if ceiling < self.limit {
                return format!(
                    "{what} {size} bytes{before}, more than this process's memory can hold: the \
                     interpreter needs about {MEMORY_PER_DATA_BYTE} bytes of memory per byte of \
                     data, and {} bytes may be used ({}), so at most {ceiling} bytes of data",
                    memory.bytes, memory.source
                );
            }
        }
        format!(
            "{what} {size} bytes{before}, more than the limit of {} bytes of data per command \
             (raise it with {MAX_DATA_BYTES_FLAG} N; the interpreter needs about \
             {MEMORY_PER_DATA_BYTE} bytes of memory per byte of data)",
            self.limit
        )
    }

    /// Counts `size` bytes, or refuses them when they do not fit in the
    /// limit or in memory.
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
        let mut default = DataLimit::within(DEFAULT_MAX_DATA_BYTES, None);
        let error = read_lines(&big, &mut default).unwrap_err();
        assert!(error.starts_with("it is 1073741824 bytes, more than the limit of 8388608 bytes"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn memory(bytes: u64) -> Option<MemoryLimit> {
        Some(MemoryLimit {
            bytes,
            source: "a test's".into(),
        })
    }

    #[test]
    fn data_beyond_what_memory_holds_is_refused_whatever_the_limit() {
        // 50 MB under 6 GB of memory once aborted the interpreter: 6 GB
        // holds 24 MB of data.
        let mut limit = DataLimit::within(50_000_000, memory(6_000_000_000));
        assert_eq!(limit.ceiling(), Some(24_000_000));
        limit.take(20_000_000, "it is").unwrap();
        let error = limit.take(5_000_000, "it is").unwrap_err();
        assert_eq!(
            error,
            "it is 5000000 bytes (with the 20000000 bytes of data read before it, 25000000 \
             bytes), more than this process's memory can hold: the interpreter needs about 250 \
             bytes of memory per byte of data, and 6000000000 bytes may be used (a test's), so \
             at most 24000000 bytes of data"
        );
        // Where the flag is the lower bound, it is the one named.
        let mut limit = DataLimit::within(8, memory(6_000_000_000));
        let error = limit.take(9, "it is").unwrap_err();
        assert!(error.contains("more than the limit of 8 bytes"), "{error}");
        // No bound on memory, no ceiling.
        assert_eq!(DataLimit::within(8, None).ceiling(), None);
        assert_eq!(DataLimit::unlimited().ceiling(), None);
    }
}
