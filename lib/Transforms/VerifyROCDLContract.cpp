// PLACEHOLDER (scaffolding): replaced by the GPU code generation work.
#include "Boo/Transforms/Passes.h"
namespace mlir::boo {
#define GEN_PASS_DEF_BOOVERIFYROCDLCONTRACT
#include "Boo/Transforms/Passes.h.inc"
} // namespace mlir::boo
using namespace mlir;
namespace {
struct BooVerifyROCDLContractPass : public boo::impl::BooVerifyROCDLContractBase<BooVerifyROCDLContractPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->emitError("BooVerifyROCDLContract is not implemented yet");
    signalPassFailure();
  }
};
} // namespace
