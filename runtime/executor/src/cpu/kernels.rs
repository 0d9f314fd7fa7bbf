//! The native kernels: `kernels.so` opened once per run, every kernel a
//! stage launches resolved before its first step (so a missing symbol is
//! reported before any rank starts communicating), and calls through the
//! bundle's C ABI, `void name(void *buffer_0, ..., void *buffer_{n-1},
//! int64_t rank)`.
//!
//! Rust cannot call a C function with a number of arguments known only at
//! run time, so [`call`] matches on the arity and transmutes the symbol to
//! the function type with that many pointers, up to [`MAX_BUFFERS`]: a macro
//! writes the arms.

use std::{collections::HashMap, ffi::c_void, path::Path};

use coco_bundle::{Plan, Stage, Step};
use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};

use crate::error::{Error, Result};

/// The most buffers a kernel may take.
pub const MAX_BUFFERS: usize = 32;

type Entry = unsafe extern "C" fn();

#[derive(Clone, Copy)]
struct Kernel {
    entry: Entry,
    buffers: usize,
}

/// The kernels one stage launches.
pub struct Kernels {
    kernels: HashMap<String, Kernel>,
    // Declared last: dropped (dlclose) after the entry points above.
    _library: Option<Library>,
}

impl Kernels {
    /// Opens the bundle's shared library and resolves every kernel `stage`
    /// launches; opens nothing when the stage launches none.
    pub fn load(bundle: &Path, plan: &Plan, stage: &Stage) -> Result<Kernels> {
        let launched: Vec<&str> = stage.steps.iter().filter_map(Step::kernel).collect();
        if launched.is_empty() {
            return Ok(Kernels {
                kernels: HashMap::new(),
                _library: None,
            });
        }
        let file = plan.native.as_deref().ok_or_else(|| {
            Error::Kernel(format!(
                "stage @{} launches kernels but the plan names no native library \
                 (`native`): the bundle was built without CPU kernels",
                stage.function
            ))
        })?;
        let path = bundle.join(file);
        // A regular file, the very one the plan was written with: another
        // build's kernels may write past the plan's buffers.
        let (opened, bytes) = coco_bundle::read_verified(
            bundle,
            file,
            plan.native_digest.as_ref(),
            "native_digest",
            "the bundle's native kernels",
        )?;
        super::elf::check_complete(&bytes).map_err(|e| {
            Error::Kernel(format!(
                "{}: {e} (rebuild the bundle with coco-translate --emit=bundle)",
                path.display()
            ))
        })?;
        drop(bytes);
        // The file checked, through its open descriptor: not whatever the
        // path names by now.
        let checked = {
            use std::os::fd::AsRawFd;
            let by_fd = std::path::PathBuf::from(format!("/proc/self/fd/{}", opened.as_raw_fd()));
            if by_fd.exists() {
                by_fd
            } else {
                path.clone()
            }
        };
        keep_freed_memory();
        // SAFETY: loading a library runs its initialisers; a bundle's
        // kernels.so is compiler output with none beyond the C runtime's
        // and, under `--gemm library`, OpenBLAS's (its thread pool, which
        // the kernels set to one thread before each call).
        // RTLD_NOW reports unresolved symbols here rather than mid-run.
        let library = unsafe { Library::open(Some(&checked), RTLD_NOW | RTLD_LOCAL) }
            .map_err(|e| Error::Kernel(format!("{}: cannot load: {e}", path.display())))?;
        drop(opened);
        let mut kernels = HashMap::new();
        for name in launched {
            if kernels.contains_key(name) {
                continue;
            }
            let buffers = plan.kernel(name).expect("validated plan").buffers.len();
            if buffers > MAX_BUFFERS {
                return Err(Error::Kernel(format!(
                    "kernel '{name}' takes {buffers} buffers; this executor calls \
                     kernels of at most {MAX_BUFFERS}"
                )));
            }
            // SAFETY: the symbol is only called through `call`, with the
            // plan's arity for it.
            let entry: Entry = unsafe {
                *library.get::<Entry>(name.as_bytes()).map_err(|_| {
                    Error::Kernel(format!("kernel '{name}' is not in {}", path.display()))
                })?
            };
            kernels.insert(name.to_string(), Kernel { entry, buffers });
        }
        Ok(Kernels {
            kernels,
            _library: Some(library),
        })
    }

    /// Runs kernel `name` on `buffers` with rank argument `rank`.
    ///
    /// # Safety
    /// `buffers` must point to the buffers the plan passes, each as large as
    /// the plan declares: the kernel reads and writes them freely.
    pub unsafe fn launch(&self, name: &str, buffers: &[*mut c_void], rank: i64) -> Result<()> {
        let kernel = self.kernels[name];
        if kernel.buffers != buffers.len() {
            return Err(Error::Kernel(format!(
                "kernel '{name}' takes {} buffers, got {}",
                kernel.buffers,
                buffers.len()
            )));
        }
        call(kernel.entry, buffers, rank);
        Ok(())
    }
}

macro_rules! call_with_arity {
    ($entry:expr, $p:expr, $rank:expr; $($n:literal => [$($i:literal)*],)*) => {
        match $p.len() {
            $($n => {
                let f: unsafe extern "C" fn($(call_with_arity!(@ptr $i),)* i64) =
                    std::mem::transmute::<Entry, _>($entry);
                f($($p[$i],)* $rank)
            })*
            n => unreachable!("{n} buffers (checked against MAX_BUFFERS on load)"),
        }
    };
    (@ptr $i:literal) => { *mut c_void };
}

/// Calls `entry(p[0], ..., p[n-1], rank)`.
///
/// # Safety
/// `entry` must be a C function taking `p.len()` pointers and an `int64_t`.
unsafe fn call(entry: Entry, p: &[*mut c_void], rank: i64) {
    call_with_arity!(entry, p, rank;
            0 => [],
            1 => [0],
            2 => [0 1],
            3 => [0 1 2],
            4 => [0 1 2 3],
            5 => [0 1 2 3 4],
            6 => [0 1 2 3 4 5],
            7 => [0 1 2 3 4 5 6],
            8 => [0 1 2 3 4 5 6 7],
            9 => [0 1 2 3 4 5 6 7 8],
            10 => [0 1 2 3 4 5 6 7 8 9],
            11 => [0 1 2 3 4 5 6 7 8 9 10],
            12 => [0 1 2 3 4 5 6 7 8 9 10 11],
            13 => [0 1 2 3 4 5 6 7 8 9 10 11 12],
            14 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13],
            15 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14],
            16 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15],
            17 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16],
            18 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17],
            19 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18],
            20 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19],
            21 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20],
            22 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21],
            23 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22],
            24 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23],
            25 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24],
            26 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25],
            27 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26],
            28 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27],
            29 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28],
            30 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29],
            31 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30],
            32 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31],
    )
}

/// Keeps memory the kernels free in this process. Kernels allocate their
/// temporaries (a fused kernel's intermediates, a GEMM's packing buffers)
/// with malloc at every launch, and glibc hands large blocks back to the
/// kernel when they are freed (through `munmap` above its mmap threshold,
/// by trimming the heap's top), so each launch would fault its temporaries
/// in and zero them anew: 8,192 page faults per forward of the attention
/// block at 512 tokens on 2 ranks, none with this. The rank's footprint
/// stays at its peak, as a caching allocator's would.
fn keep_freed_memory() {
    // SAFETY: mallopt only sets the allocator's parameters; both are valid
    // values for them.
    unsafe {
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX);
    }
}
