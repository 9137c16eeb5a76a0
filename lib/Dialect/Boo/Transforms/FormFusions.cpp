//===- FormFusions.cpp - boo-form-fusions ---------------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Grows a boo.fusion from each anchor (conv / layer norm) along its chain of
// single-use element-wise consumers. A consumer joins only if its other
// operand is available before the anchor, so the fusion can be placed where
// the anchor was without reordering anything else.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/BooOps.h"
#include "Boo/Dialect/Boo/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOFORMFUSIONS
#include "Boo/Dialect/Boo/Transforms/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {

/// True if `v` is defined before `anchor` in the same block or in an
/// enclosing region (so it can be used by a fusion placed at `anchor`).
static bool isAvailableBefore(Value v, Operation *anchor) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner()->getParentOp()->isProperAncestor(anchor) ||
           arg.getOwner() == anchor->getBlock();
  Operation *def = v.getDefiningOp();
  if (def->getBlock() == anchor->getBlock())
    return def->isBeforeInBlock(anchor);
  return def->getBlock()->getParentOp()->isProperAncestor(anchor);
}

/// The element-wise op that is the only user of `v`, if it may join a fusion
/// anchored at `anchor`.
static Operation *getFusibleConsumer(Value v, Operation *anchor) {
  if (!v.hasOneUse())
    return nullptr;
  Operation *user = *v.getUsers().begin();
  if (!isElementwiseEpilogue(user) || user->getBlock() != anchor->getBlock())
    return nullptr;
  for (Value operand : user->getOperands())
    if (operand != v && !isAvailableBefore(operand, anchor))
      return nullptr;
  return user;
}

struct FormFusionPattern : public RewritePattern {
  FormFusionPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *anchor,
                                PatternRewriter &rewriter) const override {
    if (!isFusionAnchor(anchor) || isa<FusionOp>(anchor->getParentOp()))
      return failure();
    // The epilogue grows along the first result (a norm's y); the other
    // results (its statistics) leave the fusion as they are.
    Value tip = anchor->getResult(0);
    SmallVector<Operation *> chain;
    while (Operation *next = getFusibleConsumer(tip, anchor)) {
      chain.push_back(next);
      tip = next->getResult(0);
    }
    // The fusion returns the chain's tip and the anchor's other results
    // that are used (an unused mean/rstd is not computed at all).
    SmallVector<Value> yielded = {tip};
    for (Value r : anchor->getResults().drop_front())
      if (!r.use_empty())
        yielded.push_back(r);
    SmallVector<Type> types = llvm::to_vector(TypeRange(ValueRange(yielded)));

    rewriter.setInsertionPoint(anchor);
    auto fusion = FusionOp::create(rewriter, anchor->getLoc(), types);
    Block *body = rewriter.createBlock(&fusion.getBody());
    rewriter.setInsertionPointToEnd(body);
    auto yield = YieldOp::create(rewriter, anchor->getLoc(), yielded);
    // Replace outside uses before moving, so uses inside stay intact.
    for (auto [from, to] : llvm::zip(yielded, fusion.getResults()))
      rewriter.replaceUsesWithIf(from, to, [&](OpOperand &use) {
        return use.getOwner() != yield &&
               !fusion->isProperAncestor(use.getOwner()) &&
               !llvm::is_contained(chain, use.getOwner()) &&
               use.getOwner() != anchor;
      });
    rewriter.moveOpBefore(anchor, yield);
    for (Operation *op : chain)
      rewriter.moveOpBefore(op, yield);
    return success();
  }
};

struct BooFormFusionsPass
    : public mlir::boo::impl::BooFormFusionsBase<BooFormFusionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateBooFormFusionsPatterns(patterns);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace

void mlir::boo::populateBooFormFusionsPatterns(RewritePatternSet &patterns) {
  patterns.add<FormFusionPattern>(patterns.getContext());
}
