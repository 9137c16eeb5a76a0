//===- CPULoopSplits.cpp - A loop in two overlapping pieces ---------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// splitVectorLoop and splitRowLoop (CPUOperandLayouts.h): a contraction's
// parallel loop whose extent is no multiple of the tile it should have is
// computed in two pieces, over the leading multiple and over the last
// tile, which overlaps the first piece and writes the same values again.
//
// The vector loop: MobileNetV2's channels-last 1x1 layers to 24 output
// channels had a vector tile of 8 lanes, the largest power-of-two multiple
// of 8 dividing 24: three half-width FMAs per row for 24 lanes. Two pieces
// of 16 lanes (0-15 and 8-23) take two full-width FMAs per row for the
// same 24 lanes. A 24-lane tile, which LLVM widens to 32, assembled its
// filter rows with inserts and shuffles and spilled (0.125 -> 0.20 ms for
// 96->24 at 56x56 on cpu:1).
//
// The row loop: on an AVX2 host (16 registers of 8 lanes), the register
// tile that fits is 6 rows of 16 lanes (12 accumulators, 2 registers of
// the vector operand, a broadcast), and 6 rows divide few loops (none of
// 512 output channels), which took 2 rows of 32 or 4 of 16 lanes: 8
// accumulators, which two FMA pipes of 4 cycles' latency barely keep
// busy, and each vector loaded for 2 or 4 rows instead of 6.
//
//===----------------------------------------------------------------------===//

#include "CPUOperandLayouts.h"
#include "CPUTileSizes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::boo;

/// `op` computed as two generics, over [0, lead) and over the last `tail`
/// of loop `d` (appended to `tails`); `op` unchanged where some operand
/// reads the loop other than as one plain dim or its initial value is no
/// fill.
static linalg::GenericOp
splitLoop(RewriterBase &rewriter, linalg::GenericOp op, unsigned d,
          int64_t lead, int64_t tail,
          SmallVectorImpl<linalg::GenericOp> &copies,
          SmallVectorImpl<linalg::GenericOp> &tails) {
  OpOperand *init = op.getDpsInitOperand(0);
  if (!isRefillable(init->get()))
    return op;
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
  int64_t extent = op.getStaticLoopRanges()[d];
  auto [pieces, result] =
      computeInPieces(rewriter, op, op.getDpsInputs(), init->get(),
                      cast<RankedTensorType>(init->get().getType()), positions,
                      op.getIndexingMapsArray(), op.getIteratorTypesArray(),
                      {{0, lead}, {extent - tail, tail}}, copies);
  tails.push_back(pieces.back());
  rewriter.replaceOp(op, result);
  return pieces.front();
}

/// Whether `op` is a static contraction with one result and no index ops.
static bool isSplittable(linalg::GenericOp op) {
  return op.getNumReductionLoops() > 0 && op.getNumDpsInits() == 1 &&
         !op.hasIndexSemantics() &&
         !llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
}

linalg::GenericOp
mlir::boo::splitVectorLoop(RewriterBase &rewriter, linalg::GenericOp op,
                           int64_t lanes,
                           SmallVectorImpl<linalg::GenericOp> &copies,
                           SmallVectorImpl<linalg::GenericOp> &tails) {
  if (!isSplittable(op))
    return op;
  unsigned d = vectorLoop(op);
  int64_t extent = op.getStaticLoopRanges()[d];
  if (extent <= lanes || extent % lanes == 0 || extent % (lanes / 2) != 0 ||
      everyInputIndexedBy(op, d))
    return op;
  return splitLoop(rewriter, op, d, extent - extent % lanes, lanes, copies,
                   tails);
}

linalg::GenericOp
mlir::boo::splitRowLoop(RewriterBase &rewriter, linalg::GenericOp op,
                        const TileTargets &targets,
                        SmallVectorImpl<linalg::GenericOp> &copies,
                        SmallVectorImpl<linalg::GenericOp> &tails) {
  if (!isSplittable(op) || targets.accumulatorLanes <= 0)
    return op;
  // Inputs copied before the contraction would be copied by both pieces
  // (a packed filter read whole by the pieces of its image's rows).
  for (Value input : op.getDpsInputs())
    if (auto producer = input.getDefiningOp<linalg::GenericOp>())
      if (llvm::is_contained(copies, producer))
        return op;
  TileTargets undivided = targets;
  undivided.undividedRows = true;
  FailureOr<SmallVector<int64_t>> tiles = chooseTileSizes(op, undivided);
  if (failed(tiles))
    return op;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [d, t, r] : llvm::enumerate(*tiles, ranges))
    if (r % t != 0)
      return splitLoop(rewriter, op, d, r - r % t, t, copies, tails);
  return op;
}

/// The insert_slice ops that build `value` from a tensor.empty, first one
/// first, each used only by the next (computeInPieces' result), or none.
static SmallVector<tensor::InsertSliceOp> pieceInserts(Value value) {
  SmallVector<tensor::InsertSliceOp> chain;
  while (auto insert = value.getDefiningOp<tensor::InsertSliceOp>()) {
    if (!insert->hasOneUse() || !insert.hasUnitStride() ||
        !insert.getOffsets().empty() || !insert.getSizes().empty())
      return {};
    chain.push_back(insert);
    value = insert.getDest();
  }
  if (chain.empty() || !value.getDefiningOp<tensor::EmptyOp>())
    return {};
  return {chain.rbegin(), chain.rend()};
}

void mlir::boo::flattenNestedPieces(RewriterBase &rewriter,
                                    func::FuncOp func) {
  SmallVector<tensor::InsertSliceOp> outer;
  func.walk([&](tensor::InsertSliceOp op) { outer.push_back(op); });
  for (tensor::InsertSliceOp op : outer) {
    auto sourceType = cast<RankedTensorType>(op.getSourceType());
    if (!op.hasUnitStride() || !op.getOffsets().empty() ||
        sourceType.getRank() != op.getResultType().getRank())
      continue;
    SmallVector<tensor::InsertSliceOp> chain = pieceInserts(op.getSource());
    if (chain.empty())
      continue;
    // Each piece goes into `op`'s destination directly, at its offset in
    // the pieces' tensor plus that tensor's offset in the destination.
    rewriter.setInsertionPoint(op);
    Value dest = op.getDest();
    for (tensor::InsertSliceOp piece : chain) {
      SmallVector<int64_t> offsets;
      for (auto [outerOffset, pieceOffset] :
           llvm::zip(op.getStaticOffsets(), piece.getStaticOffsets()))
        offsets.push_back(outerOffset + pieceOffset);
      dest = tensor::InsertSliceOp::create(
          rewriter, piece.getLoc(), piece.getSource(), dest,
          ValueRange{}, ValueRange{}, ValueRange{},
          rewriter.getDenseI64ArrayAttr(offsets), piece.getStaticSizesAttr(),
          piece.getStaticStridesAttr());
    }
    rewriter.replaceOp(op, dest);
    for (tensor::InsertSliceOp piece : llvm::reverse(chain))
      rewriter.eraseOp(piece);
  }
}
