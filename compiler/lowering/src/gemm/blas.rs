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

/// `C = A B` by one CBLAS call: row-major, no transposes, alpha 1, beta 0,
/// each matrix's address and leading dimension read from its view.
fn two_dimensional(gemm: &Gemm) -> String {
    let [ta, tb, tc] = parameter_types(gemm);
    let (name, scalar) = routine(gemm.element);
    let bytes = gemm.element.size();
    let mut body = String::new();
    for (operand, ty) in [("a", &ta), ("b", &tb), ("c", &tc)] {
        body.push_str(&format!(
            "    %{operand}_base, %{operand}_offset, %{operand}_sizes:2, %{operand}_strides:2 = memref.extract_strided_metadata %{operand} : {ty} -> memref<{scalar}>, index, index, index, index, index\n\
             \x20   %{operand}_aligned = memref.extract_aligned_pointer_as_index %{operand} : {ty} -> index\n\
             \x20   %{operand}_bytes = arith.muli %{operand}_offset, %bytes : index\n\
             \x20   %{operand}_address = arith.addi %{operand}_aligned, %{operand}_bytes : index\n\
             \x20   %{operand}_i64 = arith.index_cast %{operand}_address : index to i64\n\
             \x20   %{operand}_ptr = llvm.inttoptr %{operand}_i64 : i64 to !llvm.ptr\n\
             \x20   %{operand}_ld = arith.index_cast %{operand}_strides#0 : index to i32\n"
        ));
    }
    format!(
        "  func.func private @{sym}(%a: {ta}, %b: {tb}, %c: {tc}) {{\n\
         \x20   %bytes = arith.constant {bytes} : index\n\
         \x20   %one_thread = arith.constant 1 : i32\n\
         \x20   %row_major = arith.constant 101 : i32\n\
         \x20   %no_trans = arith.constant 111 : i32\n\
         \x20   %m = arith.constant {m} : i32\n\
         \x20   %n = arith.constant {n} : i32\n\
         \x20   %k = arith.constant {k} : i32\n\
         \x20   %alpha = arith.constant 1.0 : {scalar}\n\
         \x20   %beta = arith.constant 0.0 : {scalar}\n\
         {body}\
         \x20   func.call @{THREADS}(%one_thread) : (i32) -> ()\n\
         \x20   func.call @{name}(%row_major, %no_trans, %no_trans, %m, %n, %k, %alpha, %a_ptr, %a_ld, %b_ptr, %b_ld, %beta, %c_ptr, %c_ld) : (i32, i32, i32, i32, i32, i32, {scalar}, !llvm.ptr, i32, !llvm.ptr, i32, {scalar}, !llvm.ptr, i32) -> ()\n\
         \x20   return\n\
         \x20 }}\n",
        sym = symbol(gemm),
        m = gemm.m,
        n = gemm.n,
        k = gemm.k,
    )
}
