//===- FuseElementwise.cpp - boo-fuse-elementwise -------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's element-wise fusion with a control function that keeps
// gathers (boo.as_strided's copies) kernels of their own.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOFUSEELEMENTWISE
#include "Boo/Codegen/Common/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// Whether `op` reads an input through an index that mixes several of its
/// loops (a result of an input map using more than one loop dim).
bool isGather(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic)
    return false;
  for (OpOperand *in : generic.getDpsInputOperands())
    for (AffineExpr e : generic.getMatchingIndexingMap(in).getResults()) {
      int dims = 0;
      e.walk([&](AffineExpr sub) { dims += isa<AffineDimExpr>(sub); });
      if (dims > 1)
        return true;
    }
  return false;
}

struct BooFuseElementwisePass
    : public boo::impl::BooFuseElementwiseBase<BooFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *op = getOperation();
    MLIRContext *ctx = op->getContext();
    bool gathers = fuseGathers;
    linalg::ControlFusionFn control = [gathers](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             (gathers || !isGather(producer));
    };
    // The pattern set of upstream's linalg-fuse-elementwise-ops.
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal();
    // As upstream: a fusion left undone is not an error.
    (void)applyPatternsGreedily(op, std::move(patterns), config);
  }
};
} // namespace
