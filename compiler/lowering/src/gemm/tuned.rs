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
    pub tile: [usize; 3],
    /// Milliseconds per GEMM with it, on one thread.
    pub ms: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
        toml::from_str(&text).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: format!("not a GEMM tile table: {}", e.message()),
        })
    }

    /// Writes the table to `path`, replacing it.
    pub fn save(&self, path: &Path) -> Result<()> {
        let mut text = String::from(
            "# GEMM cache blockings measured by coco-translate --tune-gemms (docs/gemm.md).\n",
        );
        text.push_str(&toml::to_string(self).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?);
        std::fs::write(path, text).map_err(|e| Error::io(path, e))
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
