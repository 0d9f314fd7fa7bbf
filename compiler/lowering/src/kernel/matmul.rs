//! Matmuls: `coco.matmul` becomes `linalg.matmul` (2-D) or
//! `linalg.batch_matmul` (3-D) into a zero-`linalg.fill`ed tensor of the
//! accumulation type; for 16-bit floats a parallel `linalg.generic` then
//! rounds the f32 sums to the element type. [`matmul_chunk`] is the same
//! product on one row chunk of an overlap region, as its own kernel.

use std::fmt::Write as _;

use coco_bundle::{BufferType, DType};
use coco_dialects::coco::ops;
use melior::ir::Operation;

use super::{
    identity_map, parallel,
    types::{convert, memref_type, tensor_type, KernelType},
    Binding, Computed, Emitter, KernelText,
};
use crate::{error::Result, partition::MatmulChunk};

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    pub(super) fn matmul(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let (shape, element) = (&out.shape, out.element);
        let a = self.operand(op, 0, &out.location)?;
        let b = self.operand(op, 1, &out.location)?;
        let acc = element.accumulator();
        let named = if shape.len() == 3 {
            "linalg.batch_matmul"
        } else {
            "linalg.matmul"
        };
        let f = self.filled(shape, acc, acc.zero());
        let m = if acc == element {
            out.name.clone()
        } else {
            self.fresh("m")
        };
        self.line(&format!(
            "{m} = {named} ins({}, {} : {}, {}) outs({f} : {}) -> {}",
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
                narrowing(&m, &e, shape, acc, element)
            ));
        }
        Ok(())
    }
}

/// The kernel of one row chunk of an overlap region's matmul:
/// `rows x k` by `k x n`, accumulated as `coco.matmul` is.
pub fn matmul_chunk(chunk: &MatmulChunk, binding: &Binding) -> KernelText {
    let (rows, k, n, element) = (chunk.rows, chunk.k, chunk.n, chunk.element);
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
    let mut body = format!(
        "    %lhs = bufferization.to_tensor %p0 restrict : {a}\n    %rhs = bufferization.to_tensor %p1 restrict : {b}\n    %zero = arith.constant {zero} : {acc}\n    %e = tensor.empty() : {tacc}\n    %f = linalg.fill ins(%zero : {acc}) outs(%e : {tacc}) -> {tacc}\n    %m = linalg.matmul ins(%lhs, %rhs : {ta}, {tb}) outs(%f : {tacc}) -> {tacc}\n"
    );
    let result = if acc == element {
        "%m".to_string()
    } else {
        let _ = writeln!(
            body,
            "    %d = bufferization.to_tensor %p2 restrict writable : {out}\n    %r = {}",
            narrowing("%m", "%d", &[rows, n], acc, element)
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
    }
}

/// A `linalg.generic` (without its result name) rounding `input`, a
/// `shape` tensor of `acc`, to `element` into `outs`: how matmuls finish.
fn narrowing(input: &str, outs: &str, shape: &[usize], acc: DType, element: DType) -> String {
    let rank = shape.len();
    let (round, r) = convert(acc, element, "%a", "%r");
    format!(
        "linalg.generic {{indexing_maps = [{id}, {id}], iterator_types = {}}} ins({input} : {}) outs({outs} : {}) {{\n    ^bb0(%a: {acc}, %b: {element}):\n{round}      linalg.yield {r} : {element}\n    }} -> {}",
        parallel(rank),
        tensor_type(shape, acc),
        tensor_type(shape, element),
        tensor_type(shape, element),
        id = identity_map(rank),
    )
}
