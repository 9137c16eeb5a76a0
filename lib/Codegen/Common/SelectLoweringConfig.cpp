//===- SelectLoweringConfig.cpp - boo-select-lowering-config --------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Gives every kernel a verified #boo.lowering_config for the module's
// #boo.target (boo-set-target). Order of precedence, per kernel:
//
//   1. a config already on the kernel (written by hand or by an earlier run);
//   2. the first rule of the tuning spec that matches the kernel's problem;
//   3. the heuristic (KernelConfigHeuristics.cpp), valid for any shape.
//
// Every config is checked against the chip; an invalid one from the input or
// the spec is an error at the kernel. See docs/TuningSpec.md.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/TransformOps/TuningSpec.h"
#include "KernelConfigHeuristics.h"

#include "Boo/Codegen/Common/Passes.h"
#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Dialect/Boo/IR/BooOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOSELECTLOWERINGCONFIG
#include "Boo/Codegen/Common/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {
struct BooSelectLoweringConfigPass
    : public mlir::boo::impl::BooSelectLoweringConfigBase<
          BooSelectLoweringConfigPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // Specs use transform.boo.match.problem.
    registerBooTransformExtension(registry);
  }

  void runOnOperation() override;
};
} // namespace

void BooSelectLoweringConfigPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  const ChipInfo *chipInfo = resolveChip(module, getArgument());
  if (!chipInfo)
    return signalPassFailure();

  SmallVector<Operation *> kernels;
  module.walk([&](Operation *op) {
    if (isKernel(op))
      kernels.push_back(op);
  });

  // Configs already present win; keep them away from the spec.
  llvm::DenseMap<Operation *, Attribute> preset;
  for (Operation *k : kernels)
    if (Attribute a = k->getAttr(kLoweringConfigAttrName)) {
      preset[k] = a;
      k->removeAttr(kLoweringConfigAttrName);
    }

  FailureOr<TuningSpec> spec = loadTuningSpec(ctx, tuningSpec, module.getLoc());
  if (failed(spec))
    return signalPassFailure();
  llvm::DenseSet<Operation *> fromSpec;
  if (spec->module) {
    if (failed(applyTuningSpec(module, *spec)))
      return signalPassFailure();
    for (Operation *k : kernels)
      if (k->hasAttr(kLoweringConfigAttrName))
        fromSpec.insert(k);
  }
  for (auto [op, attr] : preset)
    op->setAttr(kLoweringConfigAttrName, attr);

  bool anyFailed = false;
  for (Operation *k : kernels) {
    std::string source = preset.count(k) ? "the input"
                         : fromSpec.count(k)
                             ? "tuning spec '" + spec->name + "'"
                             : "the heuristic";
    Attribute attr = k->getAttr(kLoweringConfigAttrName);
    if (!attr) {
      FailureOr<KernelLoopNest> nest = getKernelLoopNest(k);
      if (failed(nest)) {
        k->emitOpError("has no loop nest to configure");
        anyFailed = true;
        continue;
      }
      attr = selectHeuristicConfig(ctx, k->getLoc(), *nest, *chipInfo,
                                   shrinkTiles);
      if (!attr) {
        anyFailed = true;
        continue;
      }
      k->setAttr(kLoweringConfigAttrName, attr);
    }
    auto config = dyn_cast<LoweringConfigAttr>(attr);
    if (!config) {
      k->emitOpError() << "'" << kLoweringConfigAttrName << "' from " << source
                       << " is not a #boo.lowering_config: " << attr;
      anyFailed = true;
      continue;
    }
    if (failed(verifyLoweringConfig(
            [&] {
              return k->emitOpError()
                     << "invalid lowering config from " << source << ": ";
            },
            k, config, *chipInfo))) {
      anyFailed = true;
      continue;
    }
    if (printSignatures)
      k->emitRemark() << "problem '" << getProblemSignature(k)
                      << "': config from " << source;
  }
  if (anyFailed)
    signalPassFailure();
}
