//===- CPUReductionLayouts.cpp - Operands copied reduction innermost ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// See makeReductionDimContiguous in CPUOperandLayouts.h: a matrix product's
// A stored transposed, [K][M], is read by each register tile 8 floats from
// each of its K rows; copied once with K innermost, each tile reads its rows
// along K as the plain product does.
//
//===----------------------------------------------------------------------===//

#include "CPUOperandLayouts.h"

using namespace mlir;
using namespace mlir::boo;

void mlir::boo::makeReductionDimContiguous(
    RewriterBase &rewriter, linalg::GenericOp op, unsigned vecDim,
    SmallVectorImpl<linalg::GenericOp> &copies) {
  if (op.getNumDpsInits() != 1 || op.hasIndexSemantics())
    return;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  bool changed = false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = maps[operand->getOperandNumber()];
    if (!map.isProjectedPermutation() || map.isFunctionOfDim(vecDim))
      continue;
    std::optional<unsigned> reduction;
    int64_t reductions = 0;
    for (AffineExpr e : map.getResults()) {
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      if (iters[d] == utils::IteratorType::reduction) {
        reduction = d;
        ++reductions;
      }
    }
    if (reductions != 1 ||
        getReaderExtent(op, map) < kMinSingleReductionSlabReaders)
      continue;
    changed |= moveInnermost(rewriter, op, operand, *reduction, maps, copies);
  }
  if (changed)
    rewriter.modifyOpInPlace(op, [&]() {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
}
