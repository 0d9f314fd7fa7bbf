// Declarations generated from td/coco/*.td.
#ifndef COCO_DIALECTS_COCO_H
#define COCO_DIALECTS_COCO_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "CocoEnums.h.inc"
#include "CocoDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "CocoAttrs.h.inc"
#define GET_OP_CLASSES
#include "CocoOps.h.inc"

#endif
