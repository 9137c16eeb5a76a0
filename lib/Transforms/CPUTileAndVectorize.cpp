#include "Boo/Transforms/Passes.h"
namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPUTILEANDVECTORIZE
#include "Boo/Transforms/Passes.h.inc"
} // namespace mlir::boo
using namespace mlir;
namespace {
struct BooCPUTileAndVectorizePass : public boo::impl::BooCPUTileAndVectorizeBase<BooCPUTileAndVectorizePass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
