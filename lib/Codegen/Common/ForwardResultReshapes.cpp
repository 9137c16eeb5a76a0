//===- ForwardResultReshapes.cpp - boo-forward-result-reshapes ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// After buffer-results-to-out-params, a result computed in a local buffer
// and returned through a reshape is copied into its out-param. This pass
// computes it in the out-param directly: the local buffer becomes the
// inverse reshape of the out-param, and the copy goes.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Common/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOFORWARDRESULTRESHAPES
#include "Boo/Codegen/Common/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// `out` reshaped back into the type of `alloc`, inverting `reshape` (a
/// collapse_shape or expand_shape of `alloc`), or null if the result would
/// not have exactly that type.
Value inverseReshape(RewriterBase &rewriter, Operation *reshape, Value out,
                     memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  Location loc = reshape->getLoc();
  Value result;
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape)) {
    if (!type.hasStaticShape())
      return Value();
    result = memref::ExpandShapeOp::create(rewriter, loc, type.getShape(), out,
                                           collapse.getReassociationIndices());
  } else if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape)) {
    result = memref::CollapseShapeOp::create(rewriter, loc, out,
                                             expand.getReassociationIndices());
  } else {
    return Value();
  }
  if (result.getType() != type) {
    rewriter.eraseOp(result.getDefiningOp());
    return Value();
  }
  return result;
}

/// Forwards the out-param of `copy` into the buffer it copies from, if
/// `copy` is such a result copy; true if it did.
bool forward(RewriterBase &rewriter, memref::CopyOp copy) {
  auto out = dyn_cast<BlockArgument>(copy.getTarget());
  Operation *reshape = copy.getSource().getDefiningOp();
  if (!out || !out.hasOneUse() || !reshape ||
      !isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(reshape) ||
      !reshape->hasOneUse())
    return false;
  auto alloc = reshape->getOperand(0).getDefiningOp<memref::AllocOp>();
  if (!alloc || !alloc.getType().getLayout().isIdentity() ||
      alloc->getBlock() != copy->getBlock() ||
      !isa<func::FuncOp>(out.getOwner()->getParentOp()))
    return false;
  // Every other use of the buffer must come before the copy.
  Block *block = copy->getBlock();
  for (Operation *user : alloc->getUsers()) {
    if (user == reshape)
      continue;
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor || !ancestor->isBeforeInBlock(copy))
      return false;
  }
  rewriter.setInsertionPoint(alloc);
  Value replacement = inverseReshape(rewriter, reshape, out, alloc);
  if (!replacement)
    return false;
  rewriter.eraseOp(copy);
  rewriter.eraseOp(reshape);
  rewriter.replaceOp(alloc, replacement);
  return true;
}

struct BooForwardResultReshapesPass
    : public mlir::boo::impl::BooForwardResultReshapesBase<
          BooForwardResultReshapesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies)
      forward(rewriter, copy);
  }
};
} // namespace
