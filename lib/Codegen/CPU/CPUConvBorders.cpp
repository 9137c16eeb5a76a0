//===- CPUConvBorders.cpp - Convolutions without padded copies ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "CPUConvBorders.h"
#include "CPUOperandLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

/// A map result `s * o + d * k + c`: the output loop `o` (parallel), the
/// window loop `k` (reduction, absent for a 1-wide window) and constant.
struct Window {
  unsigned resultPos;
  unsigned outLoop;
  int64_t stride = 1;
  std::optional<unsigned> windowLoop;
  int64_t dilation = 0;
  int64_t constant = 0;
  /// The interior: output positions whose window reads no padding.
  int64_t lo = 0, hi = 0;
};

/// The bytes of a static tensor type (of anything else: the most there is).
int64_t bytesOf(Type type) {
  return staticTensorBytes(type).value_or(std::numeric_limits<int64_t>::max());
}

} // namespace

/// Multiply-adds per element of the padded input below which a strided
/// convolution is peeled whatever its size: a stride-2 depthwise layer
/// does about 2 (MobileNetV2's 14x14x576 one went from 0.020 to 0.013 ms
/// on cpu:1), the 3x3 stem 71, the 7x7 stem 742 (which took 4 ms peeled
/// against 2.2 ms).
constexpr int64_t kMaxCopyBoundWork = 16;

bool mlir::boo::peelPaddedBorders(RewriterBase &rewriter, linalg::GenericOp op,
                                  int64_t maxOtherInputBytes,
                                  int64_t minInputBytes,
                                  SmallVectorImpl<linalg::GenericOp> &pieces) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0 ||
      op.hasIndexSemantics() || !op.hasPureTensorSemantics())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation())
    return false;
  // The one padded input; every other input small and not indexed by an
  // output loop of a padded window.
  OpOperand *windowed = nullptr;
  tensor::PadOp pad;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    if (auto p = operand->get().getDefiningOp<tensor::PadOp>()) {
      if (windowed)
        return false;
      windowed = operand;
      pad = p;
    }
  }
  if (!windowed || !pad.getConstantPaddingValue() ||
      !pad.getResultType().hasStaticShape() ||
      !pad.getSourceType().hasStaticShape() ||
      !matchPattern(pad.getConstantPaddingValue(), m_AnyZeroFloat()))
    return false;
  SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
  if (llvm::any_of(llvm::concat<int64_t>(low, high), ShapedType::isDynamic))
    return false;
  AffineMap inMap = op.getMatchingIndexingMap(windowed);
  // Channels-last: the input's innermost dim (of those longer than 1) is
  // a plain loop, so the interior reads it as it is; a channels-first
  // input (a window innermost) is copied into channels-last anyway.
  for (int64_t pos = inMap.getNumResults() - 1; pos >= 0; --pos) {
    if (pad.getResultType().getDimSize(pos) == 1)
      continue;
    if (!isa<AffineDimExpr>(inMap.getResult(pos)))
      return false;
    break;
  }
  SmallVector<Window> windows;
  for (auto [pos, e] : llvm::enumerate(inMap.getResults())) {
    if (low[pos] == 0 && high[pos] == 0)
      continue;
    FailureOr<LinearExpr> lin = decomposeLinear(e);
    if (failed(lin) || lin->terms.empty() || lin->terms.size() > 2)
      return false;
    Window w;
    w.resultPos = pos;
    w.constant = lin->constant;
    bool haveOut = false;
    for (auto [loop, coeff] : lin->terms) {
      bool parallel =
          op.getIteratorTypesArray()[loop] == utils::IteratorType::parallel;
      if (parallel && !haveOut) {
        w.outLoop = loop;
        w.stride = coeff;
        haveOut = true;
      } else if (!parallel && !w.windowLoop) {
        w.windowLoop = loop;
        w.dilation = coeff;
      } else {
        return false;
      }
    }
    if (!haveOut || !outMap.isFunctionOfDim(w.outLoop))
      return false;
    int64_t extent = pad.getSourceType().getDimSize(pos);
    int64_t reach = w.windowLoop ? w.dilation * (ranges[*w.windowLoop] - 1) : 0;
    w.lo = std::max<int64_t>(
        0, llvm::divideCeilSigned(low[pos] - w.constant, w.stride));
    w.hi = std::min<int64_t>(
        ranges[w.outLoop],
        llvm::divideFloorSigned(low[pos] + extent - 1 - w.constant - reach,
                                w.stride) +
            1);
    if (w.hi <= w.lo)
      return false;
    windows.push_back(w);
  }
  if (windows.empty())
    return false;
  // A strided convolution with few multiply-adds per input element (a
  // stride-2 depthwise one: 9 taps for a quarter of the positions) spends
  // more on its padded copy than on its arithmetic, whatever its size;
  // otherwise a small input is cheaper copied than peeled into pieces.
  bool strided =
      llvm::any_of(windows, [](const Window &w) { return w.stride > 1; });
  int64_t work = 1;
  for (int64_t range : ranges)
    work *= range;
  bool copyBound = strided && work < kMaxCopyBoundWork *
                                         pad.getResultType().getNumElements();
  // A narrower float input is promoted to f32 before the contraction
  // (promoteInputsToF32): its padded copy is copied again at twice the
  // size. The bf16 56x56x144 layer's padded image (969 KB in bf16) was
  // copied, promoted and then read.
  RankedTensorType padType = pad.getResultType();
  int64_t copiedBytes = bytesOf(padType);
  if (auto floatType = dyn_cast<FloatType>(padType.getElementType());
      floatType && floatType.getWidth() < 32)
    copiedBytes = padType.getNumElements() * 4;
  if (!copyBound && copiedBytes < minInputBytes)
    return false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    if (operand == windowed)
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    // A filter: indexed by every window's tap loop, by no output loop of
    // one (not a weight gradient, whose windows slide over its taps).
    if (bytesOf(operand->get().getType()) > maxOtherInputBytes ||
        llvm::any_of(windows, [&](const Window &w) {
          return map.isFunctionOfDim(w.outLoop) || !w.windowLoop ||
                 !map.isFunctionOfDim(*w.windowLoop);
        }))
      return false;
  }

  // The pieces: for each window in turn, its low and high border (earlier
  // windows over their interior, later ones whole), then the interior.
  using Region = SmallVector<std::pair<int64_t, int64_t>>; // per window
  SmallVector<Region> regions;
  Region current;
  for (const Window &w : windows)
    current.push_back({0, ranges[w.outLoop]});
  for (auto [i, w] : llvm::enumerate(windows)) {
    for (auto [a, b] : {std::pair<int64_t, int64_t>{0, w.lo},
                        std::pair<int64_t, int64_t>{w.hi, ranges[w.outLoop]}}) {
      if (a >= b)
        continue;
      Region r = current;
      r[i] = {a, b};
      regions.push_back(r);
    }
    current[i] = {w.lo, w.hi};
  }
  regions.push_back(current);

  // The input range (padded coordinates) a piece's window `w` reads over
  // output positions [a, b): start and length.
  auto inputRange = [&](const Window &w, int64_t a, int64_t b) {
    int64_t reach = w.windowLoop ? w.dilation * (ranges[*w.windowLoop] - 1) : 0;
    return std::pair<int64_t, int64_t>{w.stride * a + w.constant,
                                       w.stride * (b - a - 1) + reach + 1};
  };
  RankedTensorType source = pad.getSourceType();
  // Every piece must read some of the input (else it is padding only).
  for (const Region &region : regions)
    for (auto [w, r] : llvm::zip(windows, region)) {
      auto [start, length] = inputRange(w, r.first, r.second);
      int64_t p = w.resultPos;
      if (std::min(start + length, low[p] + source.getDimSize(p)) <=
          std::max(start, low[p]))
        return false;
    }

  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  rewriter.setInsertionPoint(op);
  Value init = op.getDpsInits()[0];
  auto outType = cast<RankedTensorType>(init.getType());
  Operation *initDef = init.getDefiningOp();
  auto initGeneric = dyn_cast_or_null<linalg::GenericOp>(initDef);
  bool freshFills = initGeneric && isFill(initGeneric);
  Value result =
      freshFills
          ? Value(tensor::EmptyOp::create(rewriter, loc, outType.getShape(),
                                          outType.getElementType()))
          : init;
  for (const Region &region : regions) {
    // The output slice.
    SmallVector<int64_t> offsets(outType.getRank(), 0),
        sizes(outType.getShape());
    for (auto [w, r] : llvm::zip(windows, region)) {
      unsigned q = *outMap.getResultPosition(getAffineDimExpr(w.outLoop, ctx));
      offsets[q] = r.first;
      sizes[q] = r.second - r.first;
    }
    SmallVector<int64_t> ones(outType.getRank(), 1);
    auto fold = [&](ArrayRef<int64_t> v) {
      return getAsIndexOpFoldResult(ctx, v);
    };
    Value pieceInit;
    if (freshFills) {
      Value empty = tensor::EmptyOp::create(rewriter, loc, sizes,
                                            outType.getElementType());
      IRMapping map;
      map.map(cast<linalg::GenericOp>(initDef).getDpsInits()[0], empty);
      Operation *fill = rewriter.clone(*initDef, map);
      fill->getResult(0).setType(empty.getType());
      pieceInit = fill->getResult(0);
      pieces.push_back(cast<linalg::GenericOp>(fill));
    } else {
      pieceInit = tensor::ExtractSliceOp::create(
          rewriter, loc, init, fold(offsets), fold(sizes), fold(ones));
    }
    // The input rows the piece reads, padded where they leave the input.
    SmallVector<int64_t> inOffsets(source.getRank(), 0),
        inSizes(source.getShape()), padLow(source.getRank(), 0),
        padHigh(source.getRank(), 0);
    SmallVector<AffineExpr> inExprs(inMap.getResults());
    for (auto [w, r] : llvm::zip(windows, region)) {
      unsigned p = w.resultPos;
      auto [start, length] = inputRange(w, r.first, r.second);
      int64_t inLo = std::max(start, low[p]);
      int64_t inHi = std::min(start + length, low[p] + source.getDimSize(p));
      inOffsets[p] = inLo - low[p];
      inSizes[p] = inHi - inLo;
      padLow[p] = inLo - start;
      padHigh[p] = start + length - inHi;
      inExprs[p] = inExprs[p] - w.constant;
    }
    SmallVector<int64_t> inOnes(source.getRank(), 1);
    Value input = tensor::ExtractSliceOp::create(rewriter, loc, pad.getSource(),
                                                 fold(inOffsets), fold(inSizes),
                                                 fold(inOnes));
    if (llvm::any_of(llvm::concat<int64_t>(padLow, padHigh),
                     [](int64_t v) { return v != 0; })) {
      SmallVector<int64_t> padded(inSizes);
      for (unsigned p = 0; p < padded.size(); ++p)
        padded[p] += padLow[p] + padHigh[p];
      auto padType = RankedTensorType::get(padded, source.getElementType());
      input =
          tensor::PadOp::create(rewriter, loc, padType, input, fold(padLow),
                                fold(padHigh), pad.getConstantPaddingValue());
    }
    SmallVector<Value> inputs(op.getDpsInputs());
    inputs[windowed->getOperandNumber()] = input;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[windowed->getOperandNumber()] =
        AffineMap::get(inMap.getNumDims(), 0, inExprs, ctx);
    auto piece = linalg::GenericOp::create(
        rewriter, loc, TypeRange{pieceInit.getType()}, inputs,
        ValueRange{pieceInit}, maps, op.getIteratorTypesArray());
    rewriter.cloneRegionBefore(op.getRegion(), piece.getRegion(),
                               piece.getRegion().begin());
    pieces.push_back(piece);
    result = tensor::InsertSliceOp::create(rewriter, loc, piece->getResult(0),
                                           result, fold(offsets), fold(sizes),
                                           fold(ones));
  }
  rewriter.replaceOp(op, result);
  if (pad->use_empty())
    rewriter.eraseOp(pad);
  return true;
}
