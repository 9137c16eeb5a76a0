//===- SetTarget.cpp - boo-set-target -------------------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Records the chip a GPU compilation targets as the module's #boo.target,
// which every later pass reads through resolveChip (BooAttrs.h).
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Common/Passes.h"
#include "Boo/Dialect/Boo/IR/BooAttrs.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOSETTARGET
#include "Boo/Codegen/Common/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {
struct BooSetTargetPass
    : public mlir::boo::impl::BooSetTargetBase<BooSetTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto existing = module->getAttrOfType<TargetAttr>(kTargetAttrName);
    if (chip.empty()) {
      if (!existing) {
        module.emitError() << "boo-set-target: no chip (set chip=, or put a "
                              "#boo.target on the module)";
        signalPassFailure();
      }
      return;
    }
    const ChipInfo *chipInfo = lookupChip(chip);
    if (!chipInfo) {
      module.emitError() << "boo-set-target: "
                         << getUnsupportedChipMessage(chip);
      return signalPassFailure();
    }
    if (existing && existing.getChipInfo().name != chipInfo->name) {
      module.emitError() << "boo-set-target: chip=" << chip
                         << " but the module targets "
                         << existing.getChipInfo().name;
      return signalPassFailure();
    }
    module->setAttr(kTargetAttrName,
                    TargetAttr::get(&getContext(), chipInfo->name));
  }
};
} // namespace
