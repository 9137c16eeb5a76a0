//===- CPUVectorLoopSplit.cpp - A vector loop in two overlapping pieces ---===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// splitVectorLoop (CPUOperandLayouts.h). MobileNetV2's channels-last 1x1
// layers to 24 output channels had a vector tile of 8 lanes, the largest
// power-of-two multiple of 8 dividing 24: three half-width FMAs per row
// for 24 lanes. Two pieces of 16 lanes (0-15 and 8-23) take two
// full-width FMAs per row for the same 24 lanes. A 24-lane tile, which
// LLVM widens to 32, assembled its filter rows with inserts and shuffles
// and spilled (0.125 -> 0.20 ms for 96->24 at 56x56 on cpu:1).
//
//===----------------------------------------------------------------------===//

#include "CPUOperandLayouts.h"
#include "CPUTileSizes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::boo;

linalg::GenericOp
mlir::boo::splitVectorLoop(RewriterBase &rewriter, linalg::GenericOp op,
                           int64_t lanes,
                           SmallVectorImpl<linalg::GenericOp> &copies,
                           SmallVectorImpl<linalg::GenericOp> &tails) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1 ||
      op.hasIndexSemantics() || llvm::any_of(ranges, ShapedType::isDynamic))
    return op;
  unsigned d = vectorLoop(op);
  int64_t extent = ranges[d];
  if (extent <= lanes || extent % lanes == 0 || extent % (lanes / 2) != 0 ||
      everyInputIndexedBy(op, d))
    return op;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!isRefillable(init->get()))
    return op;
  // Each operand reads the loop as one plain dim, or not at all.
  AffineExpr loop = getAffineDimExpr(d, op.getContext());
  SmallVector<std::optional<unsigned>> positions;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    std::optional<unsigned> pos = map.getResultPosition(loop);
    if (!pos && map.isFunctionOfDim(d))
      return op;
    positions.push_back(pos);
  }
  rewriter.setInsertionPoint(op);
  int64_t lead = extent - extent % lanes;
  auto [pieces, result] =
      computeInPieces(rewriter, op, op.getDpsInputs(), init->get(),
                      cast<RankedTensorType>(init->get().getType()), positions,
                      op.getIndexingMapsArray(), op.getIteratorTypesArray(),
                      {{0, lead}, {extent - lanes, lanes}}, copies);
  tails.push_back(pieces.back());
  rewriter.replaceOp(op, result);
  return pieces.front();
}
