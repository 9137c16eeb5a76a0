#include "Boo/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
namespace mlir::boo {
#define GEN_PASS_DEF_BOOCONVERTTOLINALG
#include "Boo/Transforms/Passes.h.inc"
} // namespace mlir::boo
using namespace mlir;
namespace {
struct BooConvertToLinalgPass : public boo::impl::BooConvertToLinalgBase<BooConvertToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
void mlir::boo::populateBooToLinalgPatterns(RewritePatternSet &) {}
