//===- BigtestOps.td - bigtest operations -------------------*- tablegen -*-===//

#ifndef BIGTEST_OPS
#define BIGTEST_OPS

include "BigtestDialect.td"
include "mlir/IR/EnumAttr.td"

def Bigtest_PathStatus : I32EnumAttr<"PathStatus", "feasibility of a JDU path", [
      I32EnumAttrCase<"unsolved", 0>,
      I32EnumAttrCase<"sat", 1>,
      I32EnumAttrCase<"unsat", 2>,
      I32EnumAttrCase<"unknown", 3>
    ]> {
  let cppNamespace = "::mlir::bigtest";
}

def Bigtest_JduPathOp : Bigtest_Op<"jdu_path", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "One Joint Dataflow-and-UDF path of a df program";
  let description = [{
    `id` is unique per program. `branches` lists the operator equivalence
    classes and UDF branches the path follows, in dataflow order; `constraints`
    holds its path condition in readable SMT-LIB-like form. `status` is
    `unsolved` until `bigtest-solve` records `sat`, `unsat` or `unknown`
    (solver timeout).

    ```mlir
    bigtest.jdu_path 0 of @wordcount status sat
        branches ["filter@line:pass", "udf@tokens:loop=1"]
        constraints ["(not (= line \"\"))"]
    ```
  }];
  let arguments = (ins I64Attr:$id, FlatSymbolRefAttr:$program,
                       Bigtest_PathStatus:$status, StrArrayAttr:$branches,
                       StrArrayAttr:$constraints);
  let assemblyFormat = [{
    $id `of` $program `status` $status `branches` $branches `constraints` $constraints attr-dict
  }];
}

def Bigtest_TestRecordOp : Bigtest_Op<"test_record", [HasParent<"::mlir::ModuleOp">]> {
  let summary = "One generated input record, bound to a source of a df program";
  let description = [{
    `text` is the record as a line of the source's text format (fields joined
    by the source's delimiter); `covers` lists the ids of the JDU paths of the
    same program that this record exercises. Records belong to test case
    `case` (0 when absent): paths that no single dataset can cover together,
    such as a global `df.reduce` over one record and over two, get cases of
    their own.

    ```mlir
    bigtest.test_record of @wordcount source "lines" text "a b" covers [0, 1]
    bigtest.test_record of @totals case 1 source "sales" text "7" covers [3]
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$program, OptionalAttr<I64Attr>:$test_case,
                       StrAttr:$source, StrAttr:$text, DenseI64ArrayAttr:$covers);
  let assemblyFormat = [{
    `of` $program (`case` $test_case^)? `source` $source `text` $text `covers` $covers attr-dict
  }];
}

#endif // BIGTEST_OPS
