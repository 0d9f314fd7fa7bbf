//! The helper functions' MLIR text (see the module docs for the loops).

use coco_bundle::DType;

use super::{writer::Writer, Arithmetic, Gemm};

/// The helper functions `gemm` needs, as `(symbol, text)`: the 2-D one,
/// and for a batched GEMM the loop over the batch that calls it. Kernels
/// that share a helper share its symbol, so a module holds each once.
pub fn helper_text(gemm: &Gemm) -> Vec<(String, String)> {
    let plain = Gemm {
        batch: None,
        ..*gemm
    };
    let mut helpers = if gemm.library {
        super::blas::helper_text(&plain)
    } else {
        vec![(plain.symbol(), two_dimensional(&plain))]
    };
    if gemm.bf16_dot {
        helpers.insert(0, (BF16_DOT.to_string(), BF16_DOT_DECLARATION.to_string()));
    }
    if let Some(batch) = gemm.batch {
        helpers.push((gemm.symbol(), batched(gemm, batch, &plain.symbol())));
    }
    helpers
}

/// `vdpbf16ps` (`llvm.x86.avx512bf16.dpbf16ps.512`) as a function the
/// helpers call: MLIR 19 has no op for it, and an `llvm.call_intrinsic`
/// would stop buffer deallocation (its memory effects are unknown), so the
/// kernels declare it and `native` links in its LLVM IR definition, which
/// LLVM inlines.
pub const BF16_DOT: &str = "coco_dpbf16ps";

const BF16_DOT_DECLARATION: &str = "  func.func private @coco_dpbf16ps(vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>\n";

/// A memref of `shape` with a dynamic offset and outer strides and a unit
/// inner stride: what any row-major view the kernels bufferize to casts to.
pub fn strided_memref(shape: &[usize], element: DType) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let mut strides = vec!["?"; shape.len()];
    if let Some(last) = strides.last_mut() {
        *last = "1";
    }
    format!(
        "memref<{}x{}, strided<[{}], offset: ?>>",
        dims.join("x"),
        element.name(),
        strides.join(", ")
    )
}

/// The type of the helper's fourth parameter, D, when it also writes its
/// result rounded to `rounds_to`.
pub fn rounded_type(gemm: &Gemm) -> Option<String> {
    let out = gemm.rounds_to?;
    let lead: Vec<usize> = gemm.batch.into_iter().collect();
    Some(strided_memref(&[lead, vec![gemm.m, gemm.n]].concat(), out))
}

/// The parameter types of `gemm`'s helper: A, B and C.
pub fn parameter_types(gemm: &Gemm) -> [String; 3] {
    let lead: Vec<usize> = gemm.batch.into_iter().collect();
    let shape = |rows: usize, cols: usize| [lead.clone(), vec![rows, cols]].concat();
    [
        strided_memref(&shape(gemm.m, gemm.k), gemm.element),
        strided_memref(&shape(gemm.k, gemm.n), gemm.element),
        strided_memref(&shape(gemm.m, gemm.n), gemm.acc),
    ]
}

/// The helper of a batched `gemm`: a loop over the batch calling the 2-D
/// helper `plain` on each matrix's view.
fn batched(gemm: &Gemm, batch: usize, plain: &str) -> String {
    let [ta, tb, tc] = parameter_types(gemm);
    let one = Gemm {
        batch: None,
        ..*gemm
    };
    let [pa, pb, pc] = parameter_types(&one);
    let (m, n, k) = (gemm.m, gemm.n, gemm.k);
    let (d, dt, dd, td_call) = match (rounded_type(gemm), rounded_type(&one)) {
        (Some(td), Some(pd)) => (
            format!(", %d: {td}"),
            format!(
                "\n      %dt = memref.subview %d[%t, 0, 0] [1, {m}, {n}] [1, 1, 1] : {td} to {pd}"
            ),
            ", %dt".to_string(),
            format!(", {pd}"),
        ),
        _ => Default::default(),
    };
    format!(
        "  func.func private @{sym}(%a: {ta}, %b: {tb}, %c: {tc}{d}) {{\n\
         \x20   %c0 = arith.constant 0 : index\n\
         \x20   %c1 = arith.constant 1 : index\n\
         \x20   %batch = arith.constant {batch} : index\n\
         \x20   scf.for %t = %c0 to %batch step %c1 {{\n\
         \x20     %at = memref.subview %a[%t, 0, 0] [1, {m}, {k}] [1, 1, 1] : {ta} to {pa}\n\
         \x20     %bt = memref.subview %b[%t, 0, 0] [1, {k}, {n}] [1, 1, 1] : {tb} to {pb}\n\
         \x20     %ct = memref.subview %c[%t, 0, 0] [1, {m}, {n}] [1, 1, 1] : {tc} to {pc}{dt}\n\
         \x20     func.call @{plain}(%at, %bt, %ct{dd}) : ({pa}, {pb}, {pc}{td_call}) -> ()\n\
         \x20   }}\n\
         \x20   return\n\
         \x20 }}\n",
        sym = gemm.symbol(),
    )
}

/// Lists `names` as a tuple of results or yields.
fn list(names: &[String]) -> String {
    names.join(", ")
}

fn two_dimensional(gemm: &Gemm) -> String {
    let [ta, tb, tc] = parameter_types(gemm);
    let blocking = gemm.effective_blocking();
    let r = gemm.register;
    let (mr, nr, lanes) = (r.rows, r.cols(), r.lanes);
    let (mc, nc, kc) = (blocking.rows, blocking.cols, blocking.depth);
    let (element, acc) = (gemm.element.name(), gemm.acc.name());
    let vector = format!("vector<{lanes}x{acc}>");
    // Packed panels hold the accumulation type (16-bit inputs widened
    // once, while packing), or bf16 pairs for `vdpbf16ps`.
    let packed = if gemm.bf16_dot { element } else { acc };
    let packed_a = format!("memref<{}x{packed}>", mc * kc);
    let packed_b = format!("memref<{}x{packed}>", kc * nc);
    let mut w = Writer::new("", 0, &[0, 1]);
    let direct_a = reads_a_directly(gemm);
    if !direct_a {
        w.line(&format!("%ap = memref.alloc() : {packed_a}"));
    }
    w.line(&format!("%bp = memref.alloc() : {packed_b}"));
    w.line(&format!("%zero = arith.constant 0.0 : {acc}"));
    w.line(&format!("%pad = arith.constant 0.0 : {element}"));
    w.line(&format!("%zv = arith.constant dense<0.0> : {vector}"));
    let (n_, k_, m_) = (w.index(gemm.n), w.index(gemm.k), w.index(gemm.m));
    let (nc_, kc_, mc_) = (w.index(nc), w.index(kc), w.index(mc));
    let (mr_, nr_) = (w.index(mr), w.index(nr));

    w.open(&format!("scf.for %jc = %c0 to {n_} step {nc_}"));
    let ncur = w.extent(gemm.n, "%jc", nc);
    w.open(&format!("scf.for %pc = %c0 to {k_} step {kc_}"));
    let kcur = w.extent(gemm.k, "%pc", kc);

    if gemm.bf16_dot {
        pack_b_pairs(&mut w, gemm, &kcur, &ncur, &tb, &packed_b);
    } else {
        pack_b(&mut w, gemm, &kcur, &ncur, &tb, &packed_b);
    }

    w.open(&format!("scf.for %ic = %c0 to {m_} step {mc_}"));
    let mcur = w.extent(gemm.m, "%ic", mc);

    if direct_a {
        // The micro-kernel reads A's pairs where they are.
    } else if gemm.bf16_dot {
        pack_a_pairs(&mut w, gemm, &kcur, &mcur, &ta, &packed_a);
    } else {
        pack_a(&mut w, gemm, &kcur, &mcur, &ta, &packed_a);
    }

    // The micro-kernel over every MR x NR tile of the block.
    let tile = r.rows * r.vectors;
    let types = vec![vector.clone(); tile].join(", ");
    w.open(&format!("scf.for %jr = %c0 to {ncur} step {nr_}"));
    let b_strip = w.mul_const("%jr", kc);
    let col0 = w.add("%jc", "%jr");
    let cols_left = w.op("i", "subi", &ncur, "%jr");
    let full_cols = w.def("f", &format!("arith.cmpi sge, {cols_left}, {nr_} : index"));
    w.open(&format!("scf.for %ir = %c0 to {mcur} step {mr_}"));
    let a_strip = w.mul_const("%ir", kc);
    let row0 = w.add("%ic", "%ir");
    let rows_left = w.op("i", "subi", &mcur, "%ir");
    let full_rows = w.def("f", &format!("arith.cmpi sge, {rows_left}, {mr_} : index"));
    let full = w.def("full", &format!("arith.andi {full_rows}, {full_cols} : i1"));
    let rows: Vec<String> = (0..mr).map(|i| w.add_const(&row0, i)).collect();
    let cols: Vec<String> = (0..r.vectors)
        .map(|v| w.add_const(&col0, v * lanes))
        .collect();

    // Accumulators start from zero in the first block over k (the helper
    // writes C = A B, so C needs no zero fill first) and from C in the
    // others: each sum continues in order.
    let init = w.fresh("init");
    let first = w.def("first", "arith.cmpi eq, %pc, %c0 : index");
    w.open(&format!("{init}:{tile} = scf.if {first} -> ({types})"));
    let zeros = vec!["%zv".to_string(); tile];
    w.line(&format!("scf.yield {} : {types}", list(&zeros)));
    w.otherwise();
    let loaded_c = w.fresh("cl");
    w.open(&format!("{loaded_c}:{tile} = scf.if {full} -> ({types})"));
    let mut loaded = Vec::new();
    for row in &rows {
        for col in &cols {
            let x = w.def(
                "x",
                &format!("vector.load %c[{row}, {col}] : {tc}, {vector}"),
            );
            loaded.push(x);
        }
    }
    w.line(&format!("scf.yield {} : {types}", list(&loaded)));
    w.otherwise();
    let lane_masks = masks(&mut w, &cols_left, r.vectors, lanes);
    let mut loaded = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let valid = row_valid(&mut w, &rows_left, i);
        for (col, mask) in cols.iter().zip(&lane_masks) {
            let x = w.fresh("x");
            w.open(&format!("{x} = scf.if {valid} -> ({vector})"));
            let y = w.def("x", &format!("vector.maskedload %c[{row}, {col}], {mask}, %zv : {tc}, vector<{lanes}xi1>, {vector} into {vector}"));
            w.line(&format!("scf.yield {y} : {vector}"));
            w.otherwise();
            w.line(&format!("scf.yield %zv : {vector}"));
            w.close("");
            loaded.push(x);
        }
    }
    w.line(&format!("scf.yield {} : {types}", list(&loaded)));
    w.close("");
    let from_c: Vec<String> = (0..tile).map(|t| format!("{loaded_c}#{t}")).collect();
    w.line(&format!("scf.yield {} : {types}", list(&from_c)));
    w.close("");

    // A's pairs for the bf16 micro-kernel.
    let a_source = if direct_a {
        // Rows past the matrix read its last row instead: their sums
        // are never stored.
        let last = w.index(gemm.m - 1);
        let rows = rows
            .iter()
            .map(|row| w.op("i", "minsi", row, &last))
            .collect();
        PairSource::Matrix {
            rows,
            ta: ta.clone(),
        }
    } else {
        PairSource::Packed {
            strip: a_strip.clone(),
            packed_a: packed_a.clone(),
        }
    };
    let sums = w.fresh("acc");
    let carried: Vec<String> = (0..tile).map(|t| format!("%s{t}")).collect();
    let iter_args: Vec<String> = carried
        .iter()
        .enumerate()
        .map(|(t, s)| format!("{s} = {init}#{t}"))
        .collect();
    if gemm.bf16_dot {
        let pairs = pair_count(&mut w, &kcur);
        w.open(&format!(
            "{sums}:{tile} = scf.for %q = %c0 to {pairs} step %c1 iter_args({}) -> ({types})",
            list(&iter_args)
        ));
    } else {
        w.open(&format!(
            "{sums}:{tile} = scf.for %p = %c0 to {kcur} step %c1 iter_args({}) -> ({types})",
            list(&iter_args)
        ));
    }
    let next = if gemm.bf16_dot {
        dot_steps(&mut w, gemm, &a_source, &b_strip, &carried, &packed_b)
    } else {
        fma_steps(
            &mut w, gemm, &a_strip, &b_strip, &carried, &packed_a, &packed_b,
        )
    };
    w.line(&format!("scf.yield {} : {types}", list(&next)));
    w.close("");

    let tile_at = TileAt {
        rows: &rows,
        cols: &cols,
        full: &full,
        rows_left: &rows_left,
        cols_left: &cols_left,
    };
    match gemm.rounds_to {
        None => store_tile(&mut w, gemm, &tile_at, &sums, ("%c", &tc), None),
        Some(out) => {
            // The last block over k writes the sums rounded to D; earlier
            // ones keep them in C for the next.
            let end = w.add(&kcur, "%pc");
            let last = w.def("last", &format!("arith.cmpi sge, {end}, {k_} : index"));
            w.open(&format!("scf.if {last}"));
            let td = rounded_type(gemm).unwrap_or_default();
            store_tile(&mut w, gemm, &tile_at, &sums, ("%d", &td), Some(out));
            w.otherwise();
            store_tile(&mut w, gemm, &tile_at, &sums, ("%c", &tc), None);
            w.close("");
        }
    }
    w.close("");
    w.close("");
    w.close("");
    w.close("");
    w.close("");

    let constants = w.constant_lines(2);
    let d = rounded_type(gemm).map_or(String::new(), |td| format!(", %d: {td}"));
    format!(
        "  func.func private @{}(%a: {ta}, %b: {tb}, %c: {tc}{d}) {{\n{constants}{}    return\n  }}\n",
        gemm.symbol(),
        w.body
    )
}

/// Where a micro-tile lies: its row and column indices (one per vector),
/// whether it is whole, and how many rows and columns of the block are
/// left from its corner.
struct TileAt<'t> {
    rows: &'t [String],
    cols: &'t [String],
    full: &'t str,
    rows_left: &'t str,
    cols_left: &'t str,
}

/// Stores the tile's accumulators `sums` into `dest` (a name and its
/// type), rounded to `round` if given; masked where the tile is not whole.
fn store_tile(
    w: &mut Writer,
    gemm: &Gemm,
    at: &TileAt,
    sums: &str,
    (dest, ty): (&str, &str),
    round: Option<DType>,
) {
    let r = gemm.register;
    let lanes = r.lanes;
    let acc = format!("vector<{lanes}x{}>", gemm.acc.name());
    let stored = format!("vector<{lanes}x{}>", round.unwrap_or(gemm.acc).name());
    let value = |w: &mut Writer, t: usize| match round {
        None => format!("{sums}#{t}"),
        Some(_) => w.def("r", &format!("arith.truncf {sums}#{t} : {acc} to {stored}")),
    };
    w.open(&format!("scf.if {}", at.full));
    for (i, row) in at.rows.iter().enumerate() {
        for (v, col) in at.cols.iter().enumerate() {
            let x = value(w, i * r.vectors + v);
            w.line(&format!(
                "vector.store {x}, {dest}[{row}, {col}] : {ty}, {stored}"
            ));
        }
    }
    w.otherwise();
    let lane_masks = masks(w, at.cols_left, r.vectors, lanes);
    for (i, row) in at.rows.iter().enumerate() {
        let valid = row_valid(w, at.rows_left, i);
        w.open(&format!("scf.if {valid}"));
        for (v, (col, mask)) in at.cols.iter().zip(&lane_masks).enumerate() {
            let x = value(w, i * r.vectors + v);
            w.line(&format!(
                "vector.maskedstore {dest}[{row}, {col}], {mask}, {x} : {ty}, vector<{lanes}xi1>, {stored}"
            ));
        }
        w.close("");
    }
    w.close("");
}

/// `x` of type `ty` (`from to to`) widened to the accumulation type, if
/// the element type is narrower.
fn widen(w: &mut Writer, gemm: &Gemm, x: &str, ty: &str) -> String {
    if gemm.element == gemm.acc {
        return x.to_string();
    }
    w.def("w", &format!("arith.extf {x} : {ty}"))
}

/// B[pc.., jc..] in the accumulation type, in strips of NR columns,
/// k-major: strip s holds kc rows of NR; columns past n read as zeros.
fn pack_b(w: &mut Writer, gemm: &Gemm, kcur: &str, ncur: &str, tb: &str, packed_b: &str) {
    let r = gemm.register;
    let (nr, lanes) = (r.cols(), r.lanes);
    let kc = gemm.effective_blocking().depth;
    let element = gemm.element.name();
    let vector = format!("vector<{lanes}x{}>", gemm.acc.name());
    let nr_ = w.index(nr);
    w.open(&format!("scf.for %jr = %c0 to {ncur} step {nr_}"));
    let strip = w.mul_const("%jr", kc);
    let col = w.add("%jc", "%jr");
    w.open(&format!("scf.for %p = %c0 to {kcur} step %c1"));
    let row = w.add("%pc", "%p");
    let p_nr = w.mul_const("%p", nr);
    let at = w.add(&strip, &p_nr);
    for v in 0..r.vectors {
        let c = w.add_const(&col, v * lanes);
        let x = w.def(
            "x",
            &format!("vector.transfer_read %b[{row}, {c}], %pad : {tb}, vector<{lanes}x{element}>"),
        );
        let x = widen(
            w,
            gemm,
            &x,
            &format!("vector<{lanes}x{element}> to {vector}"),
        );
        let o = w.add_const(&at, v * lanes);
        w.line(&format!(
            "vector.store {x}, %bp[{o}] : {packed_b}, {vector}"
        ));
    }
    w.close("");
    w.close("");
}

/// A[ic.., pc..] in the accumulation type, in strips of MR rows, k-major;
/// rows past the block are zeros (they belong to the next block or to no
/// row at all).
fn pack_a(w: &mut Writer, gemm: &Gemm, kcur: &str, mcur: &str, ta: &str, packed_a: &str) {
    let mr = gemm.register.rows;
    let kc = gemm.effective_blocking().depth;
    let (element, acc) = (gemm.element.name(), gemm.acc.name());
    let mr_ = w.index(mr);
    w.open(&format!("scf.for %ir = %c0 to {mcur} step {mr_}"));
    let strip = w.mul_const("%ir", kc);
    w.open(&format!("scf.for %i = %c0 to {mr_} step %c1"));
    let ri = w.add("%ir", "%i");
    let valid = w.def("v", &format!("arith.cmpi slt, {ri}, {mcur} : index"));
    let row = w.add("%ic", &ri);
    let base = w.add(&strip, "%i");
    w.open(&format!("scf.if {valid}"));
    w.open(&format!("scf.for %p = %c0 to {kcur} step %c1"));
    let k_at = w.add("%pc", "%p");
    let x = w.def("x", &format!("memref.load %a[{row}, {k_at}] : {ta}"));
    let x = widen(w, gemm, &x, &format!("{element} to {acc}"));
    let p_mr = w.mul_const("%p", mr);
    let o = w.add(&base, &p_mr);
    w.line(&format!("memref.store {x}, %ap[{o}] : {packed_a}"));
    w.close("");
    w.otherwise();
    w.open(&format!("scf.for %p = %c0 to {kcur} step %c1"));
    let p_mr = w.mul_const("%p", mr);
    let o = w.add(&base, &p_mr);
    w.line(&format!("memref.store %zero, %ap[{o}] : {packed_a}"));
    w.close("");
    w.close("");
    w.close("");
    w.close("");
}

/// Lane masks of the tile's column vectors: `cols_left - v * lanes` lanes
/// of vector `v` (`vector.create_mask` clamps to `0..=lanes`).
fn masks(w: &mut Writer, cols_left: &str, vectors: usize, lanes: usize) -> Vec<String> {
    (0..vectors)
        .map(|v| {
            let left = if v == 0 {
                cols_left.to_string()
            } else {
                let c = w.index(v * lanes);
                w.op("i", "subi", cols_left, &c)
            };
            let m = w.def(
                "mask",
                &format!("vector.create_mask {left} : vector<{lanes}xi1>"),
            );
            m
        })
        .collect()
}

/// Whether row `i` of the tile lies in the block.
fn row_valid(w: &mut Writer, rows_left: &str, i: usize) -> String {
    let c = w.index(i);
    let v = w.def("v", &format!("arith.cmpi slt, {c}, {rows_left} : index"));
    v
}

/// One k step of the micro-kernel: a row of B's strip (`vectors` loads)
/// times each of the MR elements of A's strip (broadcast), into the
/// accumulators `carried`; the new accumulators.
fn fma_steps(
    w: &mut Writer,
    gemm: &Gemm,
    a_strip: &str,
    b_strip: &str,
    carried: &[String],
    packed_a: &str,
    packed_b: &str,
) -> Vec<String> {
    let r = gemm.register;
    let (mr, nr, lanes) = (r.rows, r.cols(), r.lanes);
    let acc = gemm.acc.name();
    let vector = format!("vector<{lanes}x{acc}>");
    let p_nr = w.mul_const("%p", nr);
    let b_at = w.add(b_strip, &p_nr);
    let bs: Vec<String> = (0..r.vectors)
        .map(|v| {
            let o = w.add_const(&b_at, v * lanes);
            let x = w.def("b", &format!("vector.load %bp[{o}] : {packed_b}, {vector}"));
            x
        })
        .collect();
    let p_mr = w.mul_const("%p", mr);
    let a_at = w.add(a_strip, &p_mr);
    let mut next = Vec::new();
    for i in 0..mr {
        let o = w.add_const(&a_at, i);
        let s = w.def("a", &format!("memref.load %ap[{o}] : {packed_a}"));
        let sv = w.def("a", &format!("vector.broadcast {s} : {acc} to {vector}"));
        for (v, b) in bs.iter().enumerate() {
            let x = &carried[i * r.vectors + v];
            let y = w.fresh("y");
            match gemm.arithmetic {
                Arithmetic::Fused => {
                    w.line(&format!("{y} = vector.fma {sv}, {b}, {x} : {vector}"));
                }
                Arithmetic::Ordered => {
                    let t = w.def("t", &format!("arith.mulf {sv}, {b} : {vector}"));
                    w.line(&format!("{y} = arith.addf {x}, {t} : {vector}"));
                }
            }
            next.push(y);
        }
    }
    next
}

/// `ceil(kcur / 2)`: the k pairs of a block.
fn pair_count(w: &mut Writer, kcur: &str) -> String {
    let odd = w.add_const(kcur, 1);
    let two = w.index(2);
    w.op("i", "divui", &odd, &two)
}

/// Whether the bf16 micro-kernel broadcasts A's pairs straight from A:
/// in a row-major A each pair (a[i, 2q], a[i, 2q + 1]) is already one
/// 32-bit word, so packing A would only copy it (and costs as much as the
/// products when n is small, as in attention's context GEMM). With k odd
/// the last pair would read past the row, so A is packed then. Rows of
/// more than 2 KB are packed too: the tile's 14 rows, 4 KB or more apart,
/// would share one set of an 8-way L1 and evict each other (512 x 4096 x
/// 1024 ran 1.25x slower in place).
fn reads_a_directly(gemm: &Gemm) -> bool {
    gemm.bf16_dot && gemm.k.is_multiple_of(2) && gemm.k * gemm.element.size() <= 2048
}

/// Where the bf16 micro-kernel reads A's pairs.
enum PairSource {
    /// A packed by [`pack_a_pairs`]: this tile's strip of `%ap`.
    Packed { strip: String, packed_a: String },
    /// A itself (of type `ta`): the tile's row indices.
    Matrix { rows: Vec<String>, ta: String },
}

/// One pair step `%q` of the bf16 micro-kernel: each of the `vectors`
/// loads of B's strip holds `lanes` columns of rows 2q and 2q+1
/// interleaved; each row of A's strip broadcasts its pair (a 32-bit
/// element) to every lane; `vdpbf16ps` adds both products to each f32
/// lane.
fn dot_steps(
    w: &mut Writer,
    gemm: &Gemm,
    a_source: &PairSource,
    b_strip: &str,
    carried: &[String],
    packed_b: &str,
) -> Vec<String> {
    let r = gemm.register;
    let (mr, nr, lanes) = (r.rows, r.cols(), r.lanes);
    let pair_vector = format!("vector<{}xbf16>", 2 * lanes);
    let vector = format!("vector<{lanes}xf32>");
    let q_b = w.mul_const("%q", 2 * nr);
    let b_at = w.add(b_strip, &q_b);
    let bs: Vec<String> = (0..r.vectors)
        .map(|v| {
            let o = w.add_const(&b_at, 2 * v * lanes);
            let x = w.def(
                "b",
                &format!("vector.load %bp[{o}] : {packed_b}, {pair_vector}"),
            );
            x
        })
        .collect();
    let loads: Vec<String> = match a_source {
        PairSource::Packed { strip, packed_a } => {
            let q_a = w.mul_const("%q", 2 * mr);
            let a_at = w.add(strip, &q_a);
            (0..mr)
                .map(|i| {
                    let o = w.add_const(&a_at, 2 * i);
                    format!("%ap[{o}] : {packed_a}")
                })
                .collect()
        }
        PairSource::Matrix { rows, ta } => {
            let two_q = w.mul_const("%q", 2);
            let k_at = w.add("%pc", &two_q);
            rows.iter()
                .map(|row| format!("%a[{row}, {k_at}] : {ta}"))
                .collect()
        }
    };
    let mut next = Vec::new();
    for (i, at) in loads.iter().enumerate() {
        let pair = w.def("a", &format!("vector.load {at}, vector<2xbf16>"));
        let word = w.def(
            "a",
            &format!("vector.bitcast {pair} : vector<2xbf16> to vector<1xi32>"),
        );
        let scalar = w.def(
            "a",
            &format!("vector.extract {word}[0] : i32 from vector<1xi32>"),
        );
        let splat = w.def(
            "a",
            &format!("vector.broadcast {scalar} : i32 to vector<{lanes}xi32>"),
        );
        let pairs = w.def(
            "a",
            &format!("vector.bitcast {splat} : vector<{lanes}xi32> to {pair_vector}"),
        );
        for (v, b) in bs.iter().enumerate() {
            let x = &carried[i * r.vectors + v];
            let y = w.def("y", &format!("func.call @{BF16_DOT}({x}, {pairs}, {b}) : ({vector}, {pair_vector}, {pair_vector}) -> {vector}"));
            next.push(y);
        }
    }
    next
}

/// B[pc.., jc..] as bf16 pairs: strip s holds, for each pair q of its kc
/// rows, NR columns of (row 2q, row 2q+1); a row past the block is zeros.
fn pack_b_pairs(w: &mut Writer, gemm: &Gemm, kcur: &str, ncur: &str, tb: &str, packed_b: &str) {
    let r = gemm.register;
    let (nr, lanes) = (r.cols(), r.lanes);
    let kc = gemm.effective_blocking().depth;
    let nr_ = w.index(nr);
    let half = format!("vector<{lanes}xbf16>");
    let pairs = pair_count(w, kcur);
    w.open(&format!("scf.for %jr = %c0 to {ncur} step {nr_}"));
    let strip = w.mul_const("%jr", kc);
    let col = w.add("%jc", "%jr");
    w.open(&format!("scf.for %q = %c0 to {pairs} step %c1"));
    let two_q = w.mul_const("%q", 2);
    let row0 = w.add("%pc", &two_q);
    let row1 = w.add_const(&row0, 1);
    let second = w.add_const(&two_q, 1);
    let valid = w.def("v", &format!("arith.cmpi slt, {second}, {kcur} : index"));
    let q_b = w.mul_const("%q", 2 * nr);
    let at = w.add(&strip, &q_b);
    let interleave: Vec<String> = (0..lanes)
        .flat_map(|j| [j.to_string(), (j + lanes).to_string()])
        .collect();
    for v in 0..r.vectors {
        let c = w.add_const(&col, v * lanes);
        let x0 = w.def(
            "x",
            &format!("vector.transfer_read %b[{row0}, {c}], %pad : {tb}, {half}"),
        );
        let x1 = w.fresh("x");
        w.open(&format!("{x1} = scf.if {valid} -> ({half})"));
        let y = w.def(
            "x",
            &format!("vector.transfer_read %b[{row1}, {c}], %pad : {tb}, {half}"),
        );
        w.line(&format!("scf.yield {y} : {half}"));
        w.otherwise();
        let z = w.def("x", &format!("arith.constant dense<0.0> : {half}"));
        w.line(&format!("scf.yield {z} : {half}"));
        w.close("");
        let both = w.fresh("x");
        w.line(&format!(
            "{both} = vector.shuffle {x0}, {x1} [{}] : {half}, {half}",
            interleave.join(", ")
        ));
        let o = w.add_const(&at, 2 * v * lanes);
        w.line(&format!(
            "vector.store {both}, %bp[{o}] : {packed_b}, vector<{}xbf16>",
            2 * lanes
        ));
    }
    w.close("");
    w.close("");
}

/// A[ic.., pc..] as bf16 pairs: strip s holds, for each pair q, MR rows of
/// (a[row, 2q], a[row, 2q+1]), each pair one 2-element load; rows past
/// the block are zeros, and so is the k past the matrix in an odd last
/// block (the load's padding: only the matrix's last block can be odd).
fn pack_a_pairs(w: &mut Writer, gemm: &Gemm, kcur: &str, mcur: &str, ta: &str, packed_a: &str) {
    let mr = gemm.register.rows;
    let kc = gemm.effective_blocking().depth;
    let mr_ = w.index(mr);
    let pairs = pair_count(w, kcur);
    w.open(&format!("scf.for %ir = %c0 to {mcur} step {mr_}"));
    let strip = w.mul_const("%ir", kc);
    w.open(&format!("scf.for %i = %c0 to {mr_} step %c1"));
    let ri = w.add("%ir", "%i");
    let row_valid = w.def("v", &format!("arith.cmpi slt, {ri}, {mcur} : index"));
    let row = w.add("%ic", &ri);
    let two_i = w.mul_const("%i", 2);
    let base = w.add(&strip, &two_i);
    w.open(&format!("scf.if {row_valid}"));
    w.open(&format!("scf.for %q = %c0 to {pairs} step %c1"));
    let two_q = w.mul_const("%q", 2);
    let k_at = w.add("%pc", &two_q);
    let x = w.def(
        "x",
        &format!("vector.transfer_read %a[{row}, {k_at}], %pad : {ta}, vector<2xbf16>"),
    );
    let q_a = w.mul_const("%q", 2 * mr);
    let o = w.add(&base, &q_a);
    w.line(&format!(
        "vector.store {x}, %ap[{o}] : {packed_a}, vector<2xbf16>"
    ));
    w.close("");
    w.otherwise();
    w.open(&format!("scf.for %q = %c0 to {pairs} step %c1"));
    let zero = w.def("z", "arith.constant dense<0.0> : vector<2xbf16>");
    let q_a = w.mul_const("%q", 2 * mr);
    let o = w.add(&base, &q_a);
    w.line(&format!(
        "vector.store {zero}, %ap[{o}] : {packed_a}, vector<2xbf16>"
    ));
    w.close("");
    w.close("");
    w.close("");
    w.close("");
}
