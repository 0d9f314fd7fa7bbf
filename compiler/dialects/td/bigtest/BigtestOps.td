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
    holds its path condition as an SMT-LIB 2 script (declarations and
    assertions). `status` is `unsolved` until `bigtest-solve` records `sat`,
    `unsat` or `unknown` (solver timeout).

    `keys` lists the keys the path's records pass at keyed operators: the
    dataset op's index in the program (`op`) and the key as an SMT term
    (`term`). `records` lists the source records the path reads: the source's
    name (`source`) and the constants of the script that are its fields, in
    order (`fields`). Test generation reads both to keep keys apart and to
    turn a solver model into records. A path with two witnesses (a join whose
    sides read one source: records matched with themselves, or different
    records) chooses with a Bool constant of its script; a record only one
    witness reads says which, `when = "<constant>"` (read when it is true) or
    `unless = "<constant>"`.

    ```mlir
    bigtest.jdu_path 0 of @wordcount status sat
        branches ["source#0", "flat_map#1=elem0", "reduce_by_key#3=single"]
        constraints ["(declare-const lines_0.f0 String)", "(assert (= flat_map1.p0 lines_0.f0))"]
        keys [ {op = 3, term = "flat_map1.p0"} ]
        records [ {fields = ["lines_0.f0"], source = "lines"} ]
    ```
  }];
  let arguments = (ins I64Attr:$id, FlatSymbolRefAttr:$program,
                       Bigtest_PathStatus:$status, StrArrayAttr:$branches,
                       StrArrayAttr:$constraints, OptionalAttr<DictArrayAttr>:$keys,
                       OptionalAttr<DictArrayAttr>:$records);
  let assemblyFormat = [{
    $id `of` $program `status` $status `branches` $branches `constraints` $constraints
    (`keys` $keys^)? (`records` $records^)? attr-dict
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
