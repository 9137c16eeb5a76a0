//===- CPUChainPasses.cpp - A row chain's passes over a tile, fused -------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// fuseChainPasses (see CPURowReductions.h): after a row chain's generics are
// tiled and vectorized, the sibling loops of a tile that run over the same
// iterations and do not depend on each other become one loop.
//
//===----------------------------------------------------------------------===//

#include "CPURowReductions.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::boo;

/// Whether sibling loops `a` and `b` run over the same iterations.
static bool sameIterations(Operation *a, Operation *b) {
  auto same = [](ArrayRef<OpFoldResult> x, ArrayRef<OpFoldResult> y) {
    return x.size() == y.size() && llvm::all_of(llvm::zip(x, y), [](auto pair) {
             return isEqualConstantIntOrValue(std::get<0>(pair),
                                              std::get<1>(pair));
           });
  };
  if (auto fa = dyn_cast<scf::ForOp>(a)) {
    auto fb = dyn_cast<scf::ForOp>(b);
    auto bounds = [](scf::ForOp f) {
      return SmallVector<OpFoldResult>{getAsOpFoldResult(f.getLowerBound()),
                                       getAsOpFoldResult(f.getUpperBound()),
                                       getAsOpFoldResult(f.getStep())};
    };
    return fb && same(bounds(fa), bounds(fb));
  }
  auto fa = dyn_cast<scf::ForallOp>(a);
  auto fb = dyn_cast<scf::ForallOp>(b);
  return fa && fb && !fa.getMapping() && !fb.getMapping() &&
         same(fa.getMixedLowerBound(), fb.getMixedLowerBound()) &&
         same(fa.getMixedUpperBound(), fb.getMixedUpperBound()) &&
         same(fa.getMixedStep(), fb.getMixedStep());
}

/// Whether `later` (after `earlier` in its block) uses a result of
/// `earlier`, directly, through the ops between them, or inside its
/// regions.
static bool dependsOn(Operation *later, Operation *earlier) {
  BackwardSliceOptions options;
  options.omitUsesFromAbove = false;
  options.omitBlockArguments = true;
  options.filter = [&](Operation *op) {
    return op->getBlock() == earlier->getBlock() &&
           !op->isBeforeInBlock(earlier);
  };
  SetVector<Operation *> slice;
  if (failed(getBackwardSlice(later, &slice, options)))
    return true;
  return slice.contains(earlier);
}

/// Fuses one pair of sibling loops in `block`; returns whether it did.
static bool fuseOnePair(RewriterBase &rewriter, Block &block) {
  for (Operation &a : block) {
    if (!isa<scf::ForOp, scf::ForallOp>(a))
      continue;
    for (Operation *b = a.getNextNode(); b; b = b->getNextNode()) {
      if (!sameIterations(&a, b) || dependsOn(b, &a) ||
          failed(moveOperationDependencies(rewriter, b, &a)))
        continue;
      rewriter.moveOpAfter(b, &a);
      if (auto forA = dyn_cast<scf::ForOp>(a))
        fuseIndependentSiblingForLoops(forA, cast<scf::ForOp>(b), rewriter);
      else
        fuseIndependentSiblingForallLoops(cast<scf::ForallOp>(a),
                                          cast<scf::ForallOp>(b), rewriter);
      return true;
    }
  }
  return false;
}

void mlir::boo::fuseChainPasses(RewriterBase &rewriter,
                                ArrayRef<Operation *> foralls) {
  for (Operation *forall : foralls) {
    // Fused loops are new ops with new sibling loops inside: start over
    // after each fusion (the loops of a tile are few).
    for (bool changed = true; changed;) {
      changed = false;
      forall->walk<WalkOrder::PreOrder>([&](Block *block) {
        if (fuseOnePair(rewriter, *block)) {
          changed = true;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
    }
  }
}
