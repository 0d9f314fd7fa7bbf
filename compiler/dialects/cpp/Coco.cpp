// Generated definitions for the coco dialect plus the hand-written hooks ODS
// requires (initialize, coco.mesh's syntax). Semantics live in Rust:
// compiler/dialects/src/coco/.
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

// `coco.mesh @name [dp = 2, tp = 2]`: axes in order, so not a dictionary
// (which would sort them).
mlir::ParseResult mlir::coco::MeshOp::parse(mlir::OpAsmParser &parser,
                                            mlir::OperationState &result) {
  mlir::StringAttr name;
  if (parser.parseSymbolName(name, mlir::SymbolTable::getSymbolAttrName(),
                             result.attributes))
    return mlir::failure();
  llvm::SmallVector<mlir::Attribute> axes;
  llvm::SmallVector<int64_t> sizes;
  auto parseAxis = [&]() -> mlir::ParseResult {
    std::string axis;
    int64_t size = 0;
    if (parser.parseKeywordOrString(&axis) || parser.parseEqual() ||
        parser.parseInteger(size))
      return mlir::failure();
    axes.push_back(parser.getBuilder().getStringAttr(axis));
    sizes.push_back(size);
    return mlir::success();
  };
  if (parser.parseCommaSeparatedList(mlir::OpAsmParser::Delimiter::Square, parseAxis))
    return mlir::failure();
  result.addAttribute(getAxesAttrName(result.name), parser.getBuilder().getArrayAttr(axes));
  result.addAttribute(getSizesAttrName(result.name),
                      parser.getBuilder().getDenseI64ArrayAttr(sizes));
  return parser.parseOptionalAttrDict(result.attributes);
}

void mlir::coco::MeshOp::print(mlir::OpAsmPrinter &printer) {
  printer << ' ';
  printer.printSymbolName(getSymName());
  printer << " [";
  auto sizes = getSizes();
  for (auto [i, axis] : llvm::enumerate(getAxes())) {
    if (i > 0)
      printer << ", ";
    printer.printKeywordOrString(llvm::cast<mlir::StringAttr>(axis).getValue());
    printer << " = " << (i < sizes.size() ? sizes[i] : 0);
  }
  printer << "]";
  printer.printOptionalAttrDict((*this)->getAttrs(),
                                {getSymNameAttrName(), getAxesAttrName(), getSizesAttrName()});
}
