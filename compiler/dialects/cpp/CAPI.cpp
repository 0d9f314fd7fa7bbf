// The C API shim: dialect registration handles plus the few accessors and
// diagnostics helpers the MLIR 19 C API lacks. Everything here is plumbing;
// no semantics. Declarations mirror compiler/dialects/src/ffi.rs.
#include "Bigtest.h"
#include "Coco.h"
#include "Df.h"

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

extern "C" {
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Coco, coco);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Df, df);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Bigtest, bigtest);
}

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Coco, coco, mlir::coco::CocoDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Df, df, mlir::df::DfDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Bigtest, bigtest, mlir::bigtest::BigtestDialect)

using namespace mlir;

extern "C" {

//===--- coco layouts ---------------------------------------------------===//

bool cocoAttributeIsALocal(MlirAttribute attr) {
  return llvm::isa_and_nonnull<coco::LocalAttr>(unwrap(attr));
}
bool cocoAttributeIsAReplicated(MlirAttribute attr) {
  return llvm::isa_and_nonnull<coco::ReplicatedAttr>(unwrap(attr));
}
bool cocoAttributeIsASliced(MlirAttribute attr) {
  return llvm::isa_and_nonnull<coco::SlicedAttr>(unwrap(attr));
}
int64_t cocoSlicedAttrGetDim(MlirAttribute attr) {
  return llvm::cast<coco::SlicedAttr>(unwrap(attr)).getDim();
}
bool cocoAttributeIsAMeshLayout(MlirAttribute attr) {
  return llvm::isa_and_nonnull<coco::MeshLayoutAttr>(unwrap(attr));
}
MlirAttribute cocoMeshLayoutAttrGetAxes(MlirAttribute attr) {
  return wrap(llvm::cast<coco::MeshLayoutAttr>(unwrap(attr)).getAxes());
}
MlirAttribute cocoLocalAttrGet(MlirContext ctx) {
  return wrap(coco::LocalAttr::get(unwrap(ctx)));
}
MlirAttribute cocoReplicatedAttrGet(MlirContext ctx) {
  return wrap(coco::ReplicatedAttr::get(unwrap(ctx)));
}
MlirAttribute cocoSlicedAttrGet(MlirContext ctx, int64_t dim) {
  return wrap(coco::SlicedAttr::get(unwrap(ctx), dim));
}

//===--- df types ---------------------------------------------------------===//

bool dfTypeIsAString(MlirType type) { return llvm::isa<df::StringType>(unwrap(type)); }
bool dfTypeIsAList(MlirType type) { return llvm::isa<df::ListType>(unwrap(type)); }
bool dfTypeIsAOption(MlirType type) { return llvm::isa<df::OptionType>(unwrap(type)); }
bool dfTypeIsADataset(MlirType type) { return llvm::isa<df::DatasetType>(unwrap(type)); }

/// The parameter of a list, option or dataset type; null for any other type.
MlirType dfTypeGetParameter(MlirType type) {
  Type t = unwrap(type);
  if (auto list = llvm::dyn_cast<df::ListType>(t))
    return wrap(list.getElementType());
  if (auto option = llvm::dyn_cast<df::OptionType>(t))
    return wrap(option.getElementType());
  if (auto dataset = llvm::dyn_cast<df::DatasetType>(t))
    return wrap(dataset.getRecordType());
  return MlirType{nullptr};
}
MlirType dfStringTypeGet(MlirContext ctx) { return wrap(df::StringType::get(unwrap(ctx))); }
MlirType dfListTypeGet(MlirType element) {
  return wrap(df::ListType::get(unwrap(element).getContext(), unwrap(element)));
}
MlirType dfOptionTypeGet(MlirType element) {
  return wrap(df::OptionType::get(unwrap(element).getContext(), unwrap(element)));
}
MlirType dfDatasetTypeGet(MlirType record) {
  return wrap(df::DatasetType::get(unwrap(record).getContext(), unwrap(record)));
}

//===--- diagnostics and locations --------------------------------------===//

// The 19 C API only has mlirEmitError; passes written in Rust also need
// remarks and warnings that flow through the same handler, in order.
void cocoEmitRemark(MlirLocation loc, MlirStringRef message) {
  emitRemark(unwrap(loc)) << unwrap(message);
}
void cocoEmitWarning(MlirLocation loc, MlirStringRef message) {
  emitWarning(unwrap(loc)) << unwrap(message);
}

/// Finds the file:line:col inside any location (fused, named, call site).
bool cocoLocationGetFileLineCol(MlirLocation loc, MlirStringRef *file, unsigned *line,
                                unsigned *column) {
  auto fileLoc = unwrap(loc)->findInstanceOf<FileLineColLoc>();
  if (!fileLoc)
    return false;
  *file = wrap(fileLoc.getFilename().strref());
  *line = fileLoc.getLine();
  *column = fileLoc.getColumn();
  return true;
}

/// A value's location: for a function argument, where its name is written
/// (the C API of MLIR 19 has no accessor).
MlirLocation cocoValueGetLocation(MlirValue value) {
  return wrap(unwrap(value).getLoc());
}

/// mlirModuleCreateParse with a buffer name, so locations carry the file.
MlirModule cocoParseSourceString(MlirContext ctx, MlirStringRef source,
                                 MlirStringRef sourceName) {
  ParserConfig config(unwrap(ctx));
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(source), config, unwrap(sourceName));
  if (!module)
    return MlirModule{nullptr};
  return MlirModule{module.release().getOperation()};
}

//===--- upstream queries -------------------------------------------------===//

// MLIR and LLVM stop the process (report_fatal_error) on a pass added under
// an op it is not anchored on and never say which CPUs a target knows, so
// the tools ask first.

/// Parses `pipeline` (pass elements, no anchor) onto an op-agnostic pass
/// manager, which accepts passes anchored on any op, and calls `onPass` with
/// each top-level pass's argument and the op it runs on (empty: any op).
/// On a parse error, calls `onError` with MLIR's message and returns false.
bool cocoPipelinePassAnchors(MlirStringRef pipeline,
                             void (*onPass)(MlirStringRef, MlirStringRef, void *),
                             void (*onError)(MlirStringRef, void *), void *userData) {
  OpPassManager manager;
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  if (failed(parsePassPipeline(unwrap(pipeline), manager, errorStream))) {
    errorStream.flush();
    onError(wrap(StringRef(error)), userData);
    return false;
  }
  for (Pass &pass : manager.getPasses()) {
    std::optional<StringRef> op = pass.getOpName();
    onPass(wrap(pass.getArgument()), wrap(op ? *op : StringRef()), userData);
  }
  return true;
}

/// Calls `onCpu` with every CPU name LLVM knows for the host's target, and
/// `onTriple` with the triple; false when that target is not linked in.
bool cocoHostTargetCpus(void (*onTriple)(MlirStringRef, void *),
                        void (*onCpu)(MlirStringRef, void *), void *userData) {
  if (llvm::InitializeNativeTarget())
    return false;
  std::string triple = llvm::sys::getDefaultTargetTriple();
  onTriple(wrap(StringRef(triple)), userData);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
  if (!info)
    return false;
  for (const llvm::SubtargetSubTypeKV &cpu : info->getAllProcessorDescriptions())
    onCpu(wrap(StringRef(cpu.Key)), userData);
  return true;
}

} // extern "C"
