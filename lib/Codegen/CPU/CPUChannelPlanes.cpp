//===- CPUChannelPlanes.cpp - Few-channel convolutions, plane by plane ----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A channels-first convolution with few input channels (a network's stem:
// 3 channels) computed in its own layout (see convolveChannelPlanes in
// CPUPlaneConvs.h): each output row of a block of output channels at a
// time, vectorized along the row, every tap of the image read once per
// block and multiplied by each channel's broadcast weight.
//
//===----------------------------------------------------------------------===//

#include "CPUConvWindows.h"
#include "CPUPlaneConvs.h"

#include "CPUOperandLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <functional>

using namespace mlir;

namespace {

using Window = boo::ConvWindow;

/// Most taps (input channels times window positions) a convolution may
/// have: each is unrolled in the row's code (the 7x7 stem has 147).
constexpr int64_t kMaxTaps = 160;
/// Most output channels computed together: their row registers are the
/// accumulators.
constexpr int64_t kMaxBlock = 16;
/// Fewest output channels computed together: fewer are too few
/// independent chains of multiply-adds per tap.
constexpr int64_t kMinBlock = 4;

/// The parts of a few-channel convolution (convolveChannelPlanes).
struct ChannelConv {
  linalg::GenericOp op;
  OpOperand *image = nullptr, *filter = nullptr;
  /// The windows of the image's two innermost dims; their offsets are into
  /// `source`, the image without its zero padding.
  Window rows, cols;
  Value source;
  /// The output loop the image does not read (the output channels), the
  /// output dim it indexes and how many of them are computed together.
  unsigned multiplier = 0, multiplierDim = 0;
  int64_t block = 1;
  /// The f32 lanes of one register of an output row.
  int64_t lanes = 1;
  /// The reductions other than the window (the input channels).
  SmallVector<unsigned> channels;
};

/// The block of `channels` output channels and the lanes of a row's
/// register (one or two vectors of `vectorWidth`, the second where the row
/// has them) whose accumulators, `block` registers of `lanes`, hold the
/// most lanes within `accumulatorLanes`, then the larger block (each tap
/// feeds more multiply-adds); {0, 0} when no block of at least kMinBlock
/// fits. With AVX-512 (384 lanes) that is 16 channels of 16 lanes (on
/// cpu:1 the 3x3 stem took 0.20-0.21 ms so, 0.23-0.29 ms in 8 lanes);
/// with AVX2 (96 lanes), 8 channels of 8 lanes, where 16 of 16 spilled
/// (docs/CPUPipeline.md, "Few-channel convolutions", has the times).
std::pair<int64_t, int64_t> chooseBlock(int64_t channels, int64_t cols,
                                        int64_t vectorWidth,
                                        int64_t accumulatorLanes) {
  std::pair<int64_t, int64_t> best = {0, 0};
  for (int64_t lanes : {2 * vectorWidth, vectorWidth}) {
    if (lanes > cols)
      continue;
    int64_t most = accumulatorLanes > 0
                       ? std::min(kMaxBlock, accumulatorLanes / lanes)
                       : kMaxBlock;
    int64_t block = most < 1 ? 0 : boo::largestDivisor(channels, most);
    if (block < kMinBlock)
      continue;
    if (block * lanes > best.first * best.second ||
        (block * lanes == best.first * best.second && block > best.first))
      best = {block, lanes};
  }
  return best;
}

/// `op` as a few-channel convolution whose output rows have at least
/// `vectorWidth` elements and whose input channels number at most
/// `maxChannels`, with a block of output channels whose accumulators fit
/// `accumulatorLanes`, if it is one.
std::optional<ChannelConv> matchChannelConv(linalg::GenericOp op,
                                            int64_t vectorWidth,
                                            int64_t accumulatorLanes,
                                            int64_t maxChannels) {
  std::optional<boo::PlaneImage> image =
      boo::matchPlaneImage(op, vectorWidth);
  if (!image)
    return std::nullopt;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  ChannelConv conv{op,
                   image->image,
                   image->filter,
                   image->rows,
                   image->cols,
                   image->image->get(),
                   0,
                   0,
                   1,
                   1,
                   {}};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> window = {conv.rows.out, conv.cols.out, conv.rows.tap,
                                  conv.cols.tap};
  int64_t taps = ranges[conv.rows.tap] * ranges[conv.cols.tap];
  if (ranges[conv.rows.tap] > ranges[conv.rows.out] ||
      ranges[conv.cols.tap] > ranges[conv.cols.out])
    return std::nullopt;
  // The image's other dims are plain loops outside the window.
  AffineMap imageMap = op.getMatchingIndexingMap(conv.image);
  for (AffineExpr e : imageMap.getResults().drop_back(2)) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || llvm::is_contained(window, dim.getPosition()))
      return std::nullopt;
  }
  // The input channels: the other reductions, each a dim of the image.
  int64_t channels = 1, multipliers = 0;
  for (auto [d, iter] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (llvm::is_contained(window, d))
      continue;
    if (iter == utils::IteratorType::reduction) {
      if (!imageMap.isFunctionOfDim(d))
        return std::nullopt;
      conv.channels.push_back(d);
      channels *= ranges[d];
      continue;
    }
    // The output channels: the one parallel loop the image lacks.
    if (imageMap.isFunctionOfDim(d))
      continue;
    if (multipliers++)
      return std::nullopt;
    conv.multiplier = d;
    conv.multiplierDim =
        *outMap.getResultPosition(getAffineDimExpr(d, op.getContext()));
    int64_t cols = ranges[conv.cols.out];
    std::tie(conv.block, conv.lanes) =
        chooseBlock(ranges[d], cols, vectorWidth, accumulatorLanes);
  }
  if (channels < 2 || channels > maxChannels || channels * taps > kMaxTaps ||
      conv.block < kMinBlock)
    return std::nullopt;
  AffineMap filterMap = op.getMatchingIndexingMap(conv.filter);
  if (!filterMap.isProjectedPermutation() ||
      !filterMap.isFunctionOfDim(conv.rows.tap) ||
      !filterMap.isFunctionOfDim(conv.cols.tap) ||
      filterMap.isFunctionOfDim(conv.rows.out) ||
      filterMap.isFunctionOfDim(conv.cols.out))
    return std::nullopt;
  unsigned n = imageMap.getNumResults();
  conv.source =
      boo::unpadWindows(conv.source, n - 2, n - 1, conv.rows, conv.cols);
  if (!cast<RankedTensorType>(conv.source.getType()).hasStaticShape())
    return std::nullopt;
  return conv;
}

/// Builds one output row of a block of output channels
/// (convolveChannelPlanes).
class RowBuilder : boo::PlaneExtents {
public:
  RowBuilder(RewriterBase &rewriter, ChannelConv conv)
      : PlaneExtents(conv.op, conv.source), b(rewriter), conv(conv),
        loc(conv.op.getLoc()), lanes(conv.lanes) {
    ranges = conv.op.getStaticLoopRanges();
    f32 = b.getF32Type();
  }

  /// `rows` (the output's slice of one row of `conv.block` channels) with
  /// the row computed; `loops` holds every loop's value but the window's,
  /// the input channels' and the multiplier's (the block's first channel).
  /// `init`, when set, is every accumulator's initial value.
  Value build(Value rows, ArrayRef<Value> loops, Value init);

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  VectorType f32Vector(int64_t n) { return VectorType::get({n}, f32); }
  /// `n` lanes of image row `row` of the channels `channel` (values of
  /// conv.channels) from column `start` on (zero past the row's end), in
  /// f32. `inBounds`: they all lie inside the row.
  Value readImage(ValueRange channel, Value row, Value start, int64_t n,
                  bool inBounds);
  /// The tap whose lane i reads column col + i*stride of image row `row`
  /// (zero left and right of the row). `col` is static when `dynamicCol`
  /// is null; else it is `dynamicCol`, and the tap's lanes are all inside.
  Value tap(ValueRange channel, Value row, int64_t col, Value dynamicCol);
  /// The columns a tap reads (whole registers) when its first `shift`
  /// columns are left of the row.
  int64_t tapWidth(int64_t shift) {
    return llvm::alignTo((lanes - 1) * conv.cols.stride + 1 - shift, lanes);
  }
  /// `sums` with the taps of input channels `channel` and window row `ky`
  /// (image row `row`) for the register of the row's columns from `first`
  /// on (a static column, or `dynamicFirst`) multiplied and added.
  void addTaps(ValueRange channel, Value ky, Value row, int64_t first,
               Value dynamicFirst, SmallVector<Value> &sums);
  /// `sums` with every tap added, for the register of the row's columns
  /// from `first` on (see addTaps): loops over the input channels and the
  /// window rows.
  SmallVector<Value> addWindow(int64_t first, Value dynamicFirst,
                               SmallVector<Value> sums);
  /// `rows` with the register of columns [j*lanes, (j+1)*lanes) computed,
  /// `j` static or `dynamicJ`.
  Value chunk(Value rows, int64_t j, Value dynamicJ);

  RewriterBase &b;
  ChannelConv conv;
  Location loc;
  int64_t lanes;
  SmallVector<int64_t> ranges;
  Type f32;
  // Set by build: the loops' values, the output row, the fill's splat (or
  // null).
  SmallVector<Value> loops;
  Value oh, splat;
};

Value RowBuilder::readImage(ValueRange channel, Value row, Value start,
                            int64_t n, bool inBounds) {
  SmallVector<Value> indices;
  AffineMap map = conv.op.getMatchingIndexingMap(conv.image);
  for (AffineExpr e : map.getResults().drop_back(2)) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    auto it = llvm::find(conv.channels, d);
    indices.push_back(it == conv.channels.end()
                          ? loops[d]
                          : channel[it - conv.channels.begin()]);
  }
  indices.append({row, start});
  return boo::readImageRow(b, loc, conv.source, indices, n, inBounds);
}

Value RowBuilder::tap(ValueRange channel, Value row, int64_t col,
                      Value dynamicCol) {
  int64_t stride = conv.cols.stride;
  // Lanes left of the row are zero; the others read `width` columns (whole
  // registers) from `shift` columns right of `col` on.
  int64_t zeroLanes =
      dynamicCol || col >= 0 ? 0 : llvm::divideCeil(-col, stride);
  int64_t shift = zeroLanes * stride;
  int64_t width = tapWidth(shift);
  SmallVector<Value> parts;
  for (int64_t p = 0; p < width; p += lanes) {
    if (dynamicCol) {
      parts.push_back(readImage(
          channel, row, arith::AddIOp::create(b, loc, dynamicCol, index(p)),
          lanes, /*inBounds=*/true));
      continue;
    }
    int64_t start = col + shift + p;
    // Registers wholly past the row's end are zeros.
    parts.push_back(
        start >= inCols
            ? arith::ConstantOp::create(
                  b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f))
                  .getResult()
            : readImage(channel, row, index(start), lanes,
                        start + lanes <= inCols));
  }
  SmallVector<int64_t> lanesOf;
  for (int64_t i = 0; i < lanes; ++i)
    lanesOf.push_back(i < zeroLanes ? 0 : i * stride - shift);
  Value tap;
  if (parts.size() == 1 && llvm::equal(lanesOf, llvm::seq<int64_t>(0, lanes)))
    tap = parts.front();
  else if (parts.size() <= 2)
    tap =
        vector::ShuffleOp::create(b, loc, parts.front(), parts.back(), lanesOf);
  else {
    // Wider strides, which no network's stem has: lane by lane.
    SmallVector<Value> elements;
    for (int64_t at : lanesOf)
      elements.push_back(vector::ExtractOp::create(
          b, loc, parts[at / lanes], ArrayRef<int64_t>{at % lanes}));
    tap = vector::FromElementsOp::create(b, loc, f32Vector(lanes), elements);
  }
  if (zeroLanes == 0)
    return tap;
  SmallVector<bool> kept;
  for (int64_t i = 0; i < lanes; ++i)
    kept.push_back(i >= zeroLanes);
  Value mask = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({lanes}, b.getI1Type()), kept));
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f));
  return arith::SelectOp::create(b, loc, mask, tap, zeros);
}

void RowBuilder::addTaps(ValueRange channel, Value ky, Value row, int64_t first,
                         Value dynamicFirst, SmallVector<Value> &sums) {
  AffineMap filterMap = conv.op.getMatchingIndexingMap(conv.filter);
  for (int64_t kx = 0; kx < ranges[conv.cols.tap]; ++kx) {
    int64_t offset = kx * conv.cols.dilation;
    int64_t col = first + offset;
    // A tap wholly left or right of the row adds nothing.
    if (!dynamicFirst &&
        (col + (lanes - 1) * conv.cols.stride < 0 || col >= inCols))
      continue;
    Value dynamicCol =
        dynamicFirst
            ? arith::AddIOp::create(b, loc, dynamicFirst, index(offset))
                  .getResult()
            : Value();
    Value t = tap(channel, row, col, dynamicCol);
    for (int64_t m = 0; m < conv.block; ++m) {
      SmallVector<Value> indices;
      for (AffineExpr e : filterMap.getResults()) {
        unsigned d = cast<AffineDimExpr>(e).getPosition();
        auto it = llvm::find(conv.channels, d);
        if (d == conv.rows.tap)
          indices.push_back(ky);
        else if (d == conv.cols.tap)
          indices.push_back(index(kx));
        else if (it != conv.channels.end())
          indices.push_back(channel[it - conv.channels.begin()]);
        else if (d == conv.multiplier)
          indices.push_back(arith::AddIOp::create(b, loc, loops[d], index(m)));
        else
          indices.push_back(loops[d]);
      }
      Value weight =
          tensor::ExtractOp::create(b, loc, conv.filter->get(), indices);
      if (!weight.getType().isF32())
        weight = arith::ExtFOp::create(b, loc, f32, weight);
      Value splatWeight =
          vector::BroadcastOp::create(b, loc, f32Vector(lanes), weight);
      sums[m] = vector::FMAOp::create(b, loc, t, splatWeight, sums[m]);
    }
  }
}

SmallVector<Value> RowBuilder::addWindow(int64_t first, Value dynamicFirst,
                                         SmallVector<Value> sums) {
  // Loops over the input channels, then the window rows; the taps of a
  // window row are unrolled. Window rows outside the image (its top and
  // bottom padding) add nothing: each is checked when some output row's
  // is outside.
  const Window &r = conv.rows;
  bool checked = false;
  for (int64_t ky = 0; ky < ranges[r.tap]; ++ky) {
    auto [lo, hi] = boo::windowRowsInside(r, ky, inRows, outRows);
    checked |= lo != 0 || hi != outRows;
  }
  SmallVector<Value> channel;
  std::function<SmallVector<Value>(unsigned, SmallVector<Value>)> loopOver =
      [&](unsigned level, SmallVector<Value> sums) -> SmallVector<Value> {
    bool isRow = level == conv.channels.size();
    int64_t extent = ranges[isRow ? r.tap : conv.channels[level]];
    auto loop =
        scf::ForOp::create(b, loc, index(0), index(extent), index(1), sums);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value iv = loop.getInductionVar();
    SmallVector<Value> inner(loop.getRegionIterArgs());
    if (!isRow) {
      channel.push_back(iv);
      inner = loopOver(level + 1, inner);
      channel.pop_back();
      scf::YieldOp::create(b, loc, inner);
      return SmallVector<Value>(loop.getResults());
    }
    Value row = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, oh, index(r.stride)),
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, iv, index(r.dilation)),
            index(r.offset)));
    if (!checked) {
      addTaps(channel, iv, row, first, dynamicFirst, inner);
      scf::YieldOp::create(b, loc, inner);
      return SmallVector<Value>(loop.getResults());
    }
    Value inside = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row, index(0)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row,
                              index(inRows)));
    auto ifOp = scf::IfOp::create(b, loc, TypeRange(ValueRange(inner)), inside,
                                  /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> added = inner;
    addTaps(channel, iv, row, first, dynamicFirst, added);
    scf::YieldOp::create(b, loc, added);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, inner);
    b.setInsertionPointAfter(ifOp);
    scf::YieldOp::create(b, loc, ifOp.getResults());
    return SmallVector<Value>(loop.getResults());
  };
  return loopOver(0, std::move(sums));
}

Value RowBuilder::chunk(Value rows, int64_t j, Value dynamicJ) {
  Value col =
      dynamicJ
          ? arith::MulIOp::create(b, loc, dynamicJ, index(lanes)).getResult()
          : index(j * lanes);
  bool full = dynamicJ || (j + 1) * lanes <= outCols;
  auto at = [&](int64_t m) {
    SmallVector<Value> indices(outRank, index(0));
    indices[conv.multiplierDim] = index(m);
    indices.back() = col;
    return indices;
  };
  SmallVector<Value> sums;
  for (int64_t m = 0; m < conv.block; ++m) {
    if (splat) {
      sums.push_back(splat);
      continue;
    }
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    sums.push_back(vector::TransferReadOp::create(
        b, loc, f32Vector(lanes), rows, at(m), zero, ArrayRef<bool>{full}));
  }
  // The image column of the register's first lane, for window column 0.
  const Window &w = conv.cols;
  int64_t first = j * lanes * w.stride + w.offset;
  Value dynamicFirst;
  if (dynamicJ)
    dynamicFirst = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, col, index(w.stride)),
        index(w.offset));
  sums = addWindow(first, dynamicFirst, std::move(sums));
  for (int64_t m = 0; m < conv.block; ++m)
    rows = vector::TransferWriteOp::create(b, loc, sums[m], rows, at(m),
                                           ArrayRef<bool>{full})
               .getResult();
  return rows;
}

Value RowBuilder::build(Value rows, ArrayRef<Value> rowLoops, Value init) {
  loops.assign(rowLoops.begin(), rowLoops.end());
  oh = loops[conv.rows.out];
  if (init)
    splat = vector::BroadcastOp::create(b, loc, f32Vector(lanes), init);
  // The registers whose taps all lie inside the image row, and that are
  // whole, are one loop; the others (the first, reading the left padding,
  // and the last, reading past the row or written masked) are unrolled.
  const Window &w = conv.cols;
  int64_t chunks = llvm::divideCeil(outCols, lanes);
  int64_t span = (ranges[w.tap] - 1) * w.dilation + tapWidth(0);
  auto clean = [&](int64_t j) {
    int64_t first = j * lanes * w.stride + w.offset;
    return first >= 0 && first + span <= inCols && (j + 1) * lanes <= outCols;
  };
  int64_t lo = 0;
  while (lo < chunks && !clean(lo))
    ++lo;
  int64_t hi = lo;
  while (hi < chunks && clean(hi))
    ++hi;
  for (int64_t j = 0; j < lo; ++j)
    rows = chunk(rows, j, Value());
  if (hi - lo == 1)
    rows = chunk(rows, lo, Value());
  if (hi - lo > 1) {
    auto loop = scf::ForOp::create(b, loc, index(lo), index(hi), index(1),
                                   ValueRange{rows});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    scf::YieldOp::create(
        b, loc, chunk(loop.getRegionIterArgs()[0], 0, loop.getInductionVar()));
    rows = loop.getResult(0);
  }
  for (int64_t j = hi; j < chunks; ++j)
    rows = chunk(rows, j, Value());
  return rows;
}

} // namespace

bool mlir::boo::convolveChannelPlanes(RewriterBase &rewriter,
                                      linalg::GenericOp op, int64_t vectorWidth,
                                      int64_t accumulatorLanes,
                                      int64_t maxChannels) {
  std::optional<ChannelConv> conv =
      matchChannelConv(op, vectorWidth, accumulatorLanes, maxChannels);
  if (!conv)
    return false;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value fill;
  Value dest = boo::convDestination(rewriter, op, fill);
  // One iteration per output row of a block of output channels.
  auto outType = cast<RankedTensorType>(dest.getType());
  unsigned rank = outType.getRank();
  SmallVector<OpFoldResult> ubs, sizes, strides(rank, rewriter.getIndexAttr(1));
  for (auto [i, size] : llvm::enumerate(outType.getShape().drop_back())) {
    bool block = i == conv->multiplierDim;
    ubs.push_back(rewriter.getIndexAttr(block ? size / conv->block : size));
    sizes.push_back(rewriter.getIndexAttr(block ? conv->block : 1));
  }
  sizes.push_back(rewriter.getIndexAttr(outType.getShape().back()));
  auto forall =
      scf::ForallOp::create(rewriter, loc, ubs, ValueRange{dest}, std::nullopt);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  SmallVector<Value> loops(op.getNumLoops(), zero);
  SmallVector<OpFoldResult> offsets;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (auto [i, iv] : llvm::enumerate(forall.getInductionVars())) {
    Value at = iv;
    if (i == conv->multiplierDim)
      at = arith::MulIOp::create(
          rewriter, loc, iv,
          arith::ConstantIndexOp::create(rewriter, loc, conv->block));
    loops[outMap.getDimPosition(i)] = at;
    offsets.push_back(at);
  }
  offsets.push_back(rewriter.getIndexAttr(0));
  Value shared = forall.getRegionIterArgs()[0];
  Value rows = tensor::ExtractSliceOp::create(rewriter, loc, shared, offsets,
                                              sizes, strides);
  Value result = RowBuilder(rewriter, *conv).build(rows, loops, fill);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, result, shared, offsets,
                                        sizes, strides);
  boo::replaceConvolution(rewriter, op, forall.getResults());
  return true;
}
