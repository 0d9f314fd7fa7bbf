//===- CocoDialect.td - the coco dialect --------------------*- tablegen -*-===//
//
// CoCoNet's computation + communication DSL as an MLIR dialect. Semantics
// (layout rules, process-group rules) are checked in Rust by `coco-verify`;
// ODS holds the structure only.
//
//===----------------------------------------------------------------------===//

#ifndef COCO_DIALECT
#define COCO_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Coco_Dialect : Dialect {
  let name = "coco";
  let cppNamespace = "::mlir::coco";
  let summary = "Distributed ML programs where collectives and computations are first-class ops";
  let description = [{
    The `coco` dialect expresses distributed machine-learning programs in the
    style of CoCoNet (ASPLOS'22): collectives (`coco.all_reduce`,
    `coco.reduce_scatter`, `coco.all_gather`, ...) and computations
    (`coco.matmul`, `coco.dropout`, `coco.layer_norm`, ...) are ops of the same
    program, so that transformations can reorder, fuse and overlap them.

    Every distributed tensor is a builtin ranked tensor whose *encoding* is a
    coco layout attribute. Shapes are always **global** shapes:

    * `tensor<1024xf32, #coco.local>`: every rank holds a full tensor with its
      own values (gradients before reduction, partial matmul sums);
    * `tensor<1024xf32, #coco.replicated>`: every rank holds the same full
      tensor (weights, reduced gradients);
    * `tensor<1024x64xf32, #coco.sliced<0>>`: rank `i` of `N` holds slice `i`
      of dimension 0, which must be divisible by `N`.

    Element-wise math uses upstream `arith` and `math` ops on these tensors;
    since both operands and result of an element-wise op share one type, they
    share one layout. Builtin scalars (function arguments, constants) are the
    same on every rank, except one read out of a tensor that is not
    replicated (`tensor.extract`) and anything computed from it: such a
    per-rank scalar may only go into a `#coco.local` tensor (by
    `tensor.splat` or any other op), never into a replicated or sliced one,
    which would skip the collective that makes the ranks agree.
    Programs are valid for any world size that divides the
    sliced dimensions. Pipeline stages are explicit `coco.process_group`s;
    a function runs on the group named by its `coco.group` attribute (the
    whole world when absent).
  }];
  let useDefaultAttributePrinterParser = 1;
}

class Coco_Op<string mnemonic, list<Trait> traits = []>
    : Op<Coco_Dialect, mnemonic, traits>;

class Coco_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Coco_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // COCO_DIALECT
