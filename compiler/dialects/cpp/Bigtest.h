// Declarations generated from td/bigtest/*.td.
#ifndef COCO_DIALECTS_BIGTEST_H
#define COCO_DIALECTS_BIGTEST_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "BigtestEnums.h.inc"
#include "BigtestDialect.h.inc"
#define GET_OP_CLASSES
#include "BigtestOps.h.inc"

#endif
