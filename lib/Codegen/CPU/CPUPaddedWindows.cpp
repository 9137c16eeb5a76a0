//===- CPUPaddedWindows.cpp - Window loops that skip the padding ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "CPUPaddedWindows.h"
#include "CPUOperandLayouts.h"
#include "CPUPlaneConvs.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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
  if (!lb || !ub || step != 1 || rows.coeff <= 0)
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

bool mlir::boo::clipPaddedWindowLoops(RewriterBase &rewriter,
                                      linalg::GenericOp tile,
                                      ArrayRef<scf::ForOp> reductionLoops) {
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
      // Only where some tile can read nothing but padding.
      if (ShapedType::isDynamic(low) || ShapedType::isDynamic(high) || !size ||
          (*size > low && *size > high))
        continue;
      std::optional<PaddedRows> rows =
          matchPaddedRows(slices, dim, reductionLoops);
      if (rows)
        changed |= clipLoop(rewriter, *rows, *size, low,
                            pad.getSourceType().getDimSize(dim));
    }
  }
  return changed;
}
