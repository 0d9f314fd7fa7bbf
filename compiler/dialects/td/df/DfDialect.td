//===- DfDialect.td - the df dataflow dialect ---------------*- tablegen -*-===//

#ifndef DF_DIALECT
#define DF_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Df_Dialect : Dialect {
  let name = "df";
  let cppNamespace = "::mlir::df";
  let summary = "Spark-style dataflow programs with user-defined functions";
  let description = [{
    The `df` dialect describes batch dataflow programs in the style of Apache
    Spark, the input of the BigTest analyses. A program is a `func.func` whose
    body chains dataset operators (`df.source`, `df.map`, `df.filter`,
    `df.join`, ...); each operator that runs user code names a UDF, itself a
    `func.func` written with `arith`, `scf`, `cf` and the `df` string ops.

    A record is a builtin `tuple` of `i64`, `f64`, `i1` and `!df.str` fields,
    or a single such value. A UDF receives the fields of its input record as
    separate arguments and returns the fields of its output record as separate
    results; signatures are checked against the operator by `coco-verify`.

    The string and number ops mean what they mean in the language the job's
    UDFs are written in, named by the module attribute `df.host`: `"jvm"`
    (Java or Scala, the default) or `"python"` (PySpark):

    ```mlir
    module attributes {df.host = "python"} { ... }
    ```
  }];
  let useDefaultTypePrinterParser = 1;
}

class Df_Op<string mnemonic, list<Trait> traits = []>
    : Op<Df_Dialect, mnemonic, traits>;

class Df_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Df_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Df_StringType : Df_Type<"String", "str"> {
  let summary = "An immutable UTF-8 string";
}

def Df_ListType : Df_Type<"List", "list"> {
  let summary = "A list of values, such as the fields of a split string";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Df_OptionType : Df_Type<"Option", "option"> {
  let summary = "A value that may be absent (the unmatched side of an outer join)";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Df_DatasetType : Df_Type<"Dataset", "dataset"> {
  let summary = "A distributed collection of records";
  let description = [{
    `!df.dataset<tuple<i64, !df.str>>` is a dataset of two-field records;
    `!df.dataset<!df.str>` a dataset of lines.
  }];
  let parameters = (ins "::mlir::Type":$recordType);
  let assemblyFormat = "`<` $recordType `>`";
}

// The constraints keep the generic C++ type `mlir::Type` so that the custom
// assembly prints types in full (`!df.dataset<i64>`, not the stripped `<i64>`).
def Df_AnyString : Type<CPred<"::llvm::isa<::mlir::df::StringType>($_self)">,
                        "df string">,
                   BuildableType<"::mlir::df::StringType::get($_builder.getContext())">;
def Df_AnyList : Type<CPred<"::llvm::isa<::mlir::df::ListType>($_self)">,
                      "df list">;
def Df_AnyOption : Type<CPred<"::llvm::isa<::mlir::df::OptionType>($_self)">,
                        "df option">;
def Df_AnyDataset : Type<CPred<"::llvm::isa<::mlir::df::DatasetType>($_self)">,
                         "df dataset">;

#endif // DF_DIALECT
