//! How much memory a rank may ask for, and allocations that fail with an
//! error instead of aborting the process.
//!
//! Before a stage's buffers are allocated, their total (with the GPU
//! temporaries of the kernels it launches) is checked against
//! [`MEMORY_LIMIT_ENV`] (`COCO_MAX_MEMORY_BYTES`), by default this
//! machine's physical memory: a plan that asks for 800 GB is refused by
//! name, before the allocator or the kernel's OOM killer decide. Temporaries
//! of collectives and of input and output files are allocated with
//! [`zeroed`], which reports failure as an error.

use coco_bundle::{Plan, Step};

use crate::error::{Error, Result};

/// The variable that sets the most bytes one rank allocates for its
/// stage's buffers (all of them together).
pub const MEMORY_LIMIT_ENV: &str = "COCO_MAX_MEMORY_BYTES";

/// The limits, for `coco-exec --help`.
pub const HELP: &str =
    "Environment:\n  COCO_MAX_MEMORY_BYTES  the most bytes one rank allocates for its \
                        stage's buffers, all together (default: this machine's physical memory); \
                        a plan that needs more is refused with an error naming the buffer";

/// The limit, and where it came from (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    pub bytes: u64,
    pub source: String,
}

impl MemoryLimit {
    /// From `$COCO_MAX_MEMORY_BYTES`, else this machine's memory, else none.
    pub fn from_env() -> Result<MemoryLimit> {
        MemoryLimit::parse(std::env::var(MEMORY_LIMIT_ENV).ok().as_deref())
    }

    fn parse(value: Option<&str>) -> Result<MemoryLimit> {
        if let Some(text) = value {
            let bytes = text.trim().parse::<u64>().map_err(|_| {
                Error::Plan(format!(
                    "{MEMORY_LIMIT_ENV}='{text}' is not a number of bytes"
                ))
            })?;
            return Ok(MemoryLimit {
                bytes,
                source: format!("{MEMORY_LIMIT_ENV}={text}"),
            });
        }
        Ok(match physical_memory() {
            Some(bytes) => MemoryLimit {
                bytes,
                source: format!("this machine's memory; set {MEMORY_LIMIT_ENV} to change it"),
            },
            None => MemoryLimit {
                bytes: u64::MAX,
                source: "no limit".into(),
            },
        })
    }

    /// Checks the buffers stage `index` allocates on one rank, and the GPU
    /// temporaries of the kernels it launches: the error names the buffer
    /// that goes over the limit.
    pub fn check(&self, plan: &Plan, index: usize) -> Result<()> {
        let stage = &plan.stages[index];
        let context = format!("stage {index} (@{})", stage.function);
        let mut total: u64 = 0;
        // `what` names the allocation and opens a parenthesis.
        let over = |what: String, bytes: u64, total: u64| {
            Error::Plan(format!(
                "{context}: {what}{bytes} bytes) brings the rank's buffers to {total} bytes, \
                 over the limit of {} bytes ({})",
                self.bytes, self.source
            ))
        };
        for buffer in stage.buffers.iter().filter(|b| b.view.is_none()) {
            let bytes = buffer.bytes() as u64;
            total = total.saturating_add(bytes);
            if total > self.bytes {
                let what = format!("buffer '{}' ({}, ", buffer.name, buffer.ty());
                return Err(over(what, bytes, total));
            }
        }
        let mut launched: Vec<&str> = stage
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Launch { kernel, .. } => Some(kernel.as_str()),
                _ => None,
            })
            .collect();
        launched.sort_unstable();
        launched.dedup();
        for kernel in launched.into_iter().filter_map(|k| plan.kernel(k)) {
            for (i, &bytes) in kernel.gpu_scratch.iter().enumerate() {
                total = total.saturating_add(bytes);
                if total > self.bytes {
                    let what = format!("temporary {i} of kernel '{}' (", kernel.name);
                    return Err(over(what, bytes, total));
                }
            }
        }
        Ok(())
    }
}

/// Checks every stage of `plan` against the limit from the environment:
/// what a tool that runs the bundle (`coco-run`) asks before it prepares
/// inputs of the same size.
pub fn check_plan(plan: &Plan) -> Result<()> {
    let limit = MemoryLimit::from_env()?;
    (0..plan.stages.len()).try_for_each(|index| limit.check(plan, index))
}

/// `MemTotal` of `/proc/meminfo`.
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// `bytes` zero bytes for `what`, or an error when they cannot be had.
/// Like `vec![0; bytes]`, the memory comes zeroed from the allocator
/// (`calloc`: large blocks are fresh pages, not written twice), but failure
/// is an error rather than an abort.
pub fn zeroed(bytes: usize, what: &str) -> Result<Vec<u8>> {
    let fail = || {
        Error::Plan(format!(
            "out of memory: cannot allocate {bytes} bytes for {what}"
        ))
    };
    if bytes == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<u8>(bytes).map_err(|_| fail())?;
    // SAFETY: `layout` has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(fail());
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of
    // `bytes` u8s, all of them initialised (zero).
    Ok(unsafe { Vec::from_raw_parts(ptr, bytes, bytes) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_comes_from_the_environment_or_the_machine() {
        let limit = MemoryLimit::parse(Some("4096")).unwrap();
        assert_eq!(limit.bytes, 4096);
        assert_eq!(limit.source, "COCO_MAX_MEMORY_BYTES=4096");
        let error = MemoryLimit::parse(Some("4G")).unwrap_err().to_string();
        assert_eq!(error, "COCO_MAX_MEMORY_BYTES='4G' is not a number of bytes");
        let default = MemoryLimit::parse(None).unwrap();
        assert!(default.bytes > 1 << 20, "{default:?}");
        assert!(
            default.source.contains("this machine's memory"),
            "{default:?}"
        );
    }

    #[test]
    fn zeroed_fails_cleanly() {
        assert_eq!(zeroed(3, "x").unwrap(), [0, 0, 0]);
        let error = zeroed(isize::MAX as usize, "a test")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("out of memory: cannot allocate"),
            "{error}"
        );
    }
}
