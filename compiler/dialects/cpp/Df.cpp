// Generated definitions for the df dialect, initialize(), and the one custom
// assembly directive (an optional result type). Semantics live in Rust:
// compiler/dialects/src/df/.
#include "Df.h"

#include "llvm/ADT/TypeSwitch.h"

#include "DfEnums.cpp.inc"
#include "DfDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "DfTypes.cpp.inc"
// `custom<ResultType>`: an optional `: type` after an op whose result has a
// default type (`df.to_int %s` is i64, `df.to_int %s : !df.option<i64>`).
static mlir::ParseResult parseResultType(mlir::OpAsmParser &parser, mlir::Type &type,
                                         mlir::Type defaultType) {
  if (mlir::succeeded(parser.parseOptionalColon()))
    return parser.parseType(type);
  type = defaultType;
  return mlir::success();
}

static void printResultType(mlir::OpAsmPrinter &printer, mlir::Operation *, mlir::Type type,
                            mlir::Type defaultType) {
  if (type != defaultType)
    printer << " : " << type;
}

#define GET_OP_CLASSES
#include "DfOps.cpp.inc"

void mlir::df::DfDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "DfTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "DfOps.cpp.inc"
      >();
}
