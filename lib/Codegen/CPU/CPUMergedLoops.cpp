//===- CPUMergedLoops.cpp - Contractions over merged output loops ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// mergeInnerOutputLoops (CPUOperandLayouts.h): a stride-1 1x1
// channels-first convolution reads `oh` and `ow` as one contiguous run of
// positions in the image and in the result, so the two loops merge into
// one and the convolution is a matrix product along the image's rows. A
// strided 1x1 convolution does after its image is subsampled. A merged
// extent that is no multiple of the vector tile (14x14: 196) is computed
// by two such products, over its leading multiple and over its last tile
// (overlapping), or padded.
//
//===----------------------------------------------------------------------===//

#include "CPUOperandLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

/// Where an operand reads the merged loops: its result for `a`, followed
/// by `b`'s, and the coefficients of `a` and `b` there (1 and 1 but for a
/// strided input).
struct Pair {
  unsigned pos;
  int64_t strideA, strideB;
};

/// Where operand map `map` reads loops `a` and `b`; std::nullopt when it
/// reads neither; failure when it reads them any other way than as two
/// adjacent results, `s*a` then `t*b`. Terms of loops of extent 1 are
/// ignored.
FailureOr<std::optional<Pair>>
adjacentPair(AffineMap map, ArrayRef<int64_t> ranges, unsigned a, unsigned b) {
  std::optional<unsigned> posA, posB;
  int64_t strideA = 1, strideB = 1;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    if (!e.isFunctionOfDim(a) && !e.isFunctionOfDim(b))
      continue;
    FailureOr<LinearExpr> lin = decomposeLinear(e);
    if (failed(lin) || lin->constant != 0)
      return failure();
    std::optional<unsigned> live;
    for (auto [d, c] : lin->terms) {
      if (ranges[d] == 1)
        continue;
      if (live || (d != a && d != b))
        return failure();
      live = d;
      (d == a ? strideA : strideB) = c;
    }
    (*live == a ? posA : posB) = i;
  }
  if (!posA && !posB)
    return std::optional<Pair>();
  if (!posA || !posB || *posB != *posA + 1)
    return failure();
  return std::optional<Pair>(Pair{*posA, strideA, strideB});
}

/// The pairs of `op`'s operands (see adjacentPair), failure when one reads
/// the loops otherwise or its inner dim is not whole (`ranges[b]`, after
/// subsampling with the pair's strides).
FailureOr<SmallVector<std::optional<Pair>>>
collectPairs(linalg::GenericOp op, ArrayRef<int64_t> ranges, unsigned a,
             unsigned b) {
  SmallVector<std::optional<Pair>> pairs;
  for (OpOperand &operand : op->getOpOperands()) {
    FailureOr<std::optional<Pair>> pair =
        adjacentPair(op.getMatchingIndexingMap(&operand), ranges, a, b);
    if (failed(pair))
      return failure();
    auto type = cast<RankedTensorType>(operand.get().getType());
    if (*pair && llvm::divideCeil(type.getDimSize((*pair)->pos + 1),
                                  (*pair)->strideB) != ranges[b])
      return failure();
    pairs.push_back(*pair);
  }
  return pairs;
}

/// `op` with each input that reads the merged loops with strides (a
/// stride-2 1x1 convolution's image, `2*oh`, `2*ow`) replaced by its
/// subsample, copied by a generic appended to `copies`: that input then
/// reads `oh` and `ow` plainly. Returns `op` when no input has strides.
linalg::GenericOp
subsampleStridedInputs(RewriterBase &rewriter, linalg::GenericOp op,
                       ArrayRef<std::optional<Pair>> pairs, unsigned a,
                       unsigned b, SmallVectorImpl<linalg::GenericOp> &copies) {
  if (llvm::none_of(pairs, [](const std::optional<Pair> &pair) {
        return pair && (pair->strideA != 1 || pair->strideB != 1);
      }))
    return op;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (auto [i, operand] : llvm::enumerate(op.getDpsInputOperands())) {
    const std::optional<Pair> &pair = pairs[i];
    if (!pair || (pair->strideA == 1 && pair->strideB == 1)) {
      inputs.push_back(operand->get());
      continue;
    }
    auto type = cast<RankedTensorType>(operand->get().getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[pair->pos] = ranges[a];
    shape[pair->pos + 1] = ranges[b];
    unsigned rank = shape.size();
    SmallVector<AffineExpr> read;
    for (unsigned d = 0; d < rank; ++d)
      read.push_back(getAffineDimExpr(d, ctx) * (d == pair->pos ? pair->strideA
                                                 : d == pair->pos + 1
                                                     ? pair->strideB
                                                     : 1));
    linalg::GenericOp copy = copyThrough(
        rewriter, loc, operand->get(), AffineMap::get(rank, 0, read, ctx),
        RankedTensorType::get(shape, type.getElementType()));
    copies.push_back(copy);
    inputs.push_back(copy.getResult(0));
    SmallVector<AffineExpr> results(maps[i].getResults());
    results[pair->pos] = getAffineDimExpr(a, ctx);
    results[pair->pos + 1] = getAffineDimExpr(b, ctx);
    maps[i] = AffineMap::get(maps[i].getNumDims(), 0, results, ctx);
  }
  auto subsampledOp = linalg::GenericOp::create(
      rewriter, loc, op->getResultTypes(), inputs, op.getDpsInits(), maps,
      op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), subsampledOp.getRegion(),
                              subsampledOp.getRegion().begin());
  rewriter.replaceOp(op, subsampledOp->getResults());
  return subsampledOp;
}

/// `value` with the dims of `groups` collapsed, and its dim `pos` (the
/// merged one) padded with zeros up to `extent`. For the initial value, a
/// fill is made in that shape instead when it is one.
Value collapseOperand(RewriterBase &rewriter, Location loc, Value value,
                      ArrayRef<ReassociationIndices> groups, unsigned pos,
                      int64_t extent, bool isInit,
                      SmallVectorImpl<linalg::GenericOp> &copies) {
  auto type = cast<RankedTensorType>(value.getType());
  RankedTensorType collapsedType =
      tensor::CollapseShapeOp::inferCollapsedType(type, groups);
  SmallVector<int64_t> shape(collapsedType.getShape());
  shape[pos] = extent;
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  if (isInit)
    if (Value fill = refill(rewriter, value, paddedType, copies))
      return fill;
  Value collapsed =
      tensor::CollapseShapeOp::create(rewriter, loc, value, groups);
  int64_t missing = extent - collapsedType.getDimSize(pos);
  if (missing == 0)
    return collapsed;
  SmallVector<OpFoldResult> low(shape.size(), rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> high(low);
  high[pos] = rewriter.getIndexAttr(missing);
  Value zero = arith::ConstantOp::create(
      rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
  return tensor::PadOp::create(rewriter, loc, paddedType, collapsed, low, high,
                               zero);
}

/// The first `type.getDimSize(d)` elements along each dim of `value` (the
/// result without its padding), copied by a generic appended to `copies`.
Value copyLeading(RewriterBase &rewriter, Location loc, Value value,
                  RankedTensorType type,
                  SmallVectorImpl<linalg::GenericOp> &copies) {
  unsigned rank = type.getRank();
  SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(rank, rewriter.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape())
    sizes.push_back(rewriter.getIndexAttr(size));
  Value slice = tensor::ExtractSliceOp::create(rewriter, loc, type, value,
                                               zeros, sizes, ones);
  linalg::GenericOp copy = copyThrough(
      rewriter, loc, slice, rewriter.getMultiDimIdentityMap(rank), type);
  copies.push_back(copy);
  return copy.getResult(0);
}

/// Puts the factors of `op`'s products in the order filter, image (the
/// input with the merged loop, `merged[i]` for input i): the
/// contraction's rows are then the filter's broadcast scalars and its
/// vectors run along the image, as the outer-product lowering wants (the
/// other order lowers to shuffles).
void putImageFactorLast(RewriterBase &rewriter, linalg::GenericOp op,
                        ArrayRef<std::optional<unsigned>> merged) {
  auto input = [&](Value v) -> std::optional<unsigned> {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      v = ext.getIn();
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getArgNumber() >= op.getNumDpsInputs())
      return std::nullopt;
    return arg.getArgNumber();
  };
  op.getBody()->walk([&](arith::MulFOp mul) {
    std::optional<unsigned> lhs = input(mul.getLhs());
    std::optional<unsigned> rhs = input(mul.getRhs());
    if (lhs && rhs && merged[*lhs] && !merged[*rhs])
      rewriter.modifyOpInPlace(
          mul, [&] { mul->setOperands({mul.getRhs(), mul.getLhs()}); });
  });
}

/// The generic of `op`'s body over `operands` (the last one its initial
/// value) with `maps` and `iters`, the factors put in order; its body
/// moved out of `op` when `inlineRegion`, else copied.
linalg::GenericOp buildMerged(RewriterBase &rewriter, linalg::GenericOp op,
                              ArrayRef<Value> operands,
                              ArrayRef<AffineMap> maps,
                              ArrayRef<utils::IteratorType> iters,
                              ArrayRef<std::optional<unsigned>> pairs,
                              bool inlineRegion) {
  Value init = operands.back();
  auto merged = linalg::GenericOp::create(
      rewriter, op.getLoc(), TypeRange{init.getType()}, operands.drop_back(),
      ValueRange{init}, maps, iters);
  if (inlineRegion)
    rewriter.inlineRegionBefore(op.getRegion(), merged.getRegion(),
                                merged.getRegion().begin());
  else
    rewriter.cloneRegionBefore(op.getRegion(), merged.getRegion(),
                               merged.getRegion().begin());
  putImageFactorLast(rewriter, merged, pairs);
  return merged;
}

/// The leading piece of a merged extent split into two: a multiple of
/// `2 * lanes` (the widest vector tile) where the extent has one, else of
/// `lanes`.
int64_t leadingPiece(int64_t extent, int64_t lanes) {
  return extent > 2 * lanes ? extent - extent % (2 * lanes)
                            : extent - extent % lanes;
}

/// The merged generic of `op` computed in two pieces (computeInPieces):
/// over the leading piece of the merged extent (leadingPiece), then over
/// its last `lanes` positions, or `2 * lanes` where more than `lanes` are
/// left (overlapping the first piece where fewer are left), each reading
/// slices of the collapsed inputs (`operands`, whose last one is `op`'s
/// initial value, a fill, uncollapsed) in place, its factors put in
/// order. Returns the first piece and the tensor of `outType` both are
/// inserted into; the second piece goes to `tails`.
std::pair<linalg::GenericOp, Value> buildOverlappingPieces(
    RewriterBase &rewriter, linalg::GenericOp op, ArrayRef<Value> operands,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iters,
    ArrayRef<std::optional<unsigned>> pairs, RankedTensorType outType,
    int64_t lanes, SmallVectorImpl<linalg::GenericOp> &copies,
    SmallVectorImpl<linalg::GenericOp> &tails) {
  int64_t extent = outType.getDimSize(*pairs.back());
  int64_t lead = leadingPiece(extent, lanes);
  int64_t last = extent - lead <= lanes ? lanes : 2 * lanes;
  auto [pieces, result] = computeInPieces(
      rewriter, op, operands.drop_back(), operands.back(), outType, pairs, maps,
      iters, {{0, lead}, {extent - last, last}}, copies);
  for (linalg::GenericOp piece : pieces)
    putImageFactorLast(rewriter, piece, pairs);
  tails.push_back(pieces.back());
  return {pieces.front(), result};
}

} // namespace

linalg::GenericOp
mlir::boo::mergeInnerOutputLoops(RewriterBase &rewriter, linalg::GenericOp op,
                                 int64_t lanes, bool splitExtents,
                                 SmallVectorImpl<linalg::GenericOp> &copies,
                                 SmallVectorImpl<linalg::GenericOp> &tails) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  unsigned rank = outMap.getNumResults();
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1 ||
      op.hasIndexSemantics() || llvm::any_of(ranges, ShapedType::isDynamic) ||
      !outMap.isProjectedPermutation() || rank < 2)
    return op;
  unsigned a = outMap.getDimPosition(rank - 2);
  unsigned b = outMap.getDimPosition(rank - 1);
  int64_t extent = ranges[a] * ranges[b];
  int64_t padded = llvm::alignTo(extent, lanes);
  if (ranges[a] == 1 || ranges[b] == 1 || padded * 8 > extent * 9)
    return op;
  // Each operand with the loops, and where their results are; inputs
  // read with strides are subsampled first.
  FailureOr<SmallVector<std::optional<Pair>>> found =
      collectPairs(op, ranges, a, b);
  if (failed(found) || !found->back() || found->back()->strideA != 1 ||
      found->back()->strideB != 1)
    return op;
  // Subsampling keeps each pair's position; only its strides become 1.
  op = subsampleStridedInputs(rewriter, op, *found, a, b, copies);
  init = op.getDpsInitOperand(0);
  // With a fill as the initial value, an extent of more than `lanes` that
  // is no multiple of them is computed in two overlapping pieces instead
  // of padded; one that is an odd multiple of them (28x28: 784, 49 x 16)
  // in two pieces too, so that all but its last `lanes` positions take the
  // widest vector tile (on cpu:1, ResNet-50's 512->128 layer went from
  // 0.46 to 0.42 ms).
  bool split = splitExtents && leadingPiece(extent, lanes) != extent &&
               extent > lanes && isRefillable(init->get());
  SmallVector<std::optional<unsigned>> pairs;
  for (const std::optional<Pair> &pair : *found)
    pairs.push_back(pair ? std::optional<unsigned>(pair->pos) : std::nullopt);
  // The new loops: b is gone, a is the merged loop.
  MLIRContext *ctx = op.getContext();
  unsigned numLoops = op.getNumLoops();
  SmallVector<AffineExpr> renumber;
  for (unsigned d = 0; d < numLoops; ++d)
    renumber.push_back(getAffineDimExpr(d < b ? d : d - 1, ctx));
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  SmallVector<AffineMap> maps;
  SmallVector<Value> operands;
  SmallVector<ReassociationIndices> outGroups;
  for (auto [operand, pair] : llvm::zip(op->getOpOperands(), pairs)) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<AffineExpr> results;
    SmallVector<ReassociationIndices> groups;
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      if (pair && i == *pair + 1) {
        groups.back().push_back(i);
        continue;
      }
      groups.push_back({int64_t(i)});
      results.push_back(pair && i == *pair ? renumber[a]
                                           : e.replaceDims(renumber));
    }
    maps.push_back(AffineMap::get(numLoops - 1, 0, results, ctx));
    if (!pair) {
      operands.push_back(operand.get());
      continue;
    }
    if (&operand == init)
      outGroups = groups;
    if (&operand == init && split) {
      operands.push_back(operand.get()); // each piece has its own fill
      continue;
    }
    operands.push_back(collapseOperand(rewriter, loc, operand.get(), groups,
                                       *pair, split ? extent : padded,
                                       &operand == init, copies));
  }
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  iters.erase(iters.begin() + b);
  auto outType = tensor::CollapseShapeOp::inferCollapsedType(
      cast<RankedTensorType>(init->get().getType()), outGroups);
  Value result;
  linalg::GenericOp mergedOp;
  if (split) {
    std::tie(mergedOp, result) =
        buildOverlappingPieces(rewriter, op, operands, maps, iters, pairs,
                               outType, lanes, copies, tails);
  } else {
    mergedOp = buildMerged(rewriter, op, operands, maps, iters, pairs,
                           /*inlineRegion=*/true);
    result = mergedOp.getResult(0);
    if (padded != extent)
      result = copyLeading(rewriter, loc, result, outType, copies);
  }
  rewriter.replaceOp(
      op, tensor::ExpandShapeOp::create(
              rewriter, loc, op.getResult(0).getType(), result, outGroups));
  return mergedOp;
}
