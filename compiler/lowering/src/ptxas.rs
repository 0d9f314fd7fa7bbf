//! NVIDIA's assembler as the judge of the PTX coco emits: `ptxas -v
//! --warning-as-error` for one chip, so that an error or a warning is a
//! failure, and what it reports per kernel (registers, spills, shared
//! memory, stack) as a table.

use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
    process::Command,
};

use crate::error::{Error, Result};

/// What ptxas allotted one entry point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelResources {
    pub entry: String,
    pub registers: u32,
    pub spill_stores: u64,
    pub spill_loads: u64,
    /// Static shared memory, bytes.
    pub shared_bytes: u64,
    pub stack_bytes: u64,
}

/// Assembles `ptx` for `chip` with `ptxas`; the resources of every entry
/// point, in ptxas's order. Any diagnostic that is not `ptxas info` (an
/// error or a warning) fails with ptxas's text.
pub fn assemble(ptxas: &Path, ptx: &str, chip: &str) -> Result<Vec<KernelResources>> {
    let dir = scratch_dir()?;
    let input = dir.join("kernels.ptx");
    let result = (|| {
        std::fs::write(&input, ptx).map_err(|e| Error::io(&input, e))?;
        let output = Command::new(ptxas)
            .arg(format!("-arch={chip}"))
            .args(["-v", "--warning-as-error", "-o"])
            .arg(dir.join("kernels.cubin"))
            .arg(&input)
            .output()
            .map_err(|e| Error::io(ptxas, e))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let complaints: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with("ptxas info") && !l.starts_with("    "))
            .filter(|l| !l.trim().is_empty())
            .collect();
        if !output.status.success() || !complaints.is_empty() {
            return Err(Error::Codegen(format!(
                "ptxas ({}) rejects the PTX for {chip} ({}):\n{}",
                ptxas.display(),
                output.status,
                if complaints.is_empty() {
                    text.trim_end().to_string()
                } else {
                    complaints.join("\n")
                }
            )));
        }
        Ok(parse_verbose(&text))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A private folder for ptxas's input and output (ptxas reads files only).
fn scratch_dir() -> Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "coco-ptxas-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    Ok(dir)
}

/// Reads `ptxas -v`'s report: `Compiling entry function 'k' for 'sm_90'`,
/// then `N bytes stack frame, N bytes spill stores, N bytes spill loads`
/// and `Used N registers, ..., N bytes smem, ...`.
pub fn parse_verbose(text: &str) -> Vec<KernelResources> {
    let mut kernels: Vec<KernelResources> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let entry = rest.split('\'').next().unwrap_or_default();
            kernels.push(KernelResources {
                entry: entry.to_string(),
                ..KernelResources::default()
            });
            continue;
        }
        let Some(kernel) = kernels.last_mut() else {
            continue;
        };
        for part in line.split(',') {
            let words: Vec<&str> = part.split_whitespace().collect();
            let number = |at: usize| words.get(at).and_then(|w| w.parse::<u64>().ok());
            match words.as_slice() {
                [.., "Used", _, "registers"] => {
                    kernel.registers = number(words.len() - 2).unwrap_or(0) as u32
                }
                [_, "bytes", "smem"] => kernel.shared_bytes = number(0).unwrap_or(0),
                [_, "bytes", "stack", "frame"] => kernel.stack_bytes = number(0).unwrap_or(0),
                [_, "bytes", "spill", "stores"] => kernel.spill_stores = number(0).unwrap_or(0),
                [_, "bytes", "spill", "loads"] => kernel.spill_loads = number(0).unwrap_or(0),
                _ => {}
            }
        }
    }
    kernels.sort_by_key(|k| natural_key(&k.entry));
    kernels
}

/// `k2` before `k10`: digit runs compare as numbers.
fn natural_key(name: &str) -> Vec<(String, u64)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            let mut number = c.to_digit(10).unwrap_or(0) as u64;
            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                number = number.saturating_mul(10).saturating_add(d as u64);
                chars.next();
            }
            key.push((std::mem::take(&mut text), number));
        } else {
            text.push(c);
        }
    }
    key.push((text, 0));
    key
}

/// The resources as an aligned table (what `--resource-usage` prints).
pub fn table(chip: &str, kernels: &[KernelResources]) -> String {
    let width = kernels
        .iter()
        .map(|k| k.entry.len())
        .max()
        .unwrap_or(0)
        .max("kernel".len());
    let mut text = format!(
        "resource usage on {chip} (ptxas -v):\n{:width$}  registers  spill stores  spill loads  shared bytes  stack bytes\n",
        "kernel"
    );
    for k in kernels {
        let _ = writeln!(
            text,
            "{:width$}  {:>9}  {:>12}  {:>11}  {:>12}  {:>11}",
            k.entry, k.registers, k.spill_stores, k.spill_loads, k.shared_bytes, k.stack_bytes
        );
    }
    text
}
