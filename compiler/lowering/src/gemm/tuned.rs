//! Measured cache blockings: a table of the fastest blocking found for each
//! GEMM shape on a CPU (`coco-translate --tune-gemms`, docs/gemm.md "Tuned
//! tiles"), which the helpers use where the matmul has no `coco.tile`.
//!
//! ```toml
//! [[gemm]]
//! cpu = "znver4"
//! m = 512
//! n = 4096
//! k = 1024
//! element = "bf16"
//! arithmetic = "fused"
//! tile = [192, 2048, 512]
//! ms = 24.3
//! ```
//!
//! A batched matmul runs its 2-D helper on each matrix, so the entry of its
//! matrices' shape applies. Entries are per LLVM CPU name: a table measured
//! on one machine says nothing about another.

use std::path::Path;

use coco_bundle::DType;
use serde::{Deserialize, Serialize};

use super::{Arithmetic, Blocking};
use crate::error::{Error, Result};

/// The most a table may hold (each entry is about 120 bytes).
const MAX_TABLE_BYTES: u64 = 1 << 20;

/// What a measurement is of: the shape, types, arithmetic and CPU.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GemmKey {
    pub cpu: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub element: DType,
    pub arithmetic: Arithmetic,
}

/// The fastest blocking measured for one key, and its time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TunedTile {
    #[serde(flatten)]
    pub key: GemmKey,
    /// rows, cols, depth (`MC`, `NC`, `KC`), as `coco.tile` says them.
    #[serde(deserialize_with = "three_numbers")]
    pub tile: [usize; 3],
    /// Milliseconds per GEMM with it, on one thread.
    pub ms: f64,
}

/// A table has nothing but its entries: a TOML file with anything else
/// (a `[package]`) is not one, and `--tune-gemms` will not replace it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileTable {
    #[serde(default, rename = "gemm")]
    pub entries: Vec<TunedTile>,
}

impl TileTable {
    /// The table at `path`: a regular file of TOML as above.
    pub fn load(path: &Path) -> Result<TileTable> {
        let text = read_table(path).map_err(|message| Error::Io {
            path: path.display().to_string(),
            message,
        })?;
        parse_table(&text, &path.display().to_string())
    }

    /// Writes the table to `path`, replacing it whole with the staged
    /// writer (a link there is replaced, a FIFO refused).
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut text = String::from(
            "# GEMM cache blockings measured by coco-translate --tune-gemms (docs/gemm.md).\n",
        );
        text.push_str(&toml::to_string(self).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?);
        coco_base::staged::write_file(path, text.as_bytes()).map_err(|e| Error::io(path, e))
    }

    /// The blocking measured for `key`, if any.
    pub fn lookup(&self, key: &GemmKey) -> Option<Blocking> {
        self.entries
            .iter()
            .find(|e| e.key == *key)
            .map(|e| Blocking {
                rows: e.tile[0],
                cols: e.tile[1],
                depth: e.tile[2],
            })
    }

    /// Records `entry`, replacing an earlier measurement of its key.
    pub fn insert(&mut self, entry: TunedTile) {
        self.entries.retain(|e| e.key != entry.key);
        self.entries.push(entry);
    }
}

/// A table and the CPU the kernels are compiled for: what the helpers look
/// their blocking up in.
#[derive(Clone, Copy, Debug)]
pub struct Tuning<'t> {
    pub table: &'t TileTable,
    /// The LLVM CPU name (`native` resolved to this machine's).
    pub cpu: &'t str,
}

impl Tuning<'_> {
    /// The measured blocking of an `m x k` by `k x n` product of `element`
    /// accumulated with `arithmetic`, if the table has one for this CPU.
    pub fn blocking(
        &self,
        (m, n, k): (usize, usize, usize),
        element: DType,
        arithmetic: Arithmetic,
    ) -> Option<Blocking> {
        self.table.lookup(&GemmKey {
            cpu: self.cpu.to_string(),
            m,
            n,
            k,
            element,
            arithmetic,
        })
    }
}

/// The table in `text`, read from `path`; an error names `path:LINE`, the
/// line where TOML or the schema found the fault.
fn parse_table(text: &str, path: &str) -> Result<TileTable> {
    toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|span| text[..span.start.min(text.len())].lines().count().max(1));
        Error::Io {
            path: line.map_or(path.to_string(), |line| format!("{path}:{line}")),
            message: format!("not a GEMM tile table: {}", e.message().trim_end()),
        }
    })
}

/// A `tile`: exactly rows, cols and depth. serde's fixed-size arrays
/// ignore elements past their length, so `[192, 2048, 512, 64]` would
/// apply a blocking other than the one written.
fn three_numbers<'de, D>(deserializer: D) -> std::result::Result<[usize; 3], D::Error>
where
    D: serde::Deserializer<'de>,
{
    let numbers = Vec::<usize>::deserialize(deserializer)?;
    <[usize; 3]>::try_from(numbers.as_slice()).map_err(|_| {
        serde::de::Error::custom(format!(
            "`tile` has {} number(s), {numbers:?}; it takes 3: rows, cols, depth",
            numbers.len()
        ))
    })
}

/// The text of the table at `path`: a regular file (a FIFO would block)
/// of at most [`MAX_TABLE_BYTES`] of UTF-8.
fn read_table(path: &Path) -> std::result::Result<String, String> {
    use std::io::Read;
    let (file, metadata) = coco_base::file::open_regular(path).map_err(|e| e.to_string())?;
    if metadata.len() > MAX_TABLE_BYTES {
        return Err(format!(
            "{} bytes, more than a tile table's limit of {MAX_TABLE_BYTES}",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_TABLE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRY: &str = "[[gemm]]\ncpu = \"znver4\"\nm = 512\nn = 4096\nk = 1024\n\
        element = \"bf16\"\narithmetic = \"fused\"\n";

    #[test]
    fn a_tile_of_three_numbers_is_read() {
        let text = format!("{ENTRY}tile = [192, 2048, 512]\nms = 24.3\n");
        let table = parse_table(&text, "t.toml").unwrap();
        assert_eq!(table.entries[0].tile, [192, 2048, 512]);
    }

    #[test]
    fn a_tile_of_four_numbers_is_refused_at_its_line() {
        let text = format!("# tuned\n{ENTRY}tile = [192, 2048, 512, 64]\nms = 24.3\n");
        let error = parse_table(&text, "t.toml").unwrap_err().to_string();
        // Line 9 is the `tile`.
        assert_eq!(
            error,
            "t.toml:9: not a GEMM tile table: `tile` has 4 number(s), [192, 2048, 512, 64]; \
             it takes 3: rows, cols, depth"
        );
        let text = format!("{ENTRY}tile = [192, 2048]\nms = 1.0\n");
        let two = parse_table(&text, "t.toml").unwrap_err().to_string();
        assert!(two.contains("`tile` has 2 number(s)"), "{two}");
    }
}
