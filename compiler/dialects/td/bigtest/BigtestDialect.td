//===- BigtestDialect.td - BigTest analysis results ---------*- tablegen -*-===//

#ifndef BIGTEST_DIALECT
#define BIGTEST_DIALECT

include "mlir/IR/OpBase.td"

def Bigtest_Dialect : Dialect {
  let name = "bigtest";
  let cppNamespace = "::mlir::bigtest";
  let summary = "Results of the BigTest analyses, materialised as IR";
  let description = [{
    The BigTest passes (ESEC/FSE'19) annotate a module holding a `df` program
    with what they found: one `bigtest.jdu_path` per Joint Dataflow-and-UDF
    path with its constraints and feasibility, and one `bigtest.test_record`
    per generated input record. Keeping results in IR lets them be printed,
    FileCheck-tested and consumed by later passes. Cross-references (program,
    source names, covered paths) are checked in Rust by `coco-verify`.
  }];
}

class Bigtest_Op<string mnemonic, list<Trait> traits = []>
    : Op<Bigtest_Dialect, mnemonic, traits>;

#endif // BIGTEST_DIALECT
