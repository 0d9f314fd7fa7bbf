// Generated definitions for the coco dialect plus the one hand-written hook
// ODS requires (initialize). Semantics live in Rust: compiler/dialects/src/coco/.
#include "Coco.h"

#include "llvm/ADT/TypeSwitch.h"

#include "CocoEnums.cpp.inc"
#include "CocoDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "CocoAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "CocoOps.cpp.inc"

void mlir::coco::CocoDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "CocoAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "CocoOps.cpp.inc"
      >();
}
