//! Host memory for a stage's buffers. Every plain buffer gets its own
//! zero-initialised allocation aligned to 64 bytes (a cache line, and the
//! widest vector loads the native kernels may emit); a view is a pointer
//! into its base buffer at an element offset (`offset + position *
//! rank_stride`, so each rank may view its own part), so writes through
//! either are seen by both, as the plan requires.
//!
//! Buffers alias (views), so this module hands out raw regions rather than
//! Rust references; [`Memory::bytes`] and [`Memory::bytes_mut`] create
//! slices for one step's use, and the step code never holds a mutable slice
//! of a region together with another slice that overlaps it (see
//! [`Region::overlaps`]).

use std::{
    alloc::{self, Layout},
    collections::HashMap,
    ptr::NonNull,
};

use coco_bundle::{Buffer, DType, Stage};

use crate::error::{Error, Result};

pub const ALIGN: usize = 64;

struct Allocation {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl Drop for Allocation {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `Memory::new`.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// Where a buffer lives: `bytes` bytes at `ptr`.
#[derive(Clone, Debug)]
pub struct Region {
    pub ptr: *mut u8,
    pub bytes: usize,
    pub dtype: DType,
    pub shape: Vec<usize>,
}

impl Region {
    /// `buffer` at `ptr`.
    fn of(buffer: &Buffer, ptr: *mut u8) -> Region {
        Region {
            ptr,
            bytes: buffer.bytes(),
            dtype: buffer.dtype,
            shape: buffer.shape.clone(),
        }
    }

    pub fn overlaps(&self, other: &Region) -> bool {
        let (a, b) = (self.ptr as usize, other.ptr as usize);
        a < b + other.bytes && b < a + self.bytes
    }
}

/// Every buffer of one stage.
pub struct Memory {
    _allocations: Vec<Allocation>,
    regions: HashMap<String, Region>,
}

impl Memory {
    /// Allocates the stage's buffers for stage position `position` (the plan
    /// is validated: views fit on every position and view plain buffers).
    /// Buffers in `placed` already have zeroed memory there (a shared
    /// window) and are not allocated.
    pub fn new(
        stage: &Stage,
        position: usize,
        placed: &HashMap<String, *mut u8>,
    ) -> Result<Memory> {
        let mut allocations = Vec::new();
        let mut regions = HashMap::new();
        for buffer in stage.buffers.iter().filter(|b| b.view.is_none()) {
            if let Some(&ptr) = placed.get(&buffer.name) {
                regions.insert(buffer.name.clone(), Region::of(buffer, ptr));
                continue;
            }
            // Zero-sized buffers still get a distinct, valid pointer.
            let layout = Layout::from_size_align(buffer.bytes().max(1), ALIGN).map_err(|_| {
                Error::Plan(format!(
                    "buffer '{}' ({} bytes) is too large",
                    buffer.name,
                    buffer.bytes()
                ))
            })?;
            // SAFETY: `layout` has a non-zero size.
            let ptr = NonNull::new(unsafe { alloc::alloc_zeroed(layout) }).ok_or_else(|| {
                Error::Plan(format!(
                    "out of memory allocating buffer '{}' ({} bytes)",
                    buffer.name,
                    buffer.bytes()
                ))
            })?;
            allocations.push(Allocation { ptr, layout });
            regions.insert(buffer.name.clone(), Region::of(buffer, ptr.as_ptr()));
        }
        for buffer in &stage.buffers {
            if let Some(view) = &buffer.view {
                let base = &regions[&view.of];
                let start = view.start(position);
                if start + buffer.len() > base.bytes / buffer.dtype.size() {
                    return Err(Error::Plan(format!(
                        "view '{}' (elements {start}..{}) runs past '{}'",
                        buffer.name,
                        start + buffer.len(),
                        view.of
                    )));
                }
                // SAFETY: the view fits in its base (checked just above).
                let ptr = unsafe { base.ptr.add(start * buffer.dtype.size()) };
                regions.insert(buffer.name.clone(), Region::of(buffer, ptr));
            }
        }
        Ok(Memory {
            _allocations: allocations,
            regions,
        })
    }

    pub fn region(&self, name: &str) -> &Region {
        &self.regions[name]
    }

    /// The bytes of buffer `name`.
    ///
    /// # Safety
    /// No mutable slice overlapping the buffer may be alive while the
    /// returned one is.
    pub unsafe fn bytes(&self, name: &str) -> &[u8] {
        let r = &self.regions[name];
        std::slice::from_raw_parts(r.ptr, r.bytes)
    }

    /// The bytes of buffer `name`, to write.
    ///
    /// # Safety
    /// No other slice overlapping the buffer may be alive while the returned
    /// one is.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn bytes_mut(&self, name: &str) -> &mut [u8] {
        let r = &self.regions[name];
        std::slice::from_raw_parts_mut(r.ptr, r.bytes)
    }
}
