//===- CPUPaddedWindows.cpp - Window loops that skip the padding ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "CPUPaddedWindows.h"
#include "CPUConvWindows.h"
#include "CPUOperandLayouts.h"
#include "CPUPlaneConvs.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

/// The rows a tile reads along one padded dim:
/// `[sum(base) + coeff * iv + constant, ... + size)`, `iv` the induction
/// variable of `loop`, the `base` values defined outside it.
struct PaddedRows {
  scf::ForOp loop;
  int64_t coeff = 1;
  int64_t constant = 0;
  SmallVector<Value> base;
};

/// `v` as `coeff * iv + constant`, `iv` the induction variable of one of
/// `loops` (directly, or through an affine.apply of it alone).
std::optional<PaddedRows> matchLoopTerm(Value v, ArrayRef<scf::ForOp> loops) {
  PaddedRows term;
  if (auto apply = v.getDefiningOp<affine::AffineApplyOp>()) {
    AffineMap map = apply.getAffineMap();
    if (map.getNumDims() != 1 || map.getNumSymbols() != 0)
      return std::nullopt;
    FailureOr<LinearExpr> lin = decomposeLinear(map.getResult(0));
    if (failed(lin) || lin->terms.size() != 1)
      return std::nullopt;
    term.coeff = lin->terms.front().second;
    term.constant = lin->constant;
    v = apply.getMapOperands().front();
  }
  for (scf::ForOp loop : loops) {
    if (loop.getInductionVar() == v) {
      term.loop = loop;
      return term;
    }
  }
  return std::nullopt;
}

/// The rows along `dim` read through `slices` (from the tile's operand to
/// the padded tensor): the sum of their offsets, one of them moved by one
/// of `loops`, the others constants or values defined outside that loop.
std::optional<PaddedRows>
matchPaddedRows(ArrayRef<tensor::ExtractSliceOp> slices, unsigned dim,
                ArrayRef<scf::ForOp> loops) {
  std::optional<PaddedRows> rows;
  int64_t constant = 0;
  SmallVector<Value> base;
  for (tensor::ExtractSliceOp slice : slices) {
    OpFoldResult offset = slice.getMixedOffsets()[dim];
    if (std::optional<int64_t> c = getConstantIntValue(offset)) {
      constant += *c;
      continue;
    }
    Value v = cast<Value>(offset);
    if (std::optional<PaddedRows> term = matchLoopTerm(v, loops)) {
      if (rows)
        return std::nullopt;
      rows = term;
      continue;
    }
    base.push_back(v);
  }
  if (!rows || llvm::any_of(base, [&](Value v) {
        return !rows->loop.isDefinedOutsideOfLoop(v);
      }))
    return std::nullopt;
  rows->constant += constant;
  rows->base = std::move(base);
  return rows;
}

/// Narrows `rows.loop` to the iterations whose `size` rows reach the
/// unpadded rows `[low, low + extent)`. Returns whether its bounds changed.
bool clipLoop(RewriterBase &rewriter, const PaddedRows &rows, int64_t size,
              int64_t low, int64_t extent) {
  scf::ForOp loop = rows.loop;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || step != 1)
    return false;
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr start = getAffineConstantExpr(rows.constant, ctx);
  for (unsigned i = 0; i < rows.base.size(); ++i)
    start = start + getAffineSymbolExpr(i, ctx);
  // The first row read is `start + coeff * iv`: the iteration reads the
  // image when `start + coeff * iv + size > low` and
  // `start + coeff * iv < low + extent`.
  AffineExpr first = (low - size + 1 - start).ceilDiv(rows.coeff);
  AffineExpr end = (low + extent - start).ceilDiv(rows.coeff);
  unsigned numSymbols = rows.base.size();
  auto mapOf = [&](int64_t bound, AffineExpr e) {
    return AffineMap::get(0, numSymbols, {getAffineConstantExpr(bound, ctx), e},
                          ctx);
  };
  SmallVector<OpFoldResult> operands(rows.base.begin(), rows.base.end());
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  OpFoldResult newLb = affine::makeComposedFoldedAffineMax(
      rewriter, loc, mapOf(*lb, first), operands);
  OpFoldResult newUb = affine::makeComposedFoldedAffineMin(
      rewriter, loc, mapOf(*ub, end), operands);
  if (getConstantIntValue(newLb) == lb && getConstantIntValue(newUb) == ub)
    return false;
  Value lbValue = getValueOrCreateConstantIndexOp(rewriter, loc, newLb);
  Value ubValue = getValueOrCreateConstantIndexOp(rewriter, loc, newUb);
  rewriter.modifyOpInPlace(loop, [&] {
    loop.setLowerBound(lbValue);
    loop.setUpperBound(ubValue);
  });
  return true;
}

/// The zero `tensor.pad` `v` is read from through unit-stride,
/// rank-preserving slices, which are appended to `slices` (innermost
/// first); else null.
tensor::PadOp padBehindSlices(Value v,
                              SmallVectorImpl<tensor::ExtractSliceOp> &slices) {
  while (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (slice.getSourceType().getRank() != slice.getResultType().getRank() ||
        !llvm::all_of(slice.getMixedStrides(),
                      [](OpFoldResult s) { return isConstantIntValue(s, 1); }))
      return nullptr;
    slices.push_back(slice);
    v = slice.getSource();
  }
  auto pad = v.getDefiningOp<tensor::PadOp>();
  if (!pad || slices.empty() || !pad.getConstantPaddingValue() ||
      !matchPattern(pad.getConstantPaddingValue(), m_AnyZeroFloat()) ||
      !pad.getSourceType().hasStaticShape())
    return nullptr;
  return pad;
}

} // namespace

/// The tile `tile`'s positions along padded dim `dim` of operand
/// `operand`: its one loop of extent > 1 in that map result (`s * o + c0`,
/// the other loops of extent 1), as the dim of the tile's accumulator
/// (its output's dims of extent > 1, in order) it is, its stride and
/// extent, and c0.
static std::optional<PaddedTileRows>
matchTileRows(linalg::GenericOp tile, OpOperand *operand, unsigned dim) {
  SmallVector<int64_t> ranges = tile.getStaticLoopRanges();
  FailureOr<LinearExpr> lin =
      decomposeLinear(tile.getMatchingIndexingMap(operand).getResult(dim));
  if (failed(lin))
    return std::nullopt;
  PaddedTileRows rows;
  std::optional<unsigned> loop;
  for (auto [d, coeff] : lin->terms) {
    if (ranges[d] == 1)
      continue;
    if (loop)
      return std::nullopt;
    loop = d;
    rows.stride = coeff;
    rows.positions = ranges[d];
  }
  if (!loop)
    return std::nullopt;
  rows.constant = lin->constant;
  AffineMap outMap = tile.getMatchingIndexingMap(tile.getDpsInitOperand(0));
  auto outType = cast<RankedTensorType>(tile.getDpsInits()[0].getType());
  unsigned accDim = 0;
  for (auto [i, e] : llvm::enumerate(outMap.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e); d && d.getPosition() == *loop) {
      rows.accDim = accDim;
      return rows;
    }
    if (outType.getDimSize(i) != 1)
      ++accDim;
  }
  return std::nullopt;
}

bool mlir::boo::clipPaddedWindowLoops(
    RewriterBase &rewriter, linalg::GenericOp tile,
    ArrayRef<scf::ForOp> reductionLoops,
    SmallVectorImpl<PaddedTileRows> &partial) {
  if (reductionLoops.empty() || !isMultiplyAddBody(tile))
    return false;
  bool changed = false;
  for (OpOperand *operand : tile.getDpsInputOperands()) {
    SmallVector<tensor::ExtractSliceOp> slices;
    tensor::PadOp pad = padBehindSlices(operand->get(), slices);
    if (!pad)
      continue;
    ArrayRef<int64_t> lows = pad.getStaticLow(), highs = pad.getStaticHigh();
    for (unsigned dim = 0; dim < lows.size(); ++dim) {
      int64_t low = lows[dim], high = highs[dim];
      std::optional<int64_t> size =
          getConstantIntValue(slices.front().getMixedSizes()[dim]);
      if (ShapedType::isDynamic(low) || ShapedType::isDynamic(high) || !size ||
          (low == 0 && high == 0))
        continue;
      std::optional<PaddedRows> rows =
          matchPaddedRows(slices, dim, reductionLoops);
      if (!rows)
        continue;
      int64_t extent = pad.getSourceType().getDimSize(dim);
      // Where some tile can read nothing but padding, the loop skips it;
      // else some of a tile's positions may read padding, the others not.
      if (*size <= low || *size <= high) {
        changed |= clipLoop(rewriter, *rows, *size, low, extent);
        continue;
      }
      std::optional<PaddedTileRows> tileRows =
          matchTileRows(tile, operand, dim);
      if (!tileRows)
        continue;
      tileRows->iv = rows->loop.getInductionVar();
      tileRows->coeff = rows->coeff;
      tileRows->constant += rows->constant;
      tileRows->base = rows->base;
      tileRows->low = low;
      tileRows->high = high;
      tileRows->extent = extent;
      partial.push_back(*tileRows);
    }
  }
  return changed;
}

/// The number of positions `i` in [0, positions) from the first (`fromEnd`:
/// the last) on whose padded row `start + stride * i` lies before (after)
/// the unpadded rows, as an affine map of `start` (symbol 0).
static AffineMap paddedPositionsMap(const PaddedTileRows &rows, bool fromEnd,
                                    MLIRContext *ctx) {
  AffineExpr start = getAffineSymbolExpr(0, ctx);
  AffineExpr count = fromEnd ? (start + rows.stride * (rows.positions - 1) -
                                (rows.low + rows.extent) + 1)
                                   .ceilDiv(rows.stride)
                             : (rows.low - start).ceilDiv(rows.stride);
  return AffineMap::get(0, 1, {count, getAffineConstantExpr(0, ctx)}, ctx);
}

/// The most positions of a tile that can read padding at one end.
static int64_t maxPaddedPositions(const PaddedTileRows &rows, int64_t pad) {
  return std::min<int64_t>(llvm::divideCeilSigned(pad, rows.stride),
                           rows.positions - 1);
}

/// The most variants (positions left out at one end) splitPaddedRows
/// makes of one contraction.
constexpr int64_t kMaxRowVariants = 8;

/// splitPaddedRows applies where the padding of a dim is at least this
/// part of its unpadded extent (1/8: a 3x3 convolution at 14x14 and 7x7,
/// not at 28x28, which would compile its contraction three times to
/// save 2.4% of its multiply-adds).
constexpr int64_t kMinPaddedFraction = 8;

/// `contract` over `kept` of its positions from `first` on (dim
/// `imageDim` of input `imageOperand`, dim `accDim` of the accumulator),
/// its inputs looked up in `mapping`, the result inserted into the
/// accumulator.
static Value contractPositions(RewriterBase &rewriter,
                               vector::ContractionOp contract,
                               IRMapping &mapping, unsigned imageOperand,
                               unsigned imageDim, unsigned accDim,
                               int64_t first, int64_t kept) {
  Location loc = contract.getLoc();
  auto slice = [&](Value v, unsigned dim) {
    auto type = cast<VectorType>(v.getType());
    SmallVector<int64_t> offsets(dim + 1, 0), sizes, strides(dim + 1, 1);
    for (unsigned i = 0; i <= dim; ++i)
      sizes.push_back(type.getDimSize(i));
    offsets[dim] = first;
    sizes[dim] = kept;
    return vector::ExtractStridedSliceOp::create(rewriter, loc, v, offsets,
                                                 sizes, strides)
        .getResult();
  };
  SmallVector<Value> inputs = {mapping.lookupOrDefault(contract.getLhs()),
                               mapping.lookupOrDefault(contract.getRhs())};
  inputs[imageOperand] = slice(inputs[imageOperand], imageDim);
  Value acc = contract.getAcc();
  Value part = vector::ContractionOp::create(
      rewriter, loc, inputs[0], inputs[1], slice(acc, accDim),
      contract.getIndexingMaps(), contract.getIteratorTypes(),
      contract.getKind());
  SmallVector<int64_t> offsets(cast<VectorType>(acc.getType()).getRank(), 0),
      strides(cast<VectorType>(part.getType()).getRank(), 1);
  offsets[accDim] = first;
  return vector::InsertStridedSliceOp::create(rewriter, loc, part, acc, offsets,
                                              strides);
}

bool mlir::boo::splitPaddedRows(RewriterBase &rewriter,
                                vector::ContractionOp contract,
                                const PaddedTileRows &rows) {
  auto accType = dyn_cast<VectorType>(contract.getAccType());
  if (!accType || rows.accDim >= accType.getRank() ||
      accType.getDimSize(rows.accDim) != rows.positions)
    return false;
  // The iteration dim of the positions, and the one input that has it.
  SmallVector<AffineMap> maps = contract.getIndexingMapsArray();
  auto accDimExpr = dyn_cast<AffineDimExpr>(maps[2].getResult(rows.accDim));
  if (!accDimExpr)
    return false;
  std::optional<unsigned> imageOperand, imageDim;
  for (unsigned o = 0; o < 2; ++o)
    for (auto [i, e] : llvm::enumerate(maps[o].getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(e);
          d && d.getPosition() == accDimExpr.getPosition()) {
        if (imageOperand)
          return false;
        imageOperand = o;
        imageDim = i;
      }
  if (!imageOperand)
    return false;
  // Each case is another copy of the contraction to compile: only where
  // the padding is a large part of the rows (a 3x3 convolution at 14x14
  // multiplies 2 padding columns of its 42 window columns per row, at
  // 56x56 2 of 168).
  if ((rows.low + rows.high) * kMinPaddedFraction < rows.extent)
    return false;
  int64_t maxLeft = maxPaddedPositions(rows, rows.low);
  int64_t maxRight = maxPaddedPositions(rows, rows.high);
  if (maxLeft + maxRight > kMaxRowVariants)
    return false;

  MLIRContext *ctx = rewriter.getContext();
  Location loc = contract.getLoc();
  rewriter.setInsertionPoint(contract);
  // The padded row of position 0.
  AffineExpr startExpr = getAffineConstantExpr(rows.constant, ctx) +
                         getAffineSymbolExpr(0, ctx) * rows.coeff;
  SmallVector<OpFoldResult> operands = {rows.iv};
  for (auto [i, v] : llvm::enumerate(rows.base)) {
    startExpr = startExpr + getAffineSymbolExpr(i + 1, ctx);
    operands.push_back(v);
  }
  OpFoldResult start = affine::makeComposedFoldedAffineApply(
      rewriter, loc, AffineMap::get(0, operands.size(), startExpr, ctx),
      operands);
  // The positions reading padding at each end, capped one past the most
  // the cases below cover.
  auto padded = [&](bool fromEnd, int64_t cap) {
    OpFoldResult count = affine::makeComposedFoldedAffineMax(
        rewriter, loc, paddedPositionsMap(rows, fromEnd, ctx), {start});
    return getValueOrCreateConstantIndexOp(
        rewriter, loc,
        affine::makeComposedFoldedAffineMin(
            rewriter, loc,
            AffineMap::get(
                1, 0,
                {getAffineDimExpr(0, ctx), getAffineConstantExpr(cap, ctx)},
                ctx),
            {count}));
  };
  Value left = padded(false, maxLeft + 1);
  Value right = padded(true, maxRight + 1);
  // Case l * (maxRight + 2) + r leaves out l positions at the start and r
  // at the end; the default (none, or more than the cases cover) is the
  // whole contraction.
  int64_t pitch = maxRight + 2;
  Value caseIndex = affine::AffineApplyOp::create(
      rewriter, loc,
      AffineMap::get(
          2, 0, getAffineDimExpr(0, ctx) * pitch + getAffineDimExpr(1, ctx),
          ctx),
      ValueRange{left, right});
  SmallVector<int64_t> cases;
  // Positions at both ends read padding together only where a tile is
  // wider than the image: those iterations take the default.
  for (int64_t l = 0; l <= maxLeft; ++l)
    for (int64_t r = 0; r <= maxRight; ++r)
      if ((l == 0) != (r == 0))
        cases.push_back(l * pitch + r);
  auto switchOp = scf::IndexSwitchOp::create(rewriter, loc, TypeRange{accType},
                                             caseIndex, cases, cases.size());
  // Each region reads the inputs itself (a filter tile read before the
  // switch would be live across it, in registers).
  auto cloneInputs = [&](IRMapping &mapping) {
    for (Value in : {contract.getLhs(), contract.getRhs()})
      if (Operation *def = in.getDefiningOp();
          def && def->getBlock() == contract->getBlock() &&
          isa<vector::TransferReadOp>(def) && def->hasOneUse())
        rewriter.clone(*def, mapping);
  };
  {
    rewriter.createBlock(&switchOp.getDefaultRegion());
    IRMapping mapping;
    cloneInputs(mapping);
    Operation *whole = rewriter.clone(*contract, mapping);
    scf::YieldOp::create(rewriter, loc, whole->getResult(0));
  }
  for (auto [region, c] : llvm::zip(switchOp.getCaseRegions(), cases)) {
    rewriter.createBlock(&region);
    IRMapping mapping;
    cloneInputs(mapping);
    int64_t l = c / pitch, r = c % pitch;
    Value merged =
        contractPositions(rewriter, contract, mapping, *imageOperand, *imageDim,
                          rows.accDim, l, rows.positions - l - r);
    scf::YieldOp::create(rewriter, loc, merged);
  }
  rewriter.replaceOp(contract, switchOp.getResults());
  return true;
}

/// Marks the write of a vectorized tile whose contraction splitPaddedRows
/// splits once it is formed (the index of its PaddedTileRows).
constexpr llvm::StringLiteral kPaddedRowsAttr = "boo.padded_rows";

void mlir::boo::markPaddedRows(vector::TransferWriteOp write, unsigned index) {
  write->setAttr(
      kPaddedRowsAttr,
      IntegerAttr::get(IntegerType::get(write.getContext(), 64), index));
}

void mlir::boo::splitMarkedPaddedRows(RewriterBase &rewriter, Operation *root,
                                      ArrayRef<PaddedTileRows> rows) {
  root->walk([&](vector::TransferWriteOp write) {
    auto index = write->getAttrOfType<IntegerAttr>(kPaddedRowsAttr);
    if (!index)
      return;
    write->removeAttr(kPaddedRowsAttr);
    // The accumulator's dims are the tile's (PaddedTileRows::accDim).
    if (!write.getPermutationMap().isMinorIdentity())
      return;
    if (auto contract =
            write.getVector().getDefiningOp<vector::ContractionOp>())
      (void)splitPaddedRows(rewriter, contract, rows[index.getInt()]);
  });
}
