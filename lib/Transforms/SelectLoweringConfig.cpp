// PLACEHOLDER (scaffolding): replaced by the GPU code generation work.
#include "Boo/Transforms/Passes.h"
namespace mlir::boo {
#define GEN_PASS_DEF_BOOSELECTLOWERINGCONFIG
#include "Boo/Transforms/Passes.h.inc"
} // namespace mlir::boo
using namespace mlir;
namespace {
struct BooSelectLoweringConfigPass : public boo::impl::BooSelectLoweringConfigBase<BooSelectLoweringConfigPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("BooSelectLoweringConfig is not implemented yet");
    signalPassFailure();
  }
};
} // namespace
