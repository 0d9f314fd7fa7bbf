// Declarations generated from td/df/*.td.
#ifndef COCO_DIALECTS_DF_H
#define COCO_DIALECTS_DF_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "DfEnums.h.inc"
#include "DfDialect.h.inc"
#define GET_TYPEDEF_CLASSES
#include "DfTypes.h.inc"
#define GET_OP_CLASSES
#include "DfOps.h.inc"

#endif
