// PLACEHOLDER (scaffolding): replaced by the GPU code generation work.
#include "Boo/Transforms/Passes.h"
namespace mlir::boo {
#define GEN_PASS_DEF_BOOEXPANDMATH
#include "Boo/Transforms/Passes.h.inc"
} // namespace mlir::boo
using namespace mlir;
namespace {
struct BooExpandMathPass : public boo::impl::BooExpandMathBase<BooExpandMathPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("BooExpandMath is not implemented yet");
    signalPassFailure();
  }
};
} // namespace
