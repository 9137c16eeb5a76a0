// PLACEHOLDER (scaffolding): replaced by the GPU code generation work.
#include "Boo/Transforms/Passes.h"
namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPUDISTRIBUTE
#include "Boo/Transforms/Passes.h.inc"
} // namespace mlir::boo
using namespace mlir;
namespace {
struct BooGPUDistributePass : public boo::impl::BooGPUDistributeBase<BooGPUDistributePass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("BooGPUDistribute is not implemented yet");
    signalPassFailure();
  }
};
} // namespace
