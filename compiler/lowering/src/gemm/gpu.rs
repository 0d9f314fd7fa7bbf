//! GPU GEMMs: `C = A·B` for one float matmul shape as one `gpu.launch` of
//! 256-thread blocks, each computing a `BM x BN` tile of C from tiles of A
//! and B staged in shared memory, each thread a `TM x TN` register tile.
//!
//! ```text
//! block (bx, by, bz): C[by BM.., bx BN..] of matrix bz (batched matmuls)
//!   for kt in 0..k step BK
//!     the block copies A[.., kt..] (BM x BK, transposed) and B[kt.., ..]
//!       (BK x BN) into shared memory, widened to the accumulation type;
//!       consecutive threads read consecutive elements (coalesced)
//!     barrier
//!     thread (ty, tx) = (t / 16, t % 16) adds, for each p of the tile's
//!       depth, A[row_i][p] B[p][col_j] to its TM x TN sums, held in
//!       registers: rows ty + 16 i, columns tx + 16 j (a warp reads 16
//!       neighbouring words of B's tile and two of A's: no bank conflicts)
//!     barrier
//!   each thread stores its sums inside C, rounded to a 16-bit result
//! ```
//!
//! Numerics, as the CPU helpers: every sum runs p = 0, 1, ..., k - 1 from
//! zero (the last tile over k stops at k, so nothing is added that the
//! interpreter does not add), so [`Arithmetic::Ordered`] is the
//! interpreter's bit for bit and [`Arithmetic::Fused`] uses `fma.rn`.
//!
//! [`GpuGemm::emulation`] is the same kernel as loops for a CPU: blocks,
//! then threads, one phase between barriers at a time, each thread's sums
//! in memory between phases. `--gemm gpu-tiles` compiles the native kernels
//! so, and the test suite runs the examples that way against the reference
//! interpreter: the tiles' indexing (edges, batches, the copy's share per
//! thread) is checked on a machine without a GPU.

use coco_bundle::DType;

use super::{writer::Writer, Arithmetic};

/// Threads per block along each side of the `16 x 16` thread grid.
pub const THREAD_GRID: usize = 16;

/// Threads per block.
pub const THREADS: usize = THREAD_GRID * THREAD_GRID;

/// The largest register tile side (`TM`, `TN`): 8 x 8 sums, about 100
/// registers with the operands and addresses (no spills; docs/gpu-resources.md).
pub const MAX_PER_THREAD: usize = 8;

/// The deepest shared tile: `32 x (128 + 128)` f32 is 32 KB, under the
/// 48 KB a block may have without opting in.
pub const MAX_DEPTH: usize = 32;

/// The block tile without `coco.tile`: 4 x 4 sums per thread.
pub const DEFAULT_TILE: GpuTile = GpuTile {
    rows: 64,
    cols: 64,
    depth: 8,
};

/// The tile of C one block computes (`BM x BN`) and the depth of the
/// shared tiles of A and B (`BK`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GpuTile {
    pub rows: usize,
    pub cols: usize,
    pub depth: usize,
}

impl GpuTile {
    /// The tile `coco.tile = [rows, cols]` or `[rows, cols, depth]` asks
    /// for, as the kernel can run it: rows and columns rounded up to
    /// multiples of 16 between 16 and 128 (whole register tiles of the
    /// thread grid), the depth clamped to 1..=32; sizes not given (or not
    /// positive) are [`DEFAULT_TILE`]'s.
    pub fn from_coco_tile(tile: Option<&[i64]>) -> GpuTile {
        let size = |i: usize| {
            tile.and_then(|t| t.get(i))
                .and_then(|&v| usize::try_from(v).ok())
                .filter(|&v| v > 0)
        };
        let side = |v: Option<usize>, default: usize| {
            v.map_or(default, |v| {
                v.div_ceil(THREAD_GRID).clamp(1, MAX_PER_THREAD) * THREAD_GRID
            })
        };
        GpuTile {
            rows: side(size(0), DEFAULT_TILE.rows),
            cols: side(size(1), DEFAULT_TILE.cols),
            depth: size(2).map_or(DEFAULT_TILE.depth, |d| d.min(MAX_DEPTH)),
        }
    }

    /// Sums per thread: (rows, cols).
    pub fn per_thread(self) -> (usize, usize) {
        (self.rows / THREAD_GRID, self.cols / THREAD_GRID)
    }
}

/// One float matmul's GPU kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GpuGemm {
    pub batch: Option<usize>,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub element: DType,
    /// The sums' type (f32 for 16-bit elements); C holds `element`.
    pub acc: DType,
    pub tile: GpuTile,
    pub arithmetic: Arithmetic,
}

/// The memrefs a kernel reads and writes, of [`GpuGemm::memref_types`].
pub struct Operands<'a> {
    pub a: &'a str,
    pub b: &'a str,
    pub c: &'a str,
}

/// Bytes of one vector load from global memory (`ld.global.v4.f32`).
const VECTOR_BYTES: usize = 16;

/// One operand's tile copied into shared memory: (name, type) of the
/// matrix and of the shared buffer, the tile's rows and columns, its first
/// row and column in the matrix (SSA names), the matrix's rows and columns.
struct Tile<'a> {
    source: (&'a str, &'a str),
    dest: (&'a str, &'a str),
    size: (usize, usize),
    origin: (&'a str, &'a str),
    bounds: (usize, usize),
    /// Stored column-major (A's tile: a thread's rows are then neighbours).
    transposed: bool,
}

/// Where one thread works: its rows and columns of the block's tile.
struct Thread {
    rows: Vec<String>,
    cols: Vec<String>,
}

impl GpuGemm {
    /// A, B and C as row-major memrefs (C of the element type: the kernel
    /// rounds as it stores).
    pub fn memref_types(&self) -> [String; 3] {
        let lead: Vec<usize> = self.batch.into_iter().collect();
        let ty = |rows: usize, cols: usize| {
            let dims: Vec<String> = lead
                .iter()
                .chain([rows, cols].iter())
                .map(|d| d.to_string())
                .collect();
            format!("memref<{}x{}>", dims.join("x"), self.element.name())
        };
        [ty(self.m, self.k), ty(self.k, self.n), ty(self.m, self.n)]
    }

    /// Blocks along x (tiles of columns), y (tiles of rows) and z (batch).
    pub fn grid(&self) -> [usize; 3] {
        [
            self.n.div_ceil(self.tile.cols),
            self.m.div_ceil(self.tile.rows),
            self.batch.unwrap_or(1),
        ]
    }

    /// Bytes of shared memory per block.
    pub fn shared_bytes(&self) -> usize {
        self.tile.depth * (self.tile.rows + self.tile.cols) * self.acc.size()
    }

    fn shared_types(&self, space: &str) -> (String, String) {
        let acc = self.acc.name();
        let t = self.tile;
        (
            format!("memref<{}x{}x{acc}{space}>", t.depth, t.rows),
            format!("memref<{}x{}x{acc}{space}>", t.depth, t.cols),
        )
    }

    /// The kernel as a `gpu.launch` in a function body: lines that define
    /// its sizes and the launch. `prefix` starts every name it defines.
    pub fn launch(&self, prefix: &str, operands: &Operands) -> String {
        const SPACE: &str = ", #gpu.address_space<workgroup>";
        let (sa_type, sb_type) = self.shared_types(SPACE);
        let p = format!("%{prefix}");
        let mut w = Writer::new(prefix, 1, &[0, 1]);
        let zero = w.def("zero", &format!("arith.constant 0.0 : {}", self.acc.name()));
        let tid = format!("{p}tx");
        let thread = self.thread(&mut w, &tid);
        let bm0 = w.mul_const(&format!("{p}by"), self.tile.rows);
        let bn0 = w.mul_const(&format!("{p}bx"), self.tile.cols);
        let batch = self.batch.map(|_| format!("{p}bz"));
        let shared = [
            (format!("{p}sa"), sa_type.clone()),
            (format!("{p}sb"), sb_type.clone()),
        ];
        let count = self.sums();
        let sums = w.fresh("sums");
        let kt = w.fresh("kt");
        let args: Vec<String> = (0..count).map(|_| w.fresh("acc")).collect();
        let (k, depth) = (w.index(self.k), w.index(self.tile.depth));
        let c0 = w.index(0);
        w.open(&format!(
            "{sums}:{count} = scf.for {kt} = {c0} to {k} step {depth} iter_args({}) -> ({})",
            args.iter()
                .map(|a| format!("{a} = {zero}"))
                .collect::<Vec<_>>()
                .join(", "),
            vec![self.acc.name(); count].join(", ")
        ));
        self.copy_tiles(
            &mut w,
            &tid,
            &kt,
            (&bm0, &bn0),
            batch.as_deref(),
            operands,
            &shared,
            true,
        );
        w.line("gpu.barrier");
        let next = self.multiply(&mut w, &thread, &kt, &shared, &args);
        w.line("gpu.barrier");
        w.line(&format!(
            "scf.yield {} : {}",
            next.join(", "),
            vec![self.acc.name(); count].join(", ")
        ));
        w.close("");
        let results: Vec<String> = (0..count).map(|i| format!("{sums}#{i}")).collect();
        self.store(
            &mut w,
            &thread,
            (&bm0, &bn0),
            batch.as_deref(),
            operands.c,
            &results,
        );

        let [gx, gy, gz] = self.grid();
        format!(
            "    {p}grid_x = arith.constant {gx} : index\n\
             \x20   {p}grid_y = arith.constant {gy} : index\n\
             \x20   {p}grid_z = arith.constant {gz} : index\n\
             \x20   {p}threads = arith.constant {THREADS} : index\n\
             \x20   {p}one = arith.constant 1 : index\n\
             \x20   gpu.launch blocks({p}bx, {p}by, {p}bz) in ({p}nbx = {p}grid_x, {p}nby = {p}grid_y, {p}nbz = {p}grid_z) \
             threads({p}tx, {p}ty, {p}tz) in ({p}ntx = {p}threads, {p}nty = {p}one, {p}ntz = {p}one) \
             workgroup({p}sa : {sa_type}, {p}sb : {sb_type}) {{\n\
             {}{}      gpu.terminator\n    }}\n",
            w.constant_lines(3),
            w.body
        )
    }

    /// The same kernel as loops for a CPU: lines in a function body.
    pub fn emulation(&self, prefix: &str, operands: &Operands) -> String {
        let (sa_type, sb_type) = self.shared_types("");
        let acc = self.acc.name();
        let (tm, tn) = self.tile.per_thread();
        let sums_type = format!("memref<{THREADS}x{tm}x{tn}x{acc}>");
        let mut w = Writer::new(prefix, 0, &[0, 1]);
        let zero = w.def("zero", &format!("arith.constant 0.0 : {acc}"));
        let sa = w.def("sa", &format!("memref.alloc() : {sa_type}"));
        let sb = w.def("sb", &format!("memref.alloc() : {sb_type}"));
        let saved = w.def("saved", &format!("memref.alloc() : {sums_type}"));
        let shared = [(sa.clone(), sa_type), (sb.clone(), sb_type)];
        let (c0, c1) = (w.index(0), w.index(1));
        let [gx, gy, gz] = self.grid();
        let mut block = Vec::new();
        for (name, blocks) in [("bz", gz), ("by", gy), ("bx", gx)] {
            let id = w.fresh(name);
            let n = w.index(blocks);
            w.open(&format!("scf.for {id} = {c0} to {n} step {c1}"));
            block.push(id);
        }
        let batch = self.batch.map(|_| block[0].clone());
        let bm0 = w.mul_const(&block[1], self.tile.rows);
        let bn0 = w.mul_const(&block[2], self.tile.cols);
        let threads = w.index(THREADS);
        let pairs: Vec<(usize, usize)> =
            (0..tm).flat_map(|i| (0..tn).map(move |j| (i, j))).collect();
        let open_threads = |w: &mut Writer| {
            let t = w.fresh("t");
            w.open(&format!("scf.for {t} = {c0} to {threads} step {c1}"));
            t
        };
        let load_sums = |w: &mut Writer, t: &str| -> Vec<String> {
            pairs
                .iter()
                .map(|&(i, j)| {
                    let (ci, cj) = (w.index(i), w.index(j));
                    w.def(
                        "s",
                        &format!("memref.load {saved}[{t}, {ci}, {cj}] : {sums_type}"),
                    )
                })
                .collect()
        };
        let save_sums = |w: &mut Writer, t: &str, sums: &[String]| {
            for (&(i, j), s) in pairs.iter().zip(sums) {
                let (ci, cj) = (w.index(i), w.index(j));
                w.line(&format!(
                    "memref.store {s}, {saved}[{t}, {ci}, {cj}] : {sums_type}"
                ));
            }
        };

        let t = open_threads(&mut w);
        save_sums(&mut w, &t, &vec![zero.clone(); pairs.len()]);
        w.close("");
        let kt = w.fresh("kt");
        let (k, depth) = (w.index(self.k), w.index(self.tile.depth));
        w.open(&format!("scf.for {kt} = {c0} to {k} step {depth}"));
        let t = open_threads(&mut w);
        self.copy_tiles(
            &mut w,
            &t,
            &kt,
            (&bm0, &bn0),
            batch.as_deref(),
            operands,
            &shared,
            false,
        );
        w.close("");
        let t = open_threads(&mut w);
        let thread = self.thread(&mut w, &t);
        let sums = load_sums(&mut w, &t);
        let next = self.multiply(&mut w, &thread, &kt, &shared, &sums);
        save_sums(&mut w, &t, &next);
        w.close("");
        w.close("");
        let t = open_threads(&mut w);
        let thread = self.thread(&mut w, &t);
        let sums = load_sums(&mut w, &t);
        self.store(
            &mut w,
            &thread,
            (&bm0, &bn0),
            batch.as_deref(),
            operands.c,
            &sums,
        );
        w.close("");
        for _ in &block {
            w.close("");
        }
        // `buffer-deallocation-pipeline` frees the buffers (it rejects
        // explicit deallocations).
        format!("{}{}", w.constant_lines(2), w.body)
    }

    fn sums(&self) -> usize {
        let (tm, tn) = self.tile.per_thread();
        tm * tn
    }

    /// Thread `tid`'s rows `ty + 16 i` and columns `tx + 16 j` of the tile.
    fn thread(&self, w: &mut Writer, tid: &str) -> Thread {
        let grid = w.index(THREAD_GRID);
        let ty = w.op("ty", "divui", tid, &grid);
        let tx = w.op("tx", "remui", tid, &grid);
        let (tm, tn) = self.tile.per_thread();
        Thread {
            rows: (0..tm).map(|i| w.add_const(&ty, i * THREAD_GRID)).collect(),
            cols: (0..tn).map(|j| w.add_const(&tx, j * THREAD_GRID)).collect(),
        }
    }

    /// Thread `tid`'s share of copying the tiles at depth `kt` into shared
    /// memory: A's `BM x BK` (stored transposed) and B's `BK x BN`, 16
    /// bytes per load where the rows allow and the buffer is aligned;
    /// `global`: the operands are in the GPU's global memory.
    #[allow(clippy::too_many_arguments)]
    fn copy_tiles(
        &self,
        w: &mut Writer,
        tid: &str,
        kt: &str,
        (bm0, bn0): (&str, &str),
        batch: Option<&str>,
        operands: &Operands,
        shared: &[(String, String); 2],
        global: bool,
    ) {
        let [ta, tb, _] = self.memref_types();
        let t = self.tile;
        let tiles = [
            Tile {
                source: (operands.a, &ta),
                dest: (&shared[0].0, &shared[0].1),
                size: (t.rows, t.depth),
                origin: (bm0, kt),
                bounds: (self.m, self.k),
                transposed: true,
            },
            Tile {
                source: (operands.b, &tb),
                dest: (&shared[1].0, &shared[1].1),
                size: (t.depth, t.cols),
                origin: (kt, bn0),
                bounds: (self.k, self.n),
                transposed: false,
            },
        ];
        for tile in &tiles {
            let lanes = self.vector_lanes();
            if tile.size.1 % lanes != 0 || tile.bounds.1 % lanes != 0 {
                self.copy_tile(w, tid, batch, tile, None);
                continue;
            }
            // Rows start on 16-byte boundaries when the buffer does (the
            // runtime passes views at any element offset, so it is asked).
            let (source, ty) = tile.source;
            let address = w.def(
                "addr",
                &format!("memref.extract_aligned_pointer_as_index {source} : {ty} -> index"),
            );
            let sixteen = w.index(VECTOR_BYTES);
            let misalignment = w.op("mis", "remui", &address, &sixteen);
            let c0 = w.index(0);
            let aligned = w.def(
                "aligned",
                &format!("arith.cmpi eq, {misalignment}, {c0} : index"),
            );
            w.open(&format!("scf.if {aligned}"));
            self.copy_tile(w, tid, batch, tile, Some((&address, global)));
            w.otherwise();
            self.copy_tile(w, tid, batch, tile, None);
            w.close("");
        }
    }

    /// The 16 bytes at element `[batch,] row, col` of a row-major matrix of
    /// `bounds` at `address` (16-byte aligned, as is the element).
    fn load_vector(
        &self,
        w: &mut Writer,
        (address, global): (&str, bool),
        batch: Option<&str>,
        (row, col): (&str, &str),
        (rows, cols): (usize, usize),
    ) -> String {
        let lanes = self.vector_lanes();
        let element = self.element.name();
        let row = match batch {
            Some(b) => {
                let first = w.mul_const(b, rows);
                w.add(&first, row)
            }
            None => row.to_string(),
        };
        let start = w.mul_const(&row, cols);
        let at = w.add(&start, col);
        let at = w.def("off", &format!("arith.index_cast {at} : index to i64"));
        let base = w.def(
            "base",
            &format!("arith.index_cast {address} : index to i64"),
        );
        let mut pointer = w.def("ptr", &format!("llvm.inttoptr {base} : i64 to !llvm.ptr"));
        let space = if global {
            // NVPTX's global space: `ld.global`, as the kernels' other loads.
            pointer = w.def(
                "gptr",
                &format!("llvm.addrspacecast {pointer} : !llvm.ptr to !llvm.ptr<1>"),
            );
            "<1>"
        } else {
            ""
        };
        let pointer = w.def(
            "gep",
            &format!("llvm.getelementptr {pointer}[{at}] : (!llvm.ptr{space}, i64) -> !llvm.ptr{space}, {element}"),
        );
        w.def(
            "v",
            &format!(
                "llvm.load {pointer} {{alignment = {VECTOR_BYTES} : i64}} : !llvm.ptr{space} -> vector<{lanes}x{element}>"
            ),
        )
    }

    /// Elements of one 16-byte load.
    fn vector_lanes(&self) -> usize {
        VECTOR_BYTES / self.element.size()
    }

    /// Thread `tid`'s share of copying `tile`: piece `e = tid + 256 r` of
    /// the tile, row-major, so consecutive threads read consecutive
    /// addresses. A piece is one element, or with `vector` (the matrix's
    /// 16-byte aligned address, and whether it is in global memory) the
    /// 16 bytes at a multiple of 16, read by one `llvm.load` aligned so
    /// (a `vector.load` only promises its element's alignment, and NVPTX
    /// then splits it; `memref.assume_alignment` under the alignment test
    /// is folded away). Indices past the matrix are clamped into it: what
    /// they read is never summed or stored.
    fn copy_tile(
        &self,
        w: &mut Writer,
        tid: &str,
        batch: Option<&str>,
        tile: &Tile,
        vector: Option<(&str, bool)>,
    ) {
        let lanes = if vector.is_some() {
            self.vector_lanes()
        } else {
            1
        };
        let lead = batch.map_or(String::new(), |b| format!("{b}, "));
        let (source, ty) = tile.source;
        let (dest, dest_ty) = tile.dest;
        let (rows, cols) = tile.size;
        let (row0, col0) = tile.origin;
        let (bound_rows, bound_cols) = tile.bounds;
        let element = self.element.name();
        let acc = self.acc.name();
        let pieces_per_row = cols / lanes;
        let count = rows * pieces_per_row;
        for r in 0..count.div_ceil(THREADS) {
            let e = w.add_const(tid, r * THREADS);
            let partial = (r + 1) * THREADS > count;
            if partial {
                let n = w.index(count);
                let inside = w.def("in", &format!("arith.cmpi ult, {e}, {n} : index"));
                w.open(&format!("scf.if {inside}"));
            }
            let width = w.index(pieces_per_row);
            let row = w.op("row", "divui", &e, &width);
            let piece = w.op("col", "remui", &e, &width);
            let col = if lanes > 1 {
                w.mul_const(&piece, lanes)
            } else {
                piece
            };
            let global_row = w.add(row0, &row);
            let global_col = w.add(col0, &col);
            let last_row = w.index(bound_rows - 1);
            let last_col = w.index(bound_cols - lanes);
            let gr = w.op("row", "minui", &global_row, &last_row);
            let gc = w.op("col", "minui", &global_col, &last_col);
            let at = |w: &mut Writer, lane: usize| {
                let c = w.add_const(&col, lane);
                if tile.transposed {
                    format!("{c}, {row}")
                } else {
                    format!("{row}, {c}")
                }
            };
            if let Some((address, global)) = vector {
                let v = self.load_vector(w, (address, global), batch, (&gr, &gc), tile.bounds);
                let v = if self.element == self.acc {
                    v
                } else {
                    w.def(
                        "w",
                        &format!(
                            "arith.extf {v} : vector<{lanes}x{element}> to vector<{lanes}x{acc}>"
                        ),
                    )
                };
                for lane in 0..lanes {
                    let x = w.def(
                        "x",
                        &format!("vector.extract {v}[{lane}] : {acc} from vector<{lanes}x{acc}>"),
                    );
                    let at = at(w, lane);
                    w.line(&format!("memref.store {x}, {dest}[{at}] : {dest_ty}"));
                }
            } else {
                let v = w.def(
                    "v",
                    &format!("memref.load {source}[{lead}{gr}, {gc}] : {ty}"),
                );
                let v = self.widen(w, &v);
                let at = at(w, 0);
                w.line(&format!("memref.store {v}, {dest}[{at}] : {dest_ty}"));
            }
            if partial {
                w.close("");
            }
        }
    }

    /// Adds the products of the shared tiles at depth `kt` to `sums` (the
    /// thread's, row-major); the new sums.
    fn multiply(
        &self,
        w: &mut Writer,
        thread: &Thread,
        kt: &str,
        shared: &[(String, String); 2],
        sums: &[String],
    ) -> Vec<String> {
        let acc = self.acc.name();
        let count = sums.len();
        let depth = w.extent(self.k, kt, self.tile.depth);
        let result = w.fresh("p");
        let p = w.fresh("k");
        let args: Vec<String> = (0..count).map(|_| w.fresh("acc")).collect();
        let (c0, c1) = (w.index(0), w.index(1));
        w.open(&format!(
            "{result}:{count} = scf.for {p} = {c0} to {depth} step {c1} iter_args({}) -> ({})",
            args.iter()
                .zip(sums)
                .map(|(a, s)| format!("{a} = {s}"))
                .collect::<Vec<_>>()
                .join(", "),
            vec![acc; count].join(", ")
        ));
        let [(sa, sa_type), (sb, sb_type)] = shared;
        let a: Vec<String> = thread
            .rows
            .iter()
            .map(|row| w.def("a", &format!("memref.load {sa}[{p}, {row}] : {sa_type}")))
            .collect();
        let b: Vec<String> = thread
            .cols
            .iter()
            .map(|col| w.def("b", &format!("memref.load {sb}[{p}, {col}] : {sb_type}")))
            .collect();
        let mut next = Vec::with_capacity(count);
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                let sum = &args[i * b.len() + j];
                next.push(match self.arithmetic {
                    Arithmetic::Ordered => {
                        let product = w.def("m", &format!("arith.mulf {x}, {y} : {acc}"));
                        w.def("s", &format!("arith.addf {sum}, {product} : {acc}"))
                    }
                    Arithmetic::Fused => w.def(
                        "s",
                        &format!("llvm.intr.fma({x}, {y}, {sum}) : ({acc}, {acc}, {acc}) -> {acc}"),
                    ),
                });
            }
        }
        w.line(&format!(
            "scf.yield {} : {}",
            next.join(", "),
            vec![acc; count].join(", ")
        ));
        w.close("");
        (0..count).map(|i| format!("{result}#{i}")).collect()
    }

    /// Stores the thread's `sums` into C where they fall inside it.
    fn store(
        &self,
        w: &mut Writer,
        thread: &Thread,
        (bm0, bn0): (&str, &str),
        batch: Option<&str>,
        c: &str,
        sums: &[String],
    ) {
        let [_, _, tc] = self.memref_types();
        let lead = batch.map_or(String::new(), |b| format!("{b}, "));
        // Each of the thread's rows (columns) of C, and whether it is inside.
        let within = |w: &mut Writer, first: &str, offsets: &[String], bound: usize| {
            let bound = w.index(bound);
            offsets
                .iter()
                .map(|offset| {
                    let at = w.add(first, offset);
                    let inside = w.def("in", &format!("arith.cmpi ult, {at}, {bound} : index"));
                    (at, inside)
                })
                .collect::<Vec<(String, String)>>()
        };
        let rows = within(w, bm0, &thread.rows, self.m);
        let cols = within(w, bn0, &thread.cols, self.n);
        for (i, (r, row_in)) in rows.iter().enumerate() {
            for (j, (col, col_in)) in cols.iter().enumerate() {
                let inside = w.def("in", &format!("arith.andi {row_in}, {col_in} : i1"));
                w.open(&format!("scf.if {inside}"));
                let sum = &sums[i * cols.len() + j];
                let value = if self.element == self.acc {
                    sum.clone()
                } else {
                    w.def(
                        "r",
                        &format!(
                            "arith.truncf {sum} : {} to {}",
                            self.acc.name(),
                            self.element.name()
                        ),
                    )
                };
                w.line(&format!(
                    "memref.store {value}, {c}[{lead}{r}, {col}] : {tc}"
                ));
                w.close("");
            }
        }
    }

    fn widen(&self, w: &mut Writer, x: &str) -> String {
        if self.element == self.acc {
            return x.to_string();
        }
        w.def(
            "w",
            &format!(
                "arith.extf {x} : {} to {}",
                self.element.name(),
                self.acc.name()
            ),
        )
    }
}
