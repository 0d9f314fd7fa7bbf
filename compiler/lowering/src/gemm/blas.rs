//! The library route (`--gemm library`): a GEMM helper that calls the
//! system's CBLAS, `cblas_sgemm` or `cblas_dgemm` (Debian's OpenBLAS,
//! linked into `kernels.so`), on the operands' memory in place. The helper
//! has the generated helpers' signature (any row-major view of A, B and C),
//! so the kernel emitter marks and `calls::outline` replaces a matmul the
//! same way whichever route computes it.
//!
//! Each call first sets OpenBLAS to one thread: a rank is one thread, as
//! the generated GEMMs are, and OpenBLAS would otherwise start one per core
//! in every rank.

use coco_bundle::DType;

use super::{text::parameter_types, Gemm};

/// The library the helpers call, for the linker (`-lopenblas`).
pub const LIBRARY: &str = "openblas";

/// OpenBLAS's thread count setter, which every helper calls: a module that
/// declares it links [`LIBRARY`].
pub const THREADS: &str = "openblas_set_num_threads";

/// Whether the library route computes GEMMs of `element`.
pub fn supports(element: DType) -> bool {
    matches!(element, DType::F32 | DType::F64)
}

/// The helper's symbol: the shape and type (nothing else changes its
/// text).
pub fn symbol(gemm: &Gemm) -> String {
    let batch = gemm.batch.map_or(String::new(), |t| format!("{t}x"));
    format!(
        "coco_blas_{batch}{}x{}x{}_{}",
        gemm.m,
        gemm.n,
        gemm.k,
        gemm.element.name()
    )
}

/// The CBLAS routine for `element` and its scalar type.
fn routine(element: DType) -> (&'static str, &'static str) {
    match element {
        DType::F64 => ("cblas_dgemm", "f64"),
        _ => ("cblas_sgemm", "f32"),
    }
}

/// The declarations the helper calls and the 2-D helper, as `(symbol,
/// text)`.
pub fn helper_text(gemm: &Gemm) -> Vec<(String, String)> {
    let (name, scalar) = routine(gemm.element);
    let declaration = format!(
        "  func.func private @{name}(i32, i32, i32, i32, i32, i32, {scalar}, !llvm.ptr, i32, !llvm.ptr, i32, {scalar}, !llvm.ptr, i32)\n"
    );
    let threads = format!("  func.func private @{THREADS}(i32)\n");
    vec![
        (name.to_string(), declaration),
        (THREADS.to_string(), threads),
        (symbol(gemm), two_dimensional(gemm)),
    ]
}

/// The largest dimension and leading dimension a CBLAS call takes: its
/// integers are C `int`s, and Debian's OpenBLAS has no 64-bit interface.
pub const MAX_BLAS_DIM: usize = i32::MAX as usize;

/// The block of a dimension of `size`: all of it if one call can take it,
/// and at least 1 (it is an `scf.for` step).
fn block(size: usize) -> usize {
    size.clamp(1, MAX_BLAS_DIM)
}

/// `C = A B` by CBLAS calls: row-major, no transposes, alpha 1, each
/// matrix's address and leading dimension read from its view. One call
/// when every dimension fits a C `int` ([`MAX_BLAS_DIM`]); otherwise
/// blocks of at most that many rows, columns and depth, those over k
/// accumulated into C (beta 0 for the first, 1 after). A leading dimension
/// past the limit (a view into a wider matrix) is not narrowed either:
/// that matrix is then taken one row per call (rows of A and C, depth of
/// B), where CBLAS never steps by it, and the call gets the block's width
/// instead. With k = 0 the one call writes C = 0, as `linalg.matmul` does.
fn two_dimensional(gemm: &Gemm) -> String {
    let [ta, tb, tc] = parameter_types(gemm);
    let (name, scalar) = routine(gemm.element);
    let bytes = gemm.element.size();
    let mut metadata = String::new();
    for (operand, ty) in [("a", &ta), ("b", &tb), ("c", &tc)] {
        metadata.push_str(&format!(
            "    %{operand}_base, %{operand}_offset, %{operand}_sizes:2, %{operand}_strides:2 = memref.extract_strided_metadata %{operand} : {ty} -> memref<{scalar}>, index, index, index, index, index\n\
             \x20   %{operand}_aligned = memref.extract_aligned_pointer_as_index %{operand} : {ty} -> index\n\
             \x20   %{operand}_bytes = arith.muli %{operand}_offset, %bytes : index\n\
             \x20   %{operand}_address = arith.addi %{operand}_aligned, %{operand}_bytes : index\n\
             \x20   %{operand}_wide = arith.cmpi ugt, %{operand}_strides#0, %limit : index\n"
        ));
    }
    // Per call: the block's first element of each matrix (its row, its
    // column), and the leading dimension the call gets (`width` when the
    // view's is too wide).
    let mut operands = String::new();
    for (operand, row, col, width) in [
        ("a", "%i", "%p", "%k_cur"),
        ("b", "%p", "%j", "%n_cur"),
        ("c", "%i", "%j", "%n_cur"),
    ] {
        operands.push_str(&format!(
            "          %{operand}_row = arith.muli {row}, %{operand}_strides#0 : index\n\
             \x20         %{operand}_at = arith.addi %{operand}_row, {col} : index\n\
             \x20         %{operand}_at_bytes = arith.muli %{operand}_at, %bytes : index\n\
             \x20         %{operand}_here = arith.addi %{operand}_address, %{operand}_at_bytes : index\n\
             \x20         %{operand}_i64 = arith.index_cast %{operand}_here : index to i64\n\
             \x20         %{operand}_ptr = llvm.inttoptr %{operand}_i64 : i64 to !llvm.ptr\n\
             \x20         %{operand}_width = arith.maxui {width}, %c1 : index\n\
             \x20         %{operand}_ld_index = arith.select %{operand}_wide, %{operand}_width, %{operand}_strides#0 : index\n\
             \x20         %{operand}_ld = arith.index_cast %{operand}_ld_index : index to i32\n"
        ));
    }
    format!(
        "  func.func private @{sym}(%a: {ta}, %b: {tb}, %c: {tc}) {{\n\
         \x20   %bytes = arith.constant {bytes} : index\n\
         \x20   %c0 = arith.constant 0 : index\n\
         \x20   %c1 = arith.constant 1 : index\n\
         \x20   %limit = arith.constant {MAX_BLAS_DIM} : index\n\
         \x20   %m = arith.constant {m} : index\n\
         \x20   %n = arith.constant {n} : index\n\
         \x20   %k = arith.constant {k} : index\n\
         \x20   %k_end = arith.constant {k_end} : index\n\
         \x20   %m_block = arith.constant {m_block} : index\n\
         \x20   %n_block = arith.constant {n_block} : index\n\
         \x20   %k_block = arith.constant {k_block} : index\n\
         \x20   %one_thread = arith.constant 1 : i32\n\
         \x20   %row_major = arith.constant 101 : i32\n\
         \x20   %no_trans = arith.constant 111 : i32\n\
         \x20   %alpha = arith.constant 1.0 : {scalar}\n\
         \x20   %beta_first = arith.constant 0.0 : {scalar}\n\
         \x20   %beta_after = arith.constant 1.0 : {scalar}\n\
         {metadata}\
         \x20   %rows_wide = arith.ori %a_wide, %c_wide : i1\n\
         \x20   %m_step = arith.select %rows_wide, %c1, %m_block : index\n\
         \x20   %k_step = arith.select %b_wide, %c1, %k_block : index\n\
         \x20   func.call @{THREADS}(%one_thread) : (i32) -> ()\n\
         \x20   scf.for %i = %c0 to %m step %m_step {{\n\
         \x20     %m_left = arith.subi %m, %i : index\n\
         \x20     %m_cur = arith.minui %m_step, %m_left : index\n\
         \x20     %m_arg = arith.index_cast %m_cur : index to i32\n\
         \x20     scf.for %j = %c0 to %n step %n_block {{\n\
         \x20       %n_left = arith.subi %n, %j : index\n\
         \x20       %n_cur = arith.minui %n_block, %n_left : index\n\
         \x20       %n_arg = arith.index_cast %n_cur : index to i32\n\
         \x20       scf.for %p = %c0 to %k_end step %k_step {{\n\
         \x20         %k_left = arith.subi %k, %p : index\n\
         \x20         %k_cur = arith.minui %k_step, %k_left : index\n\
         \x20         %k_arg = arith.index_cast %k_cur : index to i32\n\
         \x20         %first = arith.cmpi eq, %p, %c0 : index\n\
         \x20         %beta = arith.select %first, %beta_first, %beta_after : {scalar}\n\
         {operands}\
         \x20         func.call @{name}(%row_major, %no_trans, %no_trans, %m_arg, %n_arg, %k_arg, %alpha, %a_ptr, %a_ld, %b_ptr, %b_ld, %beta, %c_ptr, %c_ld) : (i32, i32, i32, i32, i32, i32, {scalar}, !llvm.ptr, i32, !llvm.ptr, i32, {scalar}, !llvm.ptr, i32) -> ()\n\
         \x20       }}\n\
         \x20     }}\n\
         \x20   }}\n\
         \x20   return\n\
         \x20 }}\n",
        sym = symbol(gemm),
        m = gemm.m,
        n = gemm.n,
        k = gemm.k,
        k_end = gemm.k.max(1),
        m_block = block(gemm.m),
        n_block = block(gemm.n),
        k_block = block(gemm.k),
    )
}
