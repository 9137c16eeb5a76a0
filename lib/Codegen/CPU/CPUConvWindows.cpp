//===- CPUConvWindows.cpp - Windows of convolutions computed directly ----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The matching of windows, bodies, fills and padding that the
// convolutions computed in their own layout share (CPUConvWindows.h).
//
//===----------------------------------------------------------------------===//

#include "CPUConvWindows.h"

#include "CPUOperandLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

mlir::boo::PlaneExtents::PlaneExtents(linalg::GenericOp op, Value source) {
  auto outType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
  outRank = outType.getRank();
  outRows = outType.getDimSize(outRank - 2);
  outCols = outType.getDimSize(outRank - 1);
  auto sourceType = cast<RankedTensorType>(source.getType());
  inRows = sourceType.getDimSize(sourceType.getRank() - 2);
  inCols = sourceType.getDimSize(sourceType.getRank() - 1);
}

std::optional<boo::PlaneImage> mlir::boo::matchPlaneImage(linalg::GenericOp op,
                                                          int64_t minRow) {
  if (!isDepthwiseCandidate(op))
    return std::nullopt;
  auto outType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned rank = outType.getRank();
  if (rank < 3 || outType.getShape().back() < minRow)
    return std::nullopt;
  std::optional<PlaneImage> found;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    unsigned n = map.getNumResults();
    if (n < 2)
      continue;
    std::optional<ConvWindow> rows = matchConvWindow(op, map.getResult(n - 2));
    std::optional<ConvWindow> cols = matchConvWindow(op, map.getResult(n - 1));
    if (rows && cols && rows->out == outMap.getDimPosition(rank - 2) &&
        cols->out == outMap.getDimPosition(rank - 1) && rows->tap != cols->tap)
      found = PlaneImage{in, op.getDpsInputOperand(in->getOperandNumber() == 0),
                         *rows, *cols};
  }
  return found;
}

std::optional<boo::ConvWindow> mlir::boo::matchConvWindow(linalg::GenericOp op,
                                                          AffineExpr e) {
  FailureOr<boo::LinearExpr> linear = decomposeLinear(e);
  if (failed(linear) || linear->terms.size() != 2)
    return std::nullopt;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (auto [o, k] : {std::pair(0, 1), std::pair(1, 0)}) {
    auto [out, stride] = linear->terms[o];
    auto [tap, dilation] = linear->terms[k];
    if (iters[out] == utils::IteratorType::parallel &&
        iters[tap] == utils::IteratorType::reduction)
      return ConvWindow{out, tap, stride, dilation, linear->constant};
  }
  return std::nullopt;
}

bool mlir::boo::isMultiplyAddBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  if (body.getOperations().size() > 5)
    return false;
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || !add.getType().isF32())
    return false;
  Value out = body.getArgument(2);
  Value product = add.getLhs() == out   ? add.getRhs()
                  : add.getRhs() == out ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  auto inputOf = [&](Value v) -> int {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      v = ext.getIn();
    auto arg = dyn_cast<BlockArgument>(v);
    Type type = v.getType();
    if (!arg || arg.getOwner() != &body ||
        !(type.isF32() || type.isF16() || type.isBF16()))
      return -1;
    return arg.getArgNumber();
  };
  int a = inputOf(mul.getLhs()), b = inputOf(mul.getRhs());
  return (a == 0 && b == 1) || (a == 1 && b == 0);
}

/// The value a fill `init` is filled with, at the rewriter's insertion
/// point, or null when `init` is no fill.
static Value fillValueOf(RewriterBase &rewriter, Value init) {
  auto fill = init.getDefiningOp<linalg::GenericOp>();
  if (!fill || !boo::isFill(fill))
    return Value();
  Block &body = fill.getRegion().front();
  Value v = body.getTerminator()->getOperand(0);
  if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == &body)
    return arg.getArgNumber() < fill.getNumDpsInputs()
               ? fill.getDpsInputs()[arg.getArgNumber()]
               : Value();
  if (!fill.getRegion().isAncestor(v.getParentRegion()))
    return v;
  if (matchPattern(v, m_Constant()))
    return rewriter.clone(*v.getDefiningOp())->getResult(0);
  return Value();
}

Value mlir::boo::convDestination(RewriterBase &rewriter, linalg::GenericOp op,
                                 Value &fill) {
  Value init = op.getDpsInits()[0];
  fill = fillValueOf(rewriter, init);
  return fill ? init.getDefiningOp<linalg::GenericOp>().getDpsInits()[0] : init;
}

void mlir::boo::replaceConvolution(RewriterBase &rewriter, linalg::GenericOp op,
                                   ValueRange results) {
  SmallVector<tensor::PadOp> pads;
  for (Value input : op.getDpsInputs())
    if (auto pad = input.getDefiningOp<tensor::PadOp>())
      pads.push_back(pad);
  rewriter.replaceOp(op, results);
  for (tensor::PadOp pad : pads)
    if (pad->use_empty())
      rewriter.eraseOp(pad);
}

bool mlir::boo::isDepthwiseCandidate(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || !isMultiplyAddBody(op))
    return false;
  auto outType = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  return outType && outType.hasStaticShape() &&
         outMap.isProjectedPermutation() &&
         outMap.getNumResults() == op.getNumParallelLoops();
}

bool mlir::boo::isDepthwiseWindow(linalg::GenericOp op, OpOperand *image,
                                  OpOperand *filter, const ConvWindow &rows,
                                  const ConvWindow &cols, unsigned rowDim,
                                  unsigned colDim) {
  // The window is a filter: at most kMaxTaps taps (they are unrolled),
  // and no larger than the output plane. A batch-1 weight gradient has the
  // shape of a depthwise convolution too, with the output gradient's plane
  // as its window and the filter's as its output; it is no candidate.
  constexpr int64_t kMaxTaps = 64;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t tapRows = ranges[rows.tap], tapCols = ranges[cols.tap];
  if (tapRows * tapCols > kMaxTaps || tapRows > ranges[rows.out] ||
      tapCols > ranges[cols.out])
    return false;
  // Every other loop is an outer loop of the output or a reduction of
  // extent 1, read as a plain dim.
  SmallVector<unsigned> window = {rows.out, cols.out, rows.tap, cols.tap};
  for (auto [d, iter] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iter == utils::IteratorType::reduction && ranges[d] != 1 &&
        !llvm::is_contained(window, d))
      return false;
  AffineMap imageMap = op.getMatchingIndexingMap(image);
  for (auto [i, e] : llvm::enumerate(imageMap.getResults())) {
    if (i == rowDim || i == colDim)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || llvm::is_contained(window, dim.getPosition()))
      return false;
  }
  AffineMap filterMap = op.getMatchingIndexingMap(filter);
  return filterMap.isProjectedPermutation() &&
         filterMap.isFunctionOfDim(rows.tap) &&
         filterMap.isFunctionOfDim(cols.tap) &&
         !filterMap.isFunctionOfDim(rows.out) &&
         !filterMap.isFunctionOfDim(cols.out);
}

Value mlir::boo::readImageRow(OpBuilder &b, Location loc, Value image,
                              ArrayRef<Value> indices, int64_t n,
                              bool inBounds) {
  Type type = cast<RankedTensorType>(image.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  Value v =
      vector::TransferReadOp::create(b, loc, VectorType::get({n}, type), image,
                                     indices, zero, ArrayRef<bool>{inBounds});
  if (!type.isF32())
    v = arith::ExtFOp::create(b, loc, VectorType::get({n}, b.getF32Type()), v);
  return v;
}

std::pair<int64_t, int64_t> mlir::boo::windowRowsInside(const ConvWindow &w,
                                                        int64_t ky,
                                                        int64_t inRows,
                                                        int64_t outRows) {
  int64_t base = ky * w.dilation + w.offset;
  int64_t lo =
      std::clamp<int64_t>(llvm::divideCeilSigned(-base, w.stride), 0, outRows);
  int64_t hi = std::clamp<int64_t>(
      llvm::divideFloorSigned(inRows - 1 - base, w.stride) + 1, lo, outRows);
  return {lo, hi};
}

Value mlir::boo::unpadWindows(Value image, unsigned rowDim, unsigned colDim,
                              ConvWindow &rows, ConvWindow &cols) {
  auto pad = image.getDefiningOp<tensor::PadOp>();
  if (!pad || !pad.getConstantPaddingValue() ||
      !matchPattern(pad.getConstantPaddingValue(), m_AnyZeroFloat()) ||
      ShapedType::isDynamicShape(pad.getStaticLow()) ||
      ShapedType::isDynamicShape(pad.getStaticHigh()))
    return image;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  for (unsigned i = 0; i < low.size(); ++i)
    if (i != rowDim && i != colDim && (low[i] != 0 || high[i] != 0))
      return image;
  rows.offset -= low[rowDim];
  cols.offset -= low[colDim];
  return pad.getSource();
}
