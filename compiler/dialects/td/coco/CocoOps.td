//===- CocoOps.td - coco operations -------------------------*- tablegen -*-===//
//
// Structure only: operand kinds, traits and assembly formats. The layout rules
// each op documents are checked in Rust by `coco-verify`
// (dialects/src/coco/verify.rs), which every tool runs after parsing.
//
//===----------------------------------------------------------------------===//

#ifndef COCO_OPS
#define COCO_OPS

include "CocoDialect.td"
include "CocoAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Coco_DistTensor : Type<
    And<[AnyRankedTensor.predicate,
         CPred<"::llvm::isa_and_nonnull<::mlir::coco::LocalAttr, "
               "::mlir::coco::ReplicatedAttr, ::mlir::coco::SlicedAttr, "
               "::mlir::coco::MeshLayoutAttr>("
               "::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding())">]>,
    "ranked tensor with a coco layout encoding (#coco.local, "
    "#coco.replicated, #coco.sliced<d> or #coco.mesh<{...}>)", "::mlir::RankedTensorType">;

//===----------------------------------------------------------------------===//
// Process groups
//===----------------------------------------------------------------------===//

def Coco_ProcessGroupOp : Coco_Op<"process_group", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A pipeline stage: one of `num_stages` equal, contiguous groups of ranks";
  let description = [{
    Splits the world of `N` ranks into `num_stages` contiguous groups of
    `N / num_stages` ranks and names group `stage`. A `func.func` whose
    `coco.group` attribute names the group runs on those ranks only; its
    collectives reduce over that group. `coco.send`/`coco.recv` move a tensor
    between rank `k` of one group and rank `k` of another; a send never waits
    and a receive waits for its peer's send, so a stage may receive after it
    sends (1F1B). The world size must be divisible by `num_stages`.

    Each stage runs exactly one function, its whole step: a second function
    on a stage, or a function on no stage beside the stages, is an error
    (neither would run).

    ```mlir
    coco.process_group @stage0 stage 0 of 2
    coco.process_group @stage1 stage 1 of 2
    func.func @first(%x: tensor<8xf32, #coco.local>) attributes {coco.group = @stage0} { ... }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, I64Attr:$stage, I64Attr:$num_stages);
  let assemblyFormat = "$sym_name `stage` $stage `of` $num_stages attr-dict";
}

def Coco_MeshOp : Coco_Op<"mesh", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "Named axes over the ranks of every function's group";
  let description = [{
    Arranges the ranks a function runs on (the whole world, or each pipeline
    stage's group) as a row-major grid with named axes, as MLIR's `mesh`
    dialect and JAX name them: on `[dp = 2, tp = 2]`, rank `r` of the group is
    at `dp = r / 2`, `tp = r % 2`. The product of the sizes must equal the
    group's size when the program runs (with pipeline stages, the world is
    `stages × product`, the stage being the outermost axis).

    A tensor's layout is then one layout per axis, `#coco.mesh<{...}>`; a
    plain `#coco.local`, `#coco.replicated` or `#coco.sliced<d>` is that
    layout on every axis (a dimension sliced over several axes is split in
    the mesh's order, outermost first, which is the group's rank order).
    Collectives name the axis they communicate over (`over "dp"`): every
    row of ranks along that axis is one group, the layout rule applies on
    that axis and every other axis keeps its layout. A collective without
    an axis spans the whole group and applies to plain layouts only. Layout
    rules of computations apply axis by axis.

    ```mlir
    coco.mesh @grid [dp = 2, tp = 2]
    func.func @step(%g: tensor<64x32xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>>) {
      %r = coco.all_reduce sum %g over "dp" : tensor<64x32xf32, #coco.mesh<{dp = #coco.local, tp = #coco.sliced<1>}>>
                                            -> tensor<64x32xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>>
      ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrArrayAttr:$axes, DenseI64ArrayAttr:$sizes);
  let hasCustomAssemblyFormat = 1;
}

//===----------------------------------------------------------------------===//
// Communication
//===----------------------------------------------------------------------===//

def Coco_AllReduceOp : Coco_Op<"all_reduce", [Pure]> {
  let summary = "Reduce a local tensor across all ranks; every rank gets the result";
  let description = [{
    Layout rule: `#coco.local` → `#coco.replicated`, same shape and element
    type. `avg` divides the sum by the group size.

    ```mlir
    %r = coco.all_reduce sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.replicated>
    ```
  }];
  let arguments = (ins Coco_ReductionKind:$kind, Coco_DistTensor:$input, OptionalAttr<StrAttr>:$axis);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$kind $input (`over` $axis^)? attr-dict `:` type($input) `->` type($result)";
}

def Coco_ReduceScatterOp : Coco_Op<"reduce_scatter", [Pure]> {
  let summary = "Reduce a local tensor across ranks; rank i gets slice i of the result";
  let description = [{
    Layout rule: `#coco.local` → `#coco.sliced<d>`, same global shape and
    element type; `d` must be a dimension of the tensor.

    ```mlir
    %s = coco.reduce_scatter sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>
    ```
  }];
  let arguments = (ins Coco_ReductionKind:$kind, Coco_DistTensor:$input, OptionalAttr<StrAttr>:$axis);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$kind $input (`over` $axis^)? attr-dict `:` type($input) `->` type($result)";
}

def Coco_AllGatherOp : Coco_Op<"all_gather", [Pure]> {
  let summary = "Concatenate every rank's slice; every rank gets the full tensor";
  let description = [{
    Layout rule: `#coco.sliced<d>` → `#coco.replicated`, same global shape and
    element type.

    ```mlir
    %r = coco.all_gather %s : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input, OptionalAttr<StrAttr>:$axis);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input (`over` $axis^)? attr-dict `:` type($input) `->` type($result)";
}

def Coco_BroadcastOp : Coco_Op<"broadcast", [Pure]> {
  let summary = "Copy the root rank's tensor to every rank";
  let description = [{
    Layout rule: `#coco.local` or `#coco.replicated` → `#coco.replicated`,
    same shape and element type. `root` is a rank of the group (checked
    against the world size when the program runs).

    ```mlir
    %w = coco.broadcast %x root 0 : tensor<64xf32, #coco.local> -> tensor<64xf32, #coco.replicated>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input, OptionalAttr<StrAttr>:$axis, I64Attr:$root);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input `root` $root (`over` $axis^)? attr-dict `:` type($input) `->` type($result)";
}

def Coco_ReduceOp : Coco_Op<"reduce", [Pure]> {
  let summary = "Reduce a local tensor across ranks onto the root rank";
  let description = [{
    Layout rule: `#coco.local` → `#coco.local`, same shape and element type.
    The root rank holds the reduction; every other rank keeps its input value
    (NCCL leaves their receive buffer unspecified; the reference interpreter
    defines it so that runs are reproducible).

    ```mlir
    %s = coco.reduce max %x root 0 : tensor<64xf32, #coco.local> -> tensor<64xf32, #coco.local>
    ```
  }];
  let arguments = (ins Coco_ReductionKind:$kind, Coco_DistTensor:$input, OptionalAttr<StrAttr>:$axis, I64Attr:$root);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$kind $input `root` $root (`over` $axis^)? attr-dict `:` type($input) `->` type($result)";
}

def Coco_AllToAllOp : Coco_Op<"all_to_all", [Pure]> {
  let summary = "Re-slice a tensor along another dimension";
  let description = [{
    Layout rule: `#coco.sliced<a>` → `#coco.sliced<b>` with `a != b`, same
    global shape and element type. Every rank sends one block to every other
    rank. On a `coco.mesh`, the rule holds along the axis named by `over`
    (the whole group without it), and every other axis keeps its layout.
    `#coco.sliced<a>` → `#coco.sliced<a>` is refused, with or without a
    mesh: it would leave every rank its block, so it is no exchange.

    ```mlir
    %t = coco.all_to_all %x : tensor<8x16xf32, #coco.sliced<1>> -> tensor<8x16xf32, #coco.sliced<0>>
    %m = coco.all_to_all %y over "tp" : tensor<8x16xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<1>}>> -> tensor<8x16xf32, #coco.mesh<{dp = #coco.replicated, tp = #coco.sliced<0>}>>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input, OptionalAttr<StrAttr>:$axis);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input (`over` $axis^)? attr-dict `:` type($input) `->` type($result)";
}

def Coco_SendOp : Coco_Op<"send"> {
  let summary = "Send a tensor to the same-index rank of another process group";
  let description = [{
    Rank `k` of the enclosing function's group sends its value to rank `k` of
    group `peer`. Each send must be matched, in order, by a `coco.recv` of the
    same type in a function that runs on `peer` and receives from this group.

    ```mlir
    coco.send %h to @stage1 : tensor<8x64xf32, #coco.replicated>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input, FlatSymbolRefAttr:$peer);
  let assemblyFormat = "$input `to` $peer attr-dict `:` type($input)";
}

def Coco_RecvOp : Coco_Op<"recv"> {
  let summary = "Receive a tensor from the same-index rank of another process group";
  let description = [{
    The counterpart of `coco.send`; the layout travels with the value.

    ```mlir
    %h = coco.recv from @stage0 : tensor<8x64xf32, #coco.replicated>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$peer);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "`from` $peer attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

def Coco_MatmulOp : Coco_Op<"matmul", [Pure]> {
  let summary = "Matrix product of two distributed 2-D tensors, or batched 3-D tensors";
  let description = [{
    `[M, K] x [K, N] -> [M, N]`, or batched `[B, M, K] x [B, K, N] -> [B, M, N]`
    (attention heads), where both operands sliced along the batch dimension
    give a result sliced along it, `sliced<2> x sliced<1>` (contracting each
    rank's slice of `K`) gives local partial sums, and replicated or local
    operands follow the 2-D rules. Layout rules of the 2-D product (Megatron-LM sharding):

    | lhs | rhs | result | use |
    |---|---|---|---|
    | replicated | replicated | replicated | plain |
    | replicated | sliced<1> | sliced<1> | column-parallel linear |
    | sliced<1> | sliced<0> | local (partial sums) | row-parallel linear, followed by all_reduce |
    | sliced<0> | replicated | sliced<0> | rows split (data parallel) |
    | local | replicated | local | per-rank activations |

    ```mlir
    %y = coco.matmul %x, %w : tensor<8x16xf32, #coco.replicated>, tensor<16x32xf32, #coco.sliced<1>> -> tensor<8x32xf32, #coco.sliced<1>>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$lhs, Coco_DistTensor:$rhs);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
}

def Coco_DropoutOp : Coco_Op<"dropout", [Pure, SameOperandsAndResultType]> {
  let summary = "Seeded dropout: zero elements with probability `prob`, scale the rest by 1/(1-prob)";
  let description = [{
    The mask is a pure function of `(seed, global element index)`, so it is the
    same whatever the layout, world size or schedule. `0 <= prob < 1`.

    ```mlir
    %d = coco.dropout %x prob 1.000000e-01 seed 42 : tensor<8x32xf32, #coco.replicated>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input, F64Attr:$prob, I64Attr:$seed);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input `prob` $prob `seed` $seed attr-dict `:` type($input)";
}

def Coco_LayerNormOp : Coco_Op<"layer_norm", [Pure]> {
  let summary = "Layer normalisation over the last dimension, with scale and shift";
  let description = [{
    `y = (x - mean) / sqrt(var + epsilon) * gamma + beta`, statistics over the
    last dimension. `gamma` and `beta` are 1-D, replicated, with the size of
    that dimension. `x` must not be sliced along its last dimension; the result
    has the type of `x`.

    ```mlir
    %y = coco.layer_norm %x, %g, %b eps 1.000000e-05 : tensor<8x32xf32, #coco.replicated>, tensor<32xf32, #coco.replicated>, tensor<32xf32, #coco.replicated> -> tensor<8x32xf32, #coco.replicated>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input, Coco_DistTensor:$gamma,
                       Coco_DistTensor:$beta, F64Attr:$epsilon);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta `eps` $epsilon attr-dict `:` type($input) `,`
    type($gamma) `,` type($beta) `->` type($result)
  }];
}

def Coco_NormOp : Coco_Op<"norm", [Pure]> {
  let summary = "L2 norm of a whole tensor, as a 0-d tensor";
  let description = [{
    The squares (rounded to the accumulation type, f32 for 16-bit floats)
    are summed in the blocked order of `coco.reduce_elements`, then the
    square root is rounded to the element type.

    Layout rule: `replicated` → `replicated`, `local` → `local`. A sliced
    input is rejected: the norm of the whole tensor needs communication
    (express it as `coco.reduce_elements` of squares, `coco.all_reduce`,
    `math.sqrt`).

    ```mlir
    %n = coco.norm %w : tensor<1024xf32, #coco.replicated> -> tensor<f32, #coco.replicated>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Coco_ReduceElementsOp : Coco_Op<"reduce_elements", [Pure]> {
  let summary = "Reduce all elements of a tensor, or the dimensions `dims`";
  let description = [{
    Without `dims`, every element is reduced to a 0-d tensor. With `dims`
    (strictly increasing), only those dimensions are reduced: the result has
    the operand's shape without them (a per-token sum over experts, the row
    maximum of gate probabilities). Accumulation is in f32 for 16-bit
    floats. A whole-tensor float sum, avg or prod combines its elements in
    the blocked order (lanes of 16 adjacent elements folding 256 rows each
    per block of 4096, then the partials pairwise: see
    `coco_dialects::coco::summation` and docs/interpreter.md); with `dims`,
    and for min, max and integers, each result element combines its
    elements in index order (row-major over `dims`).

    Layout rule: `replicated` → `replicated`, `local` → `local`, and
    `sliced<d>` → `local` when `d` is reduced: each rank reduces its own
    slice, giving the partial result that a following `coco.all_reduce` with
    the same operator completes (`avg` is rejected there, since averages of
    slices do not compose that way). When `d` is kept, the result is
    `sliced<d'>`, `d'` counting the kept dimensions before `d`.

    ```mlir
    %s = coco.reduce_elements sum %x : tensor<1024xf32, #coco.sliced<0>> -> tensor<f32, #coco.local>
    %m = coco.reduce_elements max %p {dims = array<i64: 1>} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<48xf32, #coco.sliced<0>>
    ```
  }];
  let arguments = (ins Coco_ReductionKind:$kind, Coco_DistTensor:$input,
                       OptionalAttr<DenseI64ArrayAttr>:$dims);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input) `->` type($result)";
}

def Coco_ArgmaxOp : Coco_Op<"argmax", [Pure]> {
  let summary = "Index of the largest element along one dimension (top-1 routing)";
  let description = [{
    The result has the operand's shape without dimension `dim` and holds,
    for each position, the index (i64) of the first largest element along
    `dim`: a scan from -inf (integers: the type's minimum) that moves only on
    strictly greater values, so NaNs are never chosen and a row with nothing
    above -inf gives 0. Layout rule:
    `replicated` → `replicated`, `local` → `local`, `sliced<d>` →
    `sliced<d'>` for `d != dim` (`d'` counting the dimensions kept before
    `d`); an operand sliced along `dim` is rejected (all_gather it first).

    ```mlir
    %expert = coco.argmax %probs {dim = 1 : i64} : tensor<48x24xf32, #coco.sliced<0>> -> tensor<48xi64, #coco.sliced<0>>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input, I64Attr:$dim);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Coco_CumsumOp : Coco_Op<"cumsum", [Pure]> {
  let summary = "Running sum along one dimension (an MoE's slot in each expert)";
  let description = [{
    `result[..., i, ...] = x[..., 0, ...] + ... + x[..., i, ...]` along `dim`,
    summed from zero in index order and rounded to the element type after
    each addition (integers wrap), so every backend gives the same bits.
    Same shape, element type and layout as the operand; an operand sliced
    along `dim` is rejected (all_gather it first), since each rank's running
    sum would start from zero.

    ```mlir
    %slot = coco.cumsum %onehot dim 0 : tensor<64x8xi64, #coco.local> -> tensor<64x8xi64, #coco.local>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input, I64Attr:$dim);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input) `->` type($result)";
}

def Coco_GatherOp : Coco_Op<"gather", [Pure]> {
  let summary = "Slices of a tensor picked by index along one dimension (an MoE's token dispatch)";
  let description = [{
    Along dimension `dim` (0 without it), as `numpy.take`:
    `result[..., i, ...] = source[..., clamp(indices[i]), ...]`, with `i` at
    position `dim`. Each index (i64) is clamped to `[0, size - 1]`, `size`
    being `source`'s extent along `dim`, as XLA's gather clamps, so no index
    reads outside the tensor. With `drop`, an index outside `[0, size)`
    reads zeros instead (a token an MoE's capacity drops, marked by an index
    past the last slot). The result is `source`'s shape with dimension `dim`
    replaced by `indices`' length.

    Layout rule: the result is `local` when either operand is. Otherwise,
    with `indices` `replicated` or `sliced<0>` and `source` `replicated`,
    the result is `replicated` or `sliced<dim>` (each rank gathers its own
    positions); with `indices` `replicated` and `source` `sliced<d>`, `d` not
    `dim`, the result is `sliced<d>` (each rank gathers from its own
    slice). A source sliced along `dim` would need communication.

    ```mlir
    %rows = coco.gather %x[%order] : tensor<48x16xf32, #coco.replicated>, tensor<48xi64, #coco.sliced<0>> -> tensor<48x16xf32, #coco.sliced<0>>
    %kept = coco.gather %x[%slot] drop : tensor<48x16xf32, #coco.local>, tensor<64xi64, #coco.local> -> tensor<64x16xf32, #coco.local>
    %cols = coco.gather %h[%perm] dim 1 : tensor<8x64x16xf32, #coco.sliced<2>>, tensor<64xi64, #coco.replicated> -> tensor<8x64x16xf32, #coco.sliced<2>>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$source, Coco_DistTensor:$indices,
                       OptionalAttr<I64Attr>:$dim, UnitAttr:$drop);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$source `[` $indices `]` (`dim` $dim^)? (`drop` $drop^)? attr-dict `:` type($source) `,` type($indices) `->` type($result)";
}

def Coco_ScatterAddOp : Coco_Op<"scatter_add", [Pure]> {
  let summary = "Add slices into a tensor at indices along one dimension (an MoE's combine)";
  let description = [{
    Along dimension `dim` (0 without it), as `numpy.add.at`: the result is
    `dest` with slice `i` of `updates` (at position `dim`) added to slice
    `indices[i]` of `dest` (clamped to `[0, size - 1]`; with `drop`, an
    index outside `[0, size)` adds nothing) for every `i`, in order
    `i = 0, 1, ...`: each result element is its `dest` element plus the
    updates aimed at it, summed in index order, so repeated indices
    accumulate deterministically. `updates` is `dest`'s shape with dimension
    `dim` replaced by `indices`' length. Layout rule: all three operands and
    the result have one layout, `replicated` or `local`.

    ```mlir
    %y = coco.scatter_add %zeros[%slot], %rows : tensor<48x16xf32, #coco.local>, tensor<48xi64, #coco.local>, tensor<48x16xf32, #coco.local> -> tensor<48x16xf32, #coco.local>
    %z = coco.scatter_add %acc[%slot], %cols dim 1 drop : tensor<4x48xf32, #coco.local>, tensor<64xi64, #coco.local>, tensor<4x64xf32, #coco.local> -> tensor<4x48xf32, #coco.local>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$dest, Coco_DistTensor:$indices, Coco_DistTensor:$updates,
                       OptionalAttr<I64Attr>:$dim, UnitAttr:$drop);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$dest `[` $indices `]` `,` $updates (`dim` $dim^)? (`drop` $drop^)? attr-dict `:` type($dest) `,` type($indices) `,` type($updates) `->` type($result)";
}

def Coco_CastOp : Coco_Op<"cast", [Pure]> {
  let summary = "Convert between floating-point element types (mixed precision)";
  let description = [{
    Same shape and layout; the element types are floats. Narrowing rounds to
    nearest, ties to even, as GPU conversion instructions do.

    ```mlir
    %h = coco.cast %x : tensor<1024xf32, #coco.replicated> -> tensor<1024xf16, #coco.replicated>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Coco_TransposeOp : Coco_Op<"transpose", [Pure]> {
  let summary = "Swap the last two dimensions of a 2-D or 3-D tensor";
  let description = [{
    `[M, N] -> [N, M]` (or `[B, M, N] -> [B, N, M]`), no communication.
    Layout rule for 2-D: `sliced<0>` ↔ `sliced<1>`; a 3-D tensor sliced along
    its batch dimension stays so; `local` and `replicated` are kept.

    ```mlir
    %kt = coco.transpose %k : tensor<128x64xf32, #coco.sliced<1>> -> tensor<64x128xf32, #coco.sliced<0>>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Coco_SoftmaxOp : Coco_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "Softmax over the last dimension";
  let description = [{
    `y_i = exp(x_i - max(x)) / sum_j exp(x_j - max(x))` per row of the last
    dimension, which must not be sliced. The result has the input's type.

    ```mlir
    %p = coco.softmax %scores : tensor<128x128xf32, #coco.local>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Coco_SplitHeadsOp : Coco_Op<"split_heads", [Pure]> {
  let summary = "View [S, heads * d] as [heads, S, d] (attention heads)";
  let description = [{
    No communication. Layout rule: `sliced<1>` → `sliced<0>` (a rank's
    column block holds whole heads when the world size divides the number of
    heads); `local` and `replicated` are kept.

    ```mlir
    %qh = coco.split_heads %q : tensor<64x256xf32, #coco.sliced<1>> -> tensor<4x64x64xf32, #coco.sliced<0>>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Coco_MergeHeadsOp : Coco_Op<"merge_heads", [Pure]> {
  let summary = "View [heads, S, d] as [S, heads * d] (the inverse of split_heads)";
  let description = [{
    No communication. Layout rule: `sliced<0>` → `sliced<1>`; `local` and
    `replicated` are kept.

    ```mlir
    %ctx = coco.merge_heads %c : tensor<4x64x64xf32, #coco.sliced<0>> -> tensor<64x256xf32, #coco.sliced<1>>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Coco_ExpandOp : Coco_Op<"expand", [Pure]> {
  let summary = "Broadcast a tensor along new dimensions (bias add, scalars, routing masks)";
  let description = [{
    Every element of the result is the operand's element at the result's
    coordinates in `dims`: operand dimension `i` becomes result dimension
    `dims[i]` (strictly increasing, sizes equal), and every other result
    dimension is new. Without `dims`, the operand's dimensions are the
    result's trailing ones (NumPy-style broadcasting of leading dimensions).
    No communication. Layout rule: `replicated` → `replicated`, `local` →
    `local`, and `sliced<d>` → `sliced<dims[d]>` (without `dims`,
    `sliced<d + k>` for `k` new dimensions).

    ```mlir
    %b = coco.expand %bias : tensor<4096xf32, #coco.sliced<0>> -> tensor<16x4096xf32, #coco.sliced<1>>
    %s = coco.expand %ratio : tensor<f32, #coco.replicated> -> tensor<1024xf32, #coco.replicated>
    %g = coco.expand %gate {dims = array<i64: 0>} : tensor<48xf32, #coco.sliced<0>> -> tensor<48x16xf32, #coco.sliced<0>>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input, OptionalAttr<DenseI64ArrayAttr>:$dims);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Coco_SliceOp : Coco_Op<"slice", [Pure]> {
  let summary = "Take this rank's slice of a replicated tensor, without communication";
  let description = [{
    CoCoNet's `Scatter`. Layout rule: `replicated` → `sliced<d>`, same global
    shape and element type.

    ```mlir
    %s = coco.slice %p : tensor<1024xf32, #coco.replicated> -> tensor<1024xf32, #coco.sliced<0>>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$input);
  let results = (outs Coco_DistTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Coco_UpdateOp : Coco_Op<"update", [AllTypesMatch<["target", "value"]>]> {
  let summary = "Write a new value back into a program input (weights, optimizer state)";
  let description = [{
    `target` must be an argument of the enclosing `func.func`; `value` has
    exactly its type (shape, element type and layout). After the program runs,
    the input holds `value`.

    ```mlir
    coco.update %p, %p_new : tensor<1024xf32, #coco.replicated>
    ```
  }];
  let arguments = (ins Coco_DistTensor:$target, Coco_DistTensor:$value);
  let assemblyFormat = "$target `,` $value attr-dict `:` type($target)";
}

//===----------------------------------------------------------------------===//
// Structural ops produced by transformations
//===----------------------------------------------------------------------===//

def Coco_FusedKernelOp : Coco_Op<"fused_kernel", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "Computations that are generated as one kernel";
  let description = [{
    Produced by `coco-fuse`. The body holds computations only (no
    collectives); values defined above may be used inside. `coco.yield`
    returns the results.

    ```mlir
    %r = coco.fused_kernel -> tensor<1024xf32, #coco.replicated> {
      %a = arith.mulf %x, %y : tensor<1024xf32, #coco.replicated>
      coco.yield %a : tensor<1024xf32, #coco.replicated>
    }
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`->` type($results)^)? $body attr-dict";
}

def Coco_FusedCollectiveOp : Coco_Op<"fused_collective", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "reduce_scatter, computations on the slices and all_gather as one unit";
  let description = [{
    Produced by `coco-fuse` from CoCoNet's `RS_C_AG` schedule. The body starts
    with `coco.reduce_scatter` ops, computes on slices and ends with
    `coco.all_gather` ops; the lowering runs it as one collective with the
    computation in between and no extra memory passes: on the CPU, one
    kernel per rank that folds every rank's part of the reduce_scatter
    operands in rank order, computes, and writes the all_gather operands
    into every rank's copy through shared memory (a `peer_launch`,
    docs/bundle.md); on GPUs, NCCL collectives around one kernel. The only other
    communication it may hold is a `coco.all_reduce` of a 0-d tensor: the
    scalar that combines per-slice partial reductions (a norm computed by
    `coco-partial-reduce`, as in CoCoNet's fused LAMB).

    ```mlir
    %r = coco.fused_collective -> tensor<1024xf32, #coco.replicated> {
      %s = coco.reduce_scatter sum %g : tensor<1024xf32, #coco.local> -> tensor<1024xf32, #coco.sliced<0>>
      %t = arith.mulf %s, %s : tensor<1024xf32, #coco.sliced<0>>
      %r = coco.all_gather %t : tensor<1024xf32, #coco.sliced<0>> -> tensor<1024xf32, #coco.replicated>
      coco.yield %r : tensor<1024xf32, #coco.replicated>
    }
    ```
  }];
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`->` type($results)^)? $body attr-dict";
}

def Coco_OverlapOp : Coco_Op<"overlap", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "Producer computation and consumer collective pipelined in chunks";
  let description = [{
    Produced by `coco-overlap`. The body is split into `chunks` pieces; the
    collective on chunk `i` runs while chunk `i + 1` is computed. The body must
    contain at least one computation and one collective.

    ```mlir
    %r = coco.overlap chunks 4 -> tensor<8x32xf32, #coco.replicated> {
      %p = coco.matmul %x, %w : tensor<8x16xf32, #coco.sliced<1>>, tensor<16x32xf32, #coco.sliced<0>> -> tensor<8x32xf32, #coco.local>
      %s = coco.all_reduce sum %p : tensor<8x32xf32, #coco.local> -> tensor<8x32xf32, #coco.replicated>
      coco.yield %s : tensor<8x32xf32, #coco.replicated>
    }
    ```
  }];
  let arguments = (ins I64Attr:$chunks);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`chunks` $chunks (`->` type($results)^)? $body attr-dict";
}

def Coco_YieldOp : Coco_Op<"yield", [
    Pure, ReturnLike, Terminator,
    ParentOneOf<["FusedKernelOp", "FusedCollectiveOp", "OverlapOp"]>]> {
  let summary = "Returns values from a fused or overlap region";
  let description = [{
    ```mlir
    coco.yield %a, %b : tensor<8xf32, #coco.replicated>, tensor<8xf32, #coco.replicated>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // COCO_OPS
