// Generated definitions for the bigtest dialect plus initialize(). Semantics
// live in Rust: compiler/dialects/src/bigtest/.
#include "Bigtest.h"

#include "BigtestEnums.cpp.inc"
#include "BigtestDialect.cpp.inc"
#define GET_OP_CLASSES
#include "BigtestOps.cpp.inc"

void mlir::bigtest::BigtestDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "BigtestOps.cpp.inc"
      >();
}
