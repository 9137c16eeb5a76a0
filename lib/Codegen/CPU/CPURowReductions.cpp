//===- CPURowReductions.cpp - Row reductions for the CPU ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "CPURowReductions.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::boo;

/// Whether the reduction loops `reductions` of `op` reduce rows: some input
/// is indexed by every loop (each output element reduces its own elements
/// of it; a contraction has no such input, as each of its inputs is reused
/// across some output loop), and each input that uses a reduction loop has
/// them all as its innermost results, in loop order (the rows are
/// contiguous).
static bool reducesRows(linalg::GenericOp op, ArrayRef<unsigned> reductions) {
  bool anyFull = false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!map.isProjectedPermutation())
      return false;
    anyFull |= map.isPermutation();
    if (llvm::none_of(reductions,
                      [&](unsigned d) { return map.isFunctionOfDim(d); }))
      continue;
    unsigned n = map.getNumResults();
    if (n < reductions.size())
      return false;
    for (auto [i, d] : llvm::enumerate(reductions))
      if (map.getDimPosition(n - reductions.size() + i) != d)
        return false;
  }
  return anyFull;
}

bool mlir::boo::splitRowReduction(RewriterBase &rewriter, linalg::GenericOp &op,
                                  int64_t lanes,
                                  SmallVectorImpl<linalg::GenericOp> &created,
                                  DenseSet<Operation *> &combines) {
  if (op.getNumDpsInits() != 1 || op.hasIndexSemantics() ||
      !op.hasPureTensorSemantics())
    return false;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.empty() || !reducesRows(op, reductions))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t extent = 1;
  for (unsigned d : reductions) {
    if (ShapedType::isDynamic(ranges[d]))
      return false;
    extent *= ranges[d];
  }
  if (extent % lanes != 0 || extent < 2 * lanes)
    return false;
  // Up to four vectors of partials: independent additions, so the loop is
  // not bound by the latency of one vector's chain.
  int64_t ratio = lanes;
  while (ratio < 4 * lanes && extent % (2 * ratio) == 0 && extent >= 4 * ratio)
    ratio *= 2;
  for (auto [i, d] : llvm::enumerate(reductions))
    if (d != reductions.front() + i)
      return false; // not consecutive loops

  rewriter.setInsertionPoint(op);
  if (reductions.size() > 1) {
    ReassociationIndices folded(reductions.begin(), reductions.end());
    if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {folded}))
      return false;
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, {folded}, rewriter);
    if (failed(collapsed))
      return false;
    auto generic =
        dyn_cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
    if (!generic)
      return false;
    rewriter.replaceOp(op, collapsed->results);
    op = generic;
  }

  // The partials go to a new innermost dim of the intermediate result.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned index = outMap.getNumResults();
  FailureOr<linalg::SplitReductionResult> split =
      linalg::splitReduction(rewriter, op, [&](linalg::LinalgOp) {
        return linalg::SplitReductionOptions{ratio, index,
                                             /*innerParallel=*/true};
      });
  if (failed(split))
    return false;
  rewriter.setInsertionPoint(split->fillOp);
  FailureOr<linalg::GenericOp> fill =
      linalg::generalizeNamedOp(rewriter, split->fillOp);
  if (succeeded(fill))
    created.push_back(*fill);
  for (linalg::LinalgOp made :
       {split->splitLinalgOp, split->resultCombiningLinalgOp})
    if (auto generic = dyn_cast<linalg::GenericOp>(made.getOperation()))
      created.push_back(generic);
  combines.insert(split->resultCombiningLinalgOp);
  return true;
}
