//! CPU GEMMs as generated code: `C = A·B` for one float matmul shape,
//! blocked for the caches, packed, and computed by a register-tiled
//! micro-kernel of the host's vector width (the Goto/BLIS algorithm).
//!
//! The kernel emitter leaves `linalg.matmul` (or `linalg.batch_matmul`) on
//! tensors with a `coco.gemm` attribute naming a helper function it also
//! writes ([`helper_text`]); after bufferization, [`calls::outline`]
//! replaces each such op, now on memrefs, by a call to its helper. The
//! helper is plain upstream MLIR (scf, memref, vector, arith), so
//! `coco-translate --emit=kernels` shows it and the CPU pipeline lowers it
//! with the rest.
//!
//! ```text
//! for jc in 0..n step NC            B panel  (KC x NC, L3)
//!   for pc in 0..k step KC          pack B[pc.., jc..] into NR-wide strips
//!     for ic in 0..m step MC        A block  (MC x KC, L2)
//!       pack A[ic.., pc..] into MR-tall strips
//!       for jr, ir                  micro-kernel: MR x NR accumulators in
//!         C[ic+ir.., jc+jr..] +=      vector registers, k outermost
//! ```
//!
//! Numerics: every output element still sums its products in order
//! p = 0, 1, ..., k - 1 from zero (the first block over k starts the
//! accumulators at zero, later ones load and store them through C), so
//! [`Arithmetic::Ordered`] (a rounded multiply, then a rounded add) is
//! bitwise the reference interpreter's. [`Arithmetic::Fused`]
//! uses fused multiply-adds: one rounding per product instead of two (see
//! docs/gemm.md for the bound).

pub mod blas;
pub mod calls;
pub mod gpu;
mod text;
pub mod tuned;
mod writer;

use coco_bundle::DType;

pub use text::{helper_text, BF16_DOT};

/// The attribute on `linalg.matmul` naming its helper.
pub const GEMM_ATTR: &str = "coco.gemm";

/// The unit attribute on the `linalg.generic` that rounds a marked
/// matmul's f32 sums to its 16-bit result (see [`Gemm::rounds_to`]).
pub const ROUNDING_ATTR: &str = "coco.gemm_rounding";

/// How products are accumulated (`--gemm-arithmetic`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Arithmetic {
    /// `acc + round(a * b)`, rounded: the interpreter's, bit for bit.
    Ordered,
    /// `fma(a, b, acc)`: one rounding per product, what BLAS libraries
    /// do; about 1.4x faster where FMA units outnumber adders (docs/gemm.md).
    #[default]
    Fused,
}

impl Arithmetic {
    pub fn name(self) -> &'static str {
        match self {
            Arithmetic::Ordered => "ordered",
            Arithmetic::Fused => "fused",
        }
    }
}

/// Cache blocking: rows of A per block (`MC`), columns of B per panel
/// (`NC`), and the depth of both (`KC`). `coco.tile = [rows, cols]` or
/// `[rows, cols, depth]` sets them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Blocking {
    pub rows: usize,
    pub cols: usize,
    pub depth: usize,
}

/// Cache blocking when `coco.tile` does not say, measured on AVX2 and
/// AVX-512 hosts (docs/gemm.md): B strips of `KC x NR` stay in L1, the A
/// block in L2.
pub const DEFAULT_BLOCKING: Blocking = Blocking {
    rows: 192,
    cols: 2048,
    depth: 256,
};

/// The default depth (`KC`) of [`Gemm::bf16_dot`] GEMMs: B's strips hold
/// bf16, so 512 deep fills L1 as 256 f32 do; half as many passes over C
/// (the f32 sums between blocks over k), about 4% faster at 512 x 2048 x
/// 4096 and 512 x 4096 x 1024 on AVX512-BF16.
pub const BF16_DOT_DEPTH: usize = 512;

/// The register tile: `rows` broadcast elements of A times `vectors`
/// vectors of `lanes` elements of B, `rows * vectors` accumulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegisterTile {
    pub rows: usize,
    pub vectors: usize,
    pub lanes: usize,
}

impl RegisterTile {
    /// The tile for vectors of `vector_bits` and accumulator `acc`: two
    /// vectors per row, and as many rows as leave three registers for B and
    /// the broadcast (16 registers below AVX-512, 32 with it).
    pub fn for_host(vector_bits: usize, acc: DType) -> RegisterTile {
        let lanes = (vector_bits / (acc.size() * 8)).max(1);
        let registers = if vector_bits >= 512 { 32 } else { 16 };
        RegisterTile {
            rows: (registers - 3) / 2,
            vectors: 2,
            lanes,
        }
    }

    /// Columns of the tile.
    pub fn cols(self) -> usize {
        self.vectors * self.lanes
    }
}

/// How the native kernels compute float matmuls (`--gemm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Route {
    /// The blocked, packed, vectorised helpers of this module.
    #[default]
    Generated,
    /// `linalg.matmul` lowered to plain loops (what coco did before the
    /// helpers: a baseline for benchmarks).
    Loops,
    /// f32 and f64 GEMMs call the system's CBLAS (`cblas_sgemm`,
    /// `cblas_dgemm` from Debian's OpenBLAS) on one thread; 16-bit ones
    /// stay generated (docs/gemm.md, "The library route").
    Library,
    /// The GPU's tiled GEMM kernels ([`gpu::GpuGemm`]) run on the CPU as
    /// loops, block by block and thread by thread: slow, for checking the
    /// GPU kernels' indexing against the interpreter without a GPU.
    GpuTiles,
}

/// What the kernel emitter needs to write a GEMM for the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CpuGemm {
    /// f32 and f64 GEMMs call CBLAS ([`Route::Library`]).
    pub library: bool,
    pub vector_bits: usize,
    pub arithmetic: Arithmetic,
    /// The CPU has AVX512-BF16's `vdpbf16ps` (see [`Gemm::bf16_dot`]).
    pub bf16_dot: bool,
    /// Float GEMMs run the GPU's kernels as loops ([`Route::GpuTiles`]).
    pub gpu_tiles: bool,
}

/// The vector width of LLVM CPU `cpu` (`native`: this machine, from its
/// features). Named CPUs are looked up by family; an unknown name gets
/// 128 bits, which every x86-64 has (wider code would still be correct,
/// split into 128-bit halves).
pub fn vector_bits(cpu: &str, host_features: &str) -> usize {
    const AVX512: &[&str] = &[
        "x86-64-v4",
        "skylake-avx512",
        "cascadelake",
        "cooperlake",
        "cannonlake",
        "icelake-client",
        "icelake-server",
        "tigerlake",
        "rocketlake",
        "sapphirerapids",
        "emeraldrapids",
        "graniterapids",
        "znver4",
        "znver5",
        "knl",
        "knm",
    ];
    const AVX2: &[&str] = &[
        "x86-64-v3",
        "haswell",
        "broadwell",
        "skylake",
        "alderlake",
        "raptorlake",
        "meteorlake",
        "arrowlake",
        "lunarlake",
        "znver1",
        "znver2",
        "znver3",
        "bdver4",
    ];
    let has = |feature: &str| host_features.split(',').any(|f| f == feature);
    if cpu == "native" {
        if has("+avx512f") {
            512
        } else if has("+avx") {
            256
        } else {
            128
        }
    } else if AVX512.contains(&cpu) {
        512
    } else if AVX2.contains(&cpu) {
        256
    } else {
        128
    }
}

/// Whether LLVM CPU `cpu` has AVX512-BF16 (`native`: from this machine's
/// features), as [`vector_bits`] decides.
pub fn has_bf16_dot(cpu: &str, host_features: &str) -> bool {
    const BF16: &[&str] = &[
        "cooperlake",
        "sapphirerapids",
        "emeraldrapids",
        "graniterapids",
        "znver4",
        "znver5",
    ];
    if cpu == "native" {
        host_features.split(',').any(|f| f == "+avx512bf16")
    } else {
        BF16.contains(&cpu)
    }
}

/// One GEMM helper: `batch` products (2-D when `None`) of `m x k` and
/// `k x n` matrices of `element`, accumulated in `acc` into C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Gemm {
    pub batch: Option<usize>,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub element: DType,
    pub acc: DType,
    pub blocking: Blocking,
    pub register: RegisterTile,
    pub arithmetic: Arithmetic,
    /// bf16 products in pairs by `vdpbf16ps` (AVX512-BF16): A and B stay
    /// bf16 when packed, two k steps interleaved, and each instruction
    /// adds two products per lane, the odd k first, with one rounding per
    /// product and denormals flushed (docs/gemm.md). Only for bf16 inputs,
    /// fused arithmetic and 512-bit vectors.
    pub bf16_dot: bool,
    /// The helper also takes D, C's shape in this (narrower) type, and
    /// writes the sums there rounded once, in the last block over k: a
    /// 16-bit matmul's result without a pass over C. C then only holds
    /// the sums between blocks over k. [`calls::outline`] passes the
    /// output of the narrowing `linalg.generic` (marked [`ROUNDING_ATTR`])
    /// that follows the matmul as D and drops that op.
    pub rounds_to: Option<DType>,
    /// The helper calls CBLAS instead ([`blas`]): f32 and f64 only, so
    /// `rounds_to` is `None`; the blocking and register fields are unused.
    pub library: bool,
}

impl Gemm {
    /// The blocking actually used: clamped to the matrix and rounded up to
    /// whole register tiles, so that distinct `coco.tile`s that mean the same
    /// code name the same helper.
    pub fn effective_blocking(&self) -> Blocking {
        let round_up = |x: usize, to: usize| x.div_ceil(to) * to;
        let r = self.register;
        Blocking {
            rows: round_up(self.blocking.rows.clamp(1, self.m.max(1)), r.rows),
            cols: round_up(self.blocking.cols.clamp(1, self.n.max(1)), r.cols()),
            depth: round_up(
                self.blocking.depth.clamp(1, self.k.max(1)),
                if self.bf16_dot { 2 } else { 1 },
            ),
        }
    }

    /// The helper's symbol: every parameter its text depends on.
    pub fn symbol(&self) -> String {
        if self.library {
            return blas::symbol(self);
        }
        let b = self.effective_blocking();
        let r = self.register;
        let batch = self.batch.map_or(String::new(), |t| format!("{t}x"));
        format!(
            "coco_gemm_{batch}{}x{}x{}_{}_{}_b{}x{}x{}_r{}x{}_{}{}{}",
            self.m,
            self.n,
            self.k,
            self.element.name(),
            self.acc.name(),
            b.rows,
            b.cols,
            b.depth,
            r.rows,
            r.cols(),
            self.arithmetic.name(),
            if self.bf16_dot { "_dot" } else { "" },
            self.rounds_to
                .map_or(String::new(), |t| format!("_to_{}", t.name()))
        )
    }

    /// Whether generated code handles this element type (floats; integer
    /// matmuls stay `linalg.matmul` loops).
    pub fn supports(element: DType) -> bool {
        element.is_float()
    }
}
