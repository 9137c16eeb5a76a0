//===- CPUDepthwiseRows.cpp - Channels-last depthwise rows ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A channels-last depthwise convolution computed one output row at a time,
// vectorized along its channels (see convolveDepthwiseRows in
// CPUPlaneConvs.h).
//
//===----------------------------------------------------------------------===//

#include "CPUConvWindows.h"
#include "CPUPlaneConvs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace {

/// The most output positions of a row kept in registers at once: a longer
/// row is computed in pieces of at most this many.
constexpr int64_t kMaxPiece = 16;
/// The most output positions of a row: longer rows (MobileNetV2's 56- and
/// 112-wide ones) keep the general schedule, whose forall also splits the
/// rows among the threads, where this one has only the registers of
/// channels (4 for 32 channels).
constexpr int64_t kMaxRow = 32;

/// The parts of a channels-last depthwise convolution.
struct DepthwiseRows {
  linalg::GenericOp op;
  OpOperand *image = nullptr, *filter = nullptr;
  /// The image's row and column windows; their offsets are into `source`,
  /// the image without its zero padding.
  boo::ConvWindow rows, cols;
  /// The image's dims of the two windows.
  unsigned rowDim = 0, colDim = 0;
  /// The channel loop (the vector loop).
  unsigned channel = 0;
  Value source;
};

/// Where the rows, columns and channels of a slice of an operand are (its
/// other dims have size 1 in the slice).
struct Access {
  unsigned rank = 0, row = 0, col = 0, channel = 0;
};

/// The position of the result of `map` that is the plain loop `d`.
std::optional<unsigned> positionOf(AffineMap map, unsigned d) {
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(e); dim && dim.getPosition() == d)
      return i;
  return std::nullopt;
}

/// The image of `conv.op` (an input with two windows, rows before columns,
/// and the channel loop as a later plain result, the results after it of
/// extent 1), or false.
bool matchImage(DepthwiseRows &conv, AffineMap outMap) {
  linalg::GenericOp op = conv.op;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    SmallVector<unsigned> windows;
    for (auto [i, e] : llvm::enumerate(map.getResults()))
      if (!isa<AffineDimExpr>(e))
        windows.push_back(i);
    std::optional<unsigned> channel = positionOf(map, conv.channel);
    if (windows.size() != 2 || !channel || *channel < windows[1])
      continue;
    auto rows = boo::matchConvWindow(op, map.getResult(windows[0]));
    auto cols = boo::matchConvWindow(op, map.getResult(windows[1]));
    if (!rows || !cols || rows->tap == cols->tap ||
        !positionOf(outMap, rows->out) || !positionOf(outMap, cols->out) ||
        *positionOf(outMap, rows->out) > *positionOf(outMap, cols->out))
      continue;
    auto shape = cast<RankedTensorType>(in->get().getType()).getShape();
    if (llvm::any_of(shape.drop_front(*channel + 1),
                     [](int64_t size) { return size != 1; }))
      continue;
    conv.image = in;
    conv.rows = *rows;
    conv.cols = *cols;
    conv.rowDim = windows[0];
    conv.colDim = windows[1];
    return true;
  }
  return false;
}

/// `op` as a channels-last depthwise convolution whose channels are a
/// multiple of `lanes` and whose output rows have at most kMaxPiece
/// positions (kMaxRow for an image smaller than `maxLongRowImageBytes`),
/// if it is one.
std::optional<DepthwiseRows> matchDepthwiseRows(linalg::GenericOp op,
                                                int64_t lanes,
                                                int64_t maxLongRowImageBytes) {
  if (!boo::isDepthwiseCandidate(op))
    return std::nullopt;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  // The channel loop: the output's innermost dim of extent > 1.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  DepthwiseRows conv;
  conv.op = op;
  int pos = outMap.getNumResults() - 1;
  while (pos >= 0 && ranges[outMap.getDimPosition(pos)] == 1)
    --pos;
  if (pos < 0)
    return std::nullopt;
  conv.channel = outMap.getDimPosition(pos);
  if (ranges[conv.channel] % lanes != 0 || !matchImage(conv, outMap) ||
      *positionOf(outMap, conv.cols.out) > unsigned(pos) ||
      ranges[conv.cols.out] > kMaxRow)
    return std::nullopt;
  conv.filter = op.getDpsInputOperand(conv.image->getOperandNumber() == 0);
  if (!op.getMatchingIndexingMap(conv.filter).isFunctionOfDim(conv.channel) ||
      !boo::isDepthwiseWindow(op, conv.image, conv.filter, conv.rows, conv.cols,
                              conv.rowDim, conv.colDim))
    return std::nullopt;
  // A zero-padded image is read unpadded.
  conv.source = boo::unpadWindows(conv.image->get(), conv.rowDim, conv.colDim,
                                  conv.rows, conv.cols);
  auto sourceType = cast<RankedTensorType>(conv.source.getType());
  if (!sourceType.hasStaticShape())
    return std::nullopt;
  int64_t imageBytes =
      sourceType.getNumElements() * sourceType.getElementTypeBitWidth() / 8;
  if (ranges[conv.cols.out] > kMaxPiece && imageBytes >= maxLongRowImageBytes)
    return std::nullopt;
  return conv;
}

/// Builds the rows of one register of channels (convolveDepthwiseRows).
class RowsBuilder {
public:
  RowsBuilder(RewriterBase &b, DepthwiseRows conv, int64_t lanes,
              ArrayRef<Value> loops, Access outAccess, Access imageAccess,
              Access filterAccess)
      : b(b), conv(conv), loc(conv.op.getLoc()), lanes(lanes),
        loops(loops.begin(), loops.end()), outAccess(outAccess),
        imageAccess(imageAccess), filterAccess(filterAccess) {
    SmallVector<int64_t> ranges = conv.op.getStaticLoopRanges();
    outRows = ranges[conv.rows.out];
    outCols = ranges[conv.cols.out];
    tapRows = ranges[conv.rows.tap];
    tapCols = ranges[conv.cols.tap];
    f32 = b.getF32Type();
  }

  /// A slice of `value` (read by `map`) at the loops' values: whole along
  /// the loops in `whole` and the results that are no plain loop
  /// (windows), `lanes` channels, 1 for the others.
  Value slice(Value value, AffineMap map, ArrayRef<unsigned> whole,
              SmallVectorImpl<OpFoldResult> &offsets,
              SmallVectorImpl<OpFoldResult> &sizes);
  /// The rows of the output slice `plane` computed from the image slice
  /// `image` and the filter slice `filter` (slice(): all rows and
  /// columns, `lanes` channels); `init`, when set, is the fill's value.
  Value build(Value plane, Value image, Value filter, Value init);

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  VectorType f32Vector() { return VectorType::get({lanes}, f32); }
  /// The weight vectors of every tap (index ky * tapCols + kx), from the
  /// filter slice.
  SmallVector<Value> weights(Value filter);
  /// Full indices into a slice of access `a`: `row` and `col` at its rows
  /// and columns, 0 elsewhere.
  SmallVector<Value> indices(const Access &a, Value row, Value col);
  /// The map of a slice of access `a` to its channels.
  AffineMap channelMap(const Access &a);
  /// The `lanes` channels at (`row`, `col`) of a slice of access `a`, in
  /// f32.
  Value read(Value slice, const Access &a, Value row, Value col);
  /// `slice` (of access `a`) with the unit dims after its channels (the
  /// output's channel multiplier, the image's one input channel per group)
  /// collapsed into them, `a` made its access and `groups` the collapse's
  /// (empty when there are none). A read or write along the channels
  /// through such dims is a vector<16x1> transfer, 16 scalar loads or
  /// stores (or a loop of them that LLVM has to unroll and vectorize).
  Value collapseAfterChannels(Value slice, Access &a,
                              SmallVector<ReassociationIndices> &groups);
  /// `accs` (of output positions `first` on) with window row `ky` (image
  /// row `row`) added.
  void addWindowRow(Value image, Value row, int64_t ky, ArrayRef<Value> taps,
                    int64_t first, SmallVector<Value> &accs);
  /// `rowPlane` with output positions [`first`, `end`) of row `oh`
  /// computed.
  Value buildPiece(Value rowPlane, Value image, ArrayRef<Value> taps,
                   Value splat, Value oh, int64_t first, int64_t end);

  RewriterBase &b;
  DepthwiseRows conv;
  Location loc;
  int64_t lanes;
  SmallVector<Value> loops;
  Access outAccess, imageAccess, filterAccess;
  int64_t outRows, outCols, tapRows, tapCols;
  Type f32;
};

Value RowsBuilder::slice(Value value, AffineMap map, ArrayRef<unsigned> whole,
                         SmallVectorImpl<OpFoldResult> &offsets,
                         SmallVectorImpl<OpFoldResult> &sizes) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    bool all = !dim || llvm::is_contained(whole, dim.getPosition());
    bool channel = dim && dim.getPosition() == conv.channel;
    offsets.push_back(all ? OpFoldResult(b.getIndexAttr(0))
                          : OpFoldResult(loops[dim.getPosition()]));
    shape.push_back(all ? type.getDimSize(i) : channel ? lanes : 1);
    sizes.push_back(b.getIndexAttr(shape.back()));
  }
  // Full rank: a rank-reduced slice that keeps unit dims (a row of one
  // position) is ambiguous, and the canonicalizer crashed on one.
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto sliceType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, sliceType, value, offsets,
                                        sizes, strides);
}

SmallVector<Value> RowsBuilder::indices(const Access &a, Value row, Value col) {
  SmallVector<Value> result(a.rank, index(0));
  result[a.row] = row;
  result[a.col] = col;
  return result;
}

AffineMap RowsBuilder::channelMap(const Access &a) {
  return AffineMap::get(a.rank, 0, b.getAffineDimExpr(a.channel),
                        b.getContext());
}

Value RowsBuilder::read(Value slice, const Access &a, Value row, Value col) {
  Type type = cast<RankedTensorType>(slice.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type));
  Value v = vector::TransferReadOp::create(
      b, loc, VectorType::get({lanes}, type), slice, indices(a, row, col), zero,
      channelMap(a), ArrayRef<bool>{true});
  if (!type.isF32())
    v = arith::ExtFOp::create(b, loc, f32Vector(), v);
  return v;
}

Value RowsBuilder::collapseAfterChannels(
    Value slice, Access &a, SmallVector<ReassociationIndices> &groups) {
  groups.clear();
  auto type = cast<RankedTensorType>(slice.getType());
  if (a.channel + 1 == a.rank ||
      !llvm::all_of(type.getShape().drop_front(a.channel + 1),
                    [](int64_t size) { return size == 1; }))
    return slice;
  for (unsigned d = 0; d <= a.channel; ++d)
    groups.push_back({int64_t(d)});
  for (unsigned d = a.channel + 1; d < a.rank; ++d)
    groups.back().push_back(d);
  a.rank = a.channel + 1;
  return tensor::CollapseShapeOp::create(b, loc, slice, groups);
}

SmallVector<Value> RowsBuilder::weights(Value filter) {
  SmallVector<Value> result;
  for (int64_t ky = 0; ky < tapRows; ++ky)
    for (int64_t kx = 0; kx < tapCols; ++kx)
      result.push_back(read(filter, filterAccess, index(ky), index(kx)));
  return result;
}

void RowsBuilder::addWindowRow(Value image, Value row, int64_t ky,
                               ArrayRef<Value> taps, int64_t first,
                               SmallVector<Value> &accs) {
  const boo::ConvWindow &w = conv.cols;
  int64_t inCols =
      cast<RankedTensorType>(image.getType()).getDimSize(imageAccess.col);
  // Each column is read once, and added to every output position whose
  // window has it; columns outside the image (the padding) are left out.
  DenseMap<int64_t, Value> columns;
  for (auto [i, acc] : llvm::enumerate(accs))
    for (int64_t kx = 0; kx < tapCols; ++kx) {
      int64_t ow = first + static_cast<int64_t>(i);
      int64_t col = ow * w.stride + kx * w.dilation + w.offset;
      if (col < 0 || col >= inCols)
        continue;
      Value &v = columns[col];
      if (!v)
        v = read(image, imageAccess, row, index(col));
      acc = vector::FMAOp::create(b, loc, v, taps[ky * tapCols + kx], acc);
    }
}

Value RowsBuilder::build(Value plane, Value image, Value filter, Value init) {
  SmallVector<Value> taps = weights(filter);
  SmallVector<ReassociationIndices> imageGroups;
  image = collapseAfterChannels(image, imageAccess, imageGroups);
  Value splat =
      init ? vector::BroadcastOp::create(b, loc, f32Vector(), init) : Value();
  auto rowLoop = scf::ForOp::create(b, loc, index(0), index(outRows), index(1),
                                    ValueRange{plane});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rowLoop.getBody());
  Value oh = rowLoop.getInductionVar();
  Value rowPlane = rowLoop.getRegionIterArgs()[0];
  // Pieces of equal length (a 28-wide row: two of 14).
  int64_t pieces = llvm::divideCeil(outCols, kMaxPiece);
  for (int64_t p = 0; p < pieces; ++p)
    rowPlane = buildPiece(rowPlane, image, taps, splat, oh,
                          p * outCols / pieces, (p + 1) * outCols / pieces);
  scf::YieldOp::create(b, loc, rowPlane);
  return rowLoop.getResult(0);
}

Value RowsBuilder::buildPiece(Value rowPlane, Value image, ArrayRef<Value> taps,
                              Value splat, Value oh, int64_t first,
                              int64_t end) {
  auto planeType = cast<RankedTensorType>(rowPlane.getType());
  Access access = outAccess;
  SmallVector<ReassociationIndices> groups;
  Value plane = collapseAfterChannels(rowPlane, access, groups);
  SmallVector<Value> accs;
  for (int64_t ow = first; ow < end; ++ow)
    accs.push_back(splat ? splat : read(plane, access, oh, index(ow)));
  int64_t inRows =
      cast<RankedTensorType>(image.getType()).getDimSize(imageAccess.row);
  const boo::ConvWindow &w = conv.rows;
  for (int64_t ky = 0; ky < tapRows; ++ky) {
    auto [lo, hi] = boo::windowRowsInside(w, ky, inRows, outRows);
    if (lo >= hi)
      continue;
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, oh, index(w.stride)),
        index(ky * w.dilation + w.offset));
    if (lo == 0 && hi == outRows) {
      addWindowRow(image, row, ky, taps, first, accs);
      continue;
    }
    // Window rows outside the image (the top and bottom padding) are
    // skipped.
    Value cond;
    auto both = [&](Value c) {
      cond = cond ? arith::AndIOp::create(b, loc, cond, c).getResult() : c;
    };
    if (lo > 0)
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, oh,
                                 index(lo)));
    if (hi < outRows)
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, oh,
                                 index(hi)));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange(ValueRange(accs)), cond,
                                  /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> added = accs;
    addWindowRow(image, row, ky, taps, first, added);
    scf::YieldOp::create(b, loc, added);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, accs);
    b.setInsertionPointAfter(ifOp);
    accs = SmallVector<Value>(ifOp.getResults());
  }
  for (auto [i, acc] : llvm::enumerate(accs))
    plane =
        vector::TransferWriteOp::create(
            b, loc, acc, plane, indices(access, oh, index(first + int64_t(i))),
            channelMap(access), ArrayRef<bool>{true})
            .getResult();
  if (!groups.empty())
    plane = tensor::ExpandShapeOp::create(b, loc, planeType, plane, groups);
  return plane;
}

} // namespace

bool mlir::boo::convolveDepthwiseRows(RewriterBase &rewriter,
                                      linalg::GenericOp op, int64_t vectorWidth,
                                      int64_t maxLongRowImageBytes) {
  std::optional<DepthwiseRows> conv =
      matchDepthwiseRows(op, vectorWidth, maxLongRowImageBytes);
  if (!conv)
    return false;
  // Registers of two vectors' width where the channels fill them: each
  // image vector is then a whole 64-byte line. On cpu:1 the stride-2
  // 28x28x192 layer took 0.008-0.011 ms so, 0.014 ms with one vector's
  // (each line read by two iterations).
  if (op.getStaticLoopRanges()[conv->channel] % (2 * vectorWidth) == 0)
    vectorWidth *= 2;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value fill;
  Value dest = boo::convDestination(rewriter, op, fill);
  // One iteration per register of channels and per value of the other
  // outer loops.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<OpFoldResult> ubs;
  SmallVector<unsigned> outer;
  for (unsigned i = 0; i < outMap.getNumResults(); ++i) {
    unsigned d = outMap.getDimPosition(i);
    if (d == conv->rows.out || d == conv->cols.out)
      continue;
    outer.push_back(d);
    ubs.push_back(rewriter.getIndexAttr(
        d == conv->channel ? ranges[d] / vectorWidth : ranges[d]));
  }
  auto forall =
      scf::ForallOp::create(rewriter, loc, ubs, ValueRange{dest}, std::nullopt);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  SmallVector<Value> loops(op.getNumLoops(), zero);
  for (auto [d, iv] : llvm::zip(outer, forall.getInductionVars()))
    loops[d] = d == conv->channel
                   ? arith::MulIOp::create(rewriter, loc, iv,
                                           arith::ConstantIndexOp::create(
                                               rewriter, loc, vectorWidth))
                         .getResult()
                   : iv;
  auto positionIn = [&](OpOperand *operand, unsigned d) {
    return *positionOf(op.getMatchingIndexingMap(operand), d);
  };
  unsigned outRank = outMap.getNumResults();
  Access outAccess{outRank, *positionOf(outMap, conv->rows.out),
                   *positionOf(outMap, conv->cols.out),
                   *positionOf(outMap, conv->channel)};
  AffineMap imageMap = op.getMatchingIndexingMap(conv->image);
  Access imageAccess{imageMap.getNumResults(), conv->rowDim, conv->colDim,
                     positionIn(conv->image, conv->channel)};
  Access filterAccess{op.getMatchingIndexingMap(conv->filter).getNumResults(),
                      positionIn(conv->filter, conv->rows.tap),
                      positionIn(conv->filter, conv->cols.tap),
                      positionIn(conv->filter, conv->channel)};
  RowsBuilder builder(rewriter, *conv, vectorWidth, loops, outAccess,
                      imageAccess, filterAccess);
  SmallVector<OpFoldResult> outOffsets, outSizes, offsets, sizes;
  SmallVector<unsigned> window = {conv->rows.out, conv->cols.out};
  SmallVector<unsigned> taps = {conv->rows.tap, conv->cols.tap};
  Value shared = forall.getRegionIterArgs()[0];
  Value plane = builder.slice(shared, outMap, window, outOffsets, outSizes);
  Value image = builder.slice(conv->source, imageMap, {}, offsets, sizes);
  offsets.clear();
  sizes.clear();
  Value filter = builder.slice(conv->filter->get(),
                               op.getMatchingIndexingMap(conv->filter), taps,
                               offsets, sizes);
  Value result = builder.build(plane, image, filter, fill);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  SmallVector<OpFoldResult> strides(outOffsets.size(),
                                    rewriter.getIndexAttr(1));
  tensor::ParallelInsertSliceOp::create(rewriter, loc, result, shared,
                                        outOffsets, outSizes, strides);
  boo::replaceConvolution(rewriter, op, forall.getResults());
  return true;
}
