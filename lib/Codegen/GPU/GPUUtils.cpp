//===- GPUUtils.cpp - Helpers shared by the GPU passes --------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"

#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Target/ChipInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::boo;

const ChipInfo *boo::resolveChip(ModuleOp module, StringRef option,
                                 StringRef passName) {
  std::string chipName = option.str();
  if (auto target = module->getAttrOfType<TargetAttr>(kTargetAttrName)) {
    StringRef recorded = target.getChipInfo().name;
    if (!chipName.empty() && chipName != recorded) {
      module.emitError() << passName << ": chip=" << chipName
                         << " but the module targets " << recorded;
      return nullptr;
    }
    chipName = recorded.str();
  }
  if (chipName.empty()) {
    module.emitError() << passName
                       << ": no chip (set chip= or #boo.target on the module)";
    return nullptr;
  }
  const ChipInfo *chipInfo = lookupChip(chipName);
  if (!chipInfo)
    module.emitError() << passName << ": "
                       << getUnsupportedChipMessage(chipName);
  return chipInfo;
}

scf::ForallOp boo::createThreadLoop(OpBuilder &b, Location loc,
                                    int64_t threads) {
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> count = {b.getIndexAttr(threads)};
  auto loop = scf::ForallOp::create(
      b, loc, count, ValueRange(),
      b.getArrayAttr(
          {gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::LinearDim0)}));
  b.setInsertionPointToStart(loop.getBody());
  return loop;
}
