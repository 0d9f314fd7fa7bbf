// Generated definitions for the df dialect plus initialize(). Semantics live
// in Rust: compiler/dialects/src/df/.
#include "Df.h"

#include "llvm/ADT/TypeSwitch.h"

#include "DfEnums.cpp.inc"
#include "DfDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "DfTypes.cpp.inc"
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
