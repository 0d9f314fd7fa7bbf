//! Matmuls: `coco.matmul` becomes `linalg.matmul` (2-D) or
//! `linalg.batch_matmul` (3-D) into a zero-`linalg.fill`ed tensor of the
//! accumulation type; for 16-bit floats a parallel `linalg.generic` then
//! rounds the f32 sums to the element type. [`matmul_chunk`] is the same
//! product on one row chunk of an overlap region, as its own kernel.
//!
//! On the CPU a float matmul also names its GEMM helper
//! (`{coco.gemm = @coco_gemm_...}`, see `crate::gemm`), blocked as the op's
//! `coco.tile` says, which replaces it after bufferization.

use std::fmt::Write as _;

use coco_bundle::{BufferType, DType};
use coco_dialects::{
    coco::{ops, verify::TILE_ATTR},
    ir::i64_array_attr,
};
use melior::ir::Operation;

use super::{
    identity_map, key, parallel,
    types::{convert, memref_type, tensor_type, KernelType},
    Binding, Computed, Emitter, KernelText, Target, Tensor,
};
use crate::{
    error::Result,
    gemm::{
        self,
        gpu::{GpuGemm, GpuTile, Operands},
        tuned::Tuning,
        Blocking, Gemm, RegisterTile, DEFAULT_BLOCKING, GEMM_ATTR, ROUNDING_ATTR,
    },
    partition::MatmulChunk,
};

/// The helper of a float `[batch x] m x k` by `k x n` product on `target`,
/// blocked by `tile` (`coco.tile`: rows, cols and optionally depth), if
/// the target generates GEMMs.
fn helper(
    target: Target,
    batch: Option<usize>,
    (m, n, k): (usize, usize, usize),
    element: DType,
    tile: Option<&[i64]>,
    tuning: Tuning,
) -> Option<Gemm> {
    let cpu = target.gemm()?;
    if !Gemm::supports(element) || cpu.gpu_tiles {
        return None;
    }
    let library = cpu.library && gemm::blas::supports(element);
    let size = |i: usize, default: usize| {
        tile.and_then(|t| t.get(i))
            .and_then(|&v| usize::try_from(v).ok())
            .filter(|&v| v > 0)
            .unwrap_or(default)
    };
    let acc = element.accumulator();
    let bf16_dot = !library
        && cpu.bf16_dot
        && element == DType::BF16
        && cpu.arithmetic == gemm::Arithmetic::Fused
        && cpu.vector_bits >= 512;
    // Without a tile: the blocking measured for this GEMM on this CPU,
    // else the defaults.
    let measured = tile
        .is_none()
        .then(|| tuning.blocking((m, n, k), element, cpu.arithmetic))
        .flatten();
    let default = measured.unwrap_or(Blocking {
        depth: if bf16_dot {
            gemm::BF16_DOT_DEPTH
        } else {
            DEFAULT_BLOCKING.depth
        },
        ..DEFAULT_BLOCKING
    });
    Some(Gemm {
        batch,
        m,
        n,
        k,
        element,
        acc,
        blocking: Blocking {
            rows: size(0, default.rows),
            cols: size(1, default.cols),
            depth: size(2, default.depth),
        },
        register: RegisterTile::for_host(cpu.vector_bits, acc),
        arithmetic: cpu.arithmetic,
        bf16_dot,
        rounds_to: (acc != element).then_some(element),
        library,
    })
}

/// ` {coco.gemm = @symbol}` for `gemm`, with its helpers added to `helpers`
/// and it to `gemms`.
fn mark(gemm: Option<Gemm>, helpers: &mut Vec<(String, String)>, gemms: &mut Vec<Gemm>) -> String {
    let Some(gemm) = gemm else {
        return String::new();
    };
    gemms.push(gemm);
    for helper in gemm::helper_text(&gemm) {
        if !helpers.iter().any(|(s, _)| *s == helper.0) {
            helpers.push(helper);
        }
    }
    format!(" {{{GEMM_ATTR} = @{}}}", gemm.symbol())
}

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    pub(super) fn matmul(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let (shape, element) = (&out.shape, out.element);
        let a = self.operand(op, 0, &out.location)?;
        let b = self.operand(op, 1, &out.location)?;
        let acc = element.accumulator();
        let rank = shape.len();
        if let Some(gemm) = gpu_gemm(
            self.target,
            (rank == 3).then(|| shape[0]),
            (shape[rank - 2], shape[rank - 1], a.shape[rank - 1]),
            element,
            i64_array_attr(op, TILE_ATTR).as_deref(),
        ) {
            return self.tiled_matmul(&gemm, (&a, &b), out);
        }
        let named = if shape.len() == 3 {
            "linalg.batch_matmul"
        } else {
            "linalg.matmul"
        };
        let m = if acc == element {
            out.name.clone()
        } else {
            self.fresh("m")
        };
        let gemm = helper(
            self.target,
            (rank == 3).then(|| shape[0]),
            (shape[rank - 2], shape[rank - 1], a.shape[rank - 1]),
            element,
            i64_array_attr(op, TILE_ATTR).as_deref(),
            self.tuning,
        );
        // A helper writes C = A B; linalg.matmul's loops accumulate into
        // a zero fill.
        let f = if gemm.is_some() {
            self.empty(shape, acc)
        } else {
            self.filled(shape, acc, acc.zero())
        };
        let helper = gemm.is_some();
        let attr = mark(gemm, &mut self.helpers, &mut self.gemms);
        self.line(&format!(
            "{m} = {named}{attr} ins({}, {} : {}, {}) outs({f} : {}) -> {}",
            a.name,
            b.name,
            a.ty(),
            b.ty(),
            tensor_type(shape, acc),
            tensor_type(shape, acc)
        ));
        if acc != element {
            let e = self.empty(shape, element);
            self.line(&format!(
                "{} = {}",
                out.name,
                narrowing(&m, &e, shape, (acc, element), helper)
            ));
        }
        Ok(())
    }
}

/// The GPU's tiled kernel of a float `[batch x] m x k` by `k x n`
/// product on `target` (or its emulation on a CPU), tiled by `tile`, if
/// the target uses them (`crate::gemm::gpu`).
fn gpu_gemm(
    target: Target,
    batch: Option<usize>,
    (m, n, k): (usize, usize, usize),
    element: DType,
    tile: Option<&[i64]>,
) -> Option<GpuGemm> {
    let arithmetic = target.gpu_gemm()?;
    if !Gemm::supports(element) || m == 0 || n == 0 || k == 0 {
        return None;
    }
    Some(GpuGemm {
        batch,
        m,
        n,
        k,
        element,
        acc: element.accumulator(),
        tile: GpuTile::from_coco_tile(tile),
        arithmetic,
    })
}

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    /// `out = a b` by `gemm`'s tiled kernel: a `gpu.launch` on the GPU,
    /// loops on the CPU, reading the operands' buffers and writing the
    /// output's (or a temporary's) in place.
    fn tiled_matmul(
        &mut self,
        gemm: &GpuGemm,
        (a, b): (&Tensor, &Tensor),
        out: &Computed<'c, 'a>,
    ) -> Result<()> {
        let [ta, tb, tc] = gemm.memref_types();
        let am = self.fresh("a");
        self.line(&format!(
            "{am} = bufferization.to_memref {} read_only : {ta}",
            a.name
        ));
        let bm = self.fresh("b");
        self.line(&format!(
            "{bm} = bufferization.to_memref {} read_only : {tb}",
            b.name
        ));
        let (cm, in_place) = match self.destinations.remove(&key(out.value)) {
            Some((param, memref)) if memref == tc => (param, true),
            other => {
                if let Some(destination) = other {
                    self.destinations.insert(key(out.value), destination);
                }
                let m = self.fresh("c");
                self.line(&format!("{m} = memref.alloc() : {tc}"));
                (m, false)
            }
        };
        let prefix = format!("{}_", self.fresh("gemm").trim_start_matches('%'));
        let operands = Operands {
            a: &am,
            b: &bm,
            c: &cm,
        };
        let text = if self.target.is_gpu() {
            gemm.launch(&prefix, &operands)
        } else {
            gemm.emulation(&prefix, &operands)
        };
        self.body.push_str(&text);
        self.line(&format!(
            "{} = bufferization.to_tensor {cm} restrict : {tc}",
            out.name
        ));
        if in_place {
            self.written.insert(key(out.value));
        }
        Ok(())
    }
}

/// The kernel of one row chunk of an overlap region's matmul:
/// `rows x k` by `k x n`, accumulated as `coco.matmul` is.
pub fn matmul_chunk(
    chunk: &MatmulChunk,
    binding: &Binding,
    target: Target,
    tuning: Tuning,
) -> KernelText {
    let (rows, k, n, element) = (chunk.rows, chunk.k, chunk.n, chunk.element);
    if let Some(gemm) = gpu_gemm(target, None, (rows, n, k), element, chunk.tile.as_deref()) {
        return tiled_chunk(chunk, binding, &gemm, target);
    }
    let (mut helpers, mut gemms) = (Vec::new(), Vec::new());
    let gemm = helper(
        target,
        None,
        (rows, n, k),
        element,
        chunk.tile.as_deref(),
        tuning,
    );
    let writes_c = gemm.is_some();
    let attr = mark(gemm, &mut helpers, &mut gemms);
    let acc = element.accumulator();
    let noalias = |i: usize| {
        if binding.noalias.get(i).copied().unwrap_or(false) {
            " {llvm.noalias}"
        } else {
            ""
        }
    };
    let a = memref_type(&[rows, k], element);
    let b = memref_type(&[k, n], element);
    let out = memref_type(&[rows, n], element);
    let (ta, tb, tacc, tout) = (
        tensor_type(&[rows, k], element),
        tensor_type(&[k, n], element),
        tensor_type(&[rows, n], acc),
        tensor_type(&[rows, n], element),
    );
    let zero = acc.zero();
    // As in `matmul`: a helper writes C, loops accumulate into a zero fill.
    let (fill, init) = if writes_c {
        (String::new(), "%e")
    } else {
        (
            format!("    %zero = arith.constant {zero} : {acc}\n    %f = linalg.fill ins(%zero : {acc}) outs(%e : {tacc}) -> {tacc}\n"),
            "%f",
        )
    };
    let mut body = format!(
        "    %lhs = bufferization.to_tensor %p0 restrict : {a}\n    %rhs = bufferization.to_tensor %p1 restrict : {b}\n    %e = tensor.empty() : {tacc}\n{fill}    %m = linalg.matmul{attr} ins(%lhs, %rhs : {ta}, {tb}) outs({init} : {tacc}) -> {tacc}\n"
    );
    let result = if acc == element {
        "%m".to_string()
    } else {
        let _ = writeln!(
            body,
            "    %d = bufferization.to_tensor %p2 restrict writable : {out}\n    %r = {}",
            narrowing("%m", "%d", &[rows, n], (acc, element), writes_c)
        );
        "%r".to_string()
    };
    let _ = writeln!(
        body,
        "    bufferization.materialize_in_destination {result} in restrict writable %p2 : ({tout}, {out}) -> ()"
    );
    let text = format!(
        "  func.func @{}(%p0: {a}{}, %p1: {b}{}, %p2: {out}{}, %rank: index) {{\n{body}    return\n  }}\n",
        chunk.name,
        noalias(0),
        noalias(1),
        noalias(2)
    );
    KernelText {
        name: chunk.name.clone(),
        text,
        buffers: [[rows, k], [k, n], [rows, n]]
            .map(|shape| BufferType {
                dtype: element,
                shape: shape.to_vec(),
            })
            .to_vec(),
        computes: vec![format!("{} (rows {}..)", ops::MATMUL, rows)],
        helpers,
        gemms,
    }
}

/// [`matmul_chunk`] by the tiled kernel `gemm` (a `gpu.launch` on the
/// GPU, loops on the CPU), on the parameters.
fn tiled_chunk(
    chunk: &MatmulChunk,
    binding: &Binding,
    gemm: &GpuGemm,
    target: Target,
) -> KernelText {
    let [ta, tb, tc] = gemm.memref_types();
    let noalias = |i: usize| {
        if binding.noalias.get(i).copied().unwrap_or(false) {
            " {llvm.noalias}"
        } else {
            ""
        }
    };
    let operands = Operands {
        a: "%p0",
        b: "%p1",
        c: "%p2",
    };
    let body = if target.is_gpu() {
        gemm.launch("gemm_", &operands)
    } else {
        gemm.emulation("gemm_", &operands)
    };
    KernelText {
        name: chunk.name.clone(),
        text: format!(
            "  func.func @{}(%p0: {ta}{}, %p1: {tb}{}, %p2: {tc}{}, %rank: index) {{\n{body}    return\n  }}\n",
            chunk.name,
            noalias(0),
            noalias(1),
            noalias(2)
        ),
        buffers: [[gemm.m, gemm.k], [gemm.k, gemm.n], [gemm.m, gemm.n]]
            .map(|shape| BufferType {
                dtype: gemm.element,
                shape: shape.to_vec(),
            })
            .to_vec(),
        computes: vec![format!("{} (rows {}..)", ops::MATMUL, gemm.m)],
        helpers: Vec::new(),
        gemms: Vec::new(),
    }
}

/// A `linalg.generic` (without its result name) rounding `input`, a
/// `shape` tensor of `acc`, to `element` into `outs`: how matmuls finish.
/// With `helper`, the op carries [`ROUNDING_ATTR`]: the helper then
/// rounds as it writes, and this op goes.
fn narrowing(
    input: &str,
    outs: &str,
    shape: &[usize],
    (acc, element): (DType, DType),
    helper: bool,
) -> String {
    let rank = shape.len();
    let (round, r) = convert(acc, element, "%a", "%r");
    let attr = if helper {
        format!(", {ROUNDING_ATTR}")
    } else {
        String::new()
    };
    format!(
        "linalg.generic {{indexing_maps = [{id}, {id}], iterator_types = {}{attr}}} ins({input} : {}) outs({outs} : {}) {{\n    ^bb0(%a: {acc}, %b: {element}):\n{round}      linalg.yield {r} : {element}\n    }} -> {}",
        parallel(rank),
        tensor_type(shape, acc),
        tensor_type(shape, element),
        tensor_type(shape, element),
        id = identity_map(rank),
    )
}
