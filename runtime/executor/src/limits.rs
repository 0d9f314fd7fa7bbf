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

pub use coco_base::memory::{MemoryLimit, MEMORY_LIMIT_ENV};

/// The limits, for `coco-exec --help`.
pub const HELP: &str =
    "Environment:\n  COCO_MAX_MEMORY_BYTES  the most bytes one rank allocates for its \
                        stage's buffers, all together (default: this machine's physical memory); \
                        a plan that needs more is refused with an error naming the buffer";

/// The limit from the environment, as an executor error.
pub fn from_env() -> Result<MemoryLimit> {
    MemoryLimit::from_env().map_err(Error::Plan)
}

/// Checks the buffers stage `index` allocates on one rank, and the GPU
/// temporaries of the kernels it launches, against `limit`: the error names
/// the buffer that goes over it.
pub fn check_stage(limit: &MemoryLimit, plan: &Plan, index: usize) -> Result<()> {
    let stage = &plan.stages[index];
    let context = format!("stage {index} (@{})", stage.function);
    let mut total: u64 = 0;
    // `what` names the allocation and opens a parenthesis.
    let over = |what: String, bytes: u64, total: u64| {
        Error::Plan(format!(
            "{context}: {what}{bytes} bytes) brings the rank's buffers to {total} bytes, \
                 over the limit of {} bytes ({})",
            limit.bytes, limit.source
        ))
    };
    for buffer in stage.buffers.iter().filter(|b| b.view.is_none()) {
        let bytes = buffer.bytes() as u64;
        total = total.saturating_add(bytes);
        if total > limit.bytes {
            let what = format!("buffer '{}' ({}, ", buffer.name, buffer.ty());
            return Err(over(what, bytes, total));
        }
    }
    let mut launched: Vec<&str> = stage.steps.iter().filter_map(Step::kernel).collect();
    launched.sort_unstable();
    launched.dedup();
    for kernel in launched.into_iter().filter_map(|k| plan.kernel(k)) {
        for (i, &bytes) in kernel.gpu_scratch.iter().enumerate() {
            total = total.saturating_add(bytes);
            if total > limit.bytes {
                let what = format!("temporary {i} of kernel '{}' (", kernel.name);
                return Err(over(what, bytes, total));
            }
        }
    }
    Ok(())
}

/// Checks every stage of `plan` against the limit from the environment:
/// what a tool that runs the bundle (`coco-run`) asks before it prepares
/// inputs of the same size.
pub fn check_plan(plan: &Plan) -> Result<()> {
    let limit = from_env()?;
    (0..plan.stages.len()).try_for_each(|index| check_stage(&limit, plan, index))
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
