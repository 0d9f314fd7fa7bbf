//===- CocoAttrs.td - coco layout attributes ----------------*- tablegen -*-===//

#ifndef COCO_ATTRS
#define COCO_ATTRS

include "CocoDialect.td"
include "mlir/IR/EnumAttr.td"

def Coco_LocalAttr : Coco_Attr<"Local", "local"> {
  let summary = "Layout: every rank holds a full tensor with its own values";
  let description = [{
    Used as a tensor encoding. A `local` tensor has one independent value per
    rank, for example a gradient before it is reduced or the partial sums of a
    row-parallel matmul.

    ```mlir
    %g : tensor<1024xf32, #coco.local>
    ```
  }];
}

def Coco_ReplicatedAttr : Coco_Attr<"Replicated", "replicated"> {
  let summary = "Layout: every rank holds the same full tensor";
  let description = [{
    Used as a tensor encoding. A `replicated` tensor has the same value on every
    rank of the group, for example weights or a reduced gradient.

    ```mlir
    %w : tensor<1024xf32, #coco.replicated>
    ```
  }];
}

def Coco_SlicedAttr : Coco_Attr<"Sliced", "sliced"> {
  let summary = "Layout: rank i holds slice i along one dimension";
  let description = [{
    Used as a tensor encoding. The tensor type carries the *global* shape; rank
    `i` of `N` holds the `i`-th of `N` equal slices along dimension `dim`, which
    must be divisible by the world size at run time.

    ```mlir
    %m : tensor<1024x64xf32, #coco.sliced<0>>
    ```
  }];
  let parameters = (ins "int64_t":$dim);
  let assemblyFormat = "`<` $dim `>`";
}

def Coco_MeshLayoutAttr : Coco_Attr<"MeshLayout", "mesh"> {
  let summary = "Layout: one layout per axis of the program's coco.mesh";
  let description = [{
    Used as a tensor encoding in a program with a `coco.mesh`: names every
    axis of the mesh with the layout the tensor has along it. A data-parallel
    batch sliced over `dp` and replicated over `tp`:

    ```mlir
    %x : tensor<32x512xf32, #coco.mesh<{dp = #coco.sliced<0>, tp = #coco.replicated}>>
    ```

    Rank `(dp = i, tp = j)` holds rows `i * 16 .. (i + 1) * 16` in full. The
    same layout on every axis is written as the plain layout.
  }];
  let parameters = (ins "::mlir::DictionaryAttr":$axes);
  let assemblyFormat = "`<` $axes `>`";
}

def Coco_ReductionKind : I32EnumAttr<"ReductionKind",
    "reduction operator of a collective or tensor reduction", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"prod", 1>,
      I32EnumAttrCase<"min", 2>,
      I32EnumAttrCase<"max", 3>,
      I32EnumAttrCase<"avg", 4>
    ]> {
  let cppNamespace = "::mlir::coco";
}

#endif // COCO_ATTRS
