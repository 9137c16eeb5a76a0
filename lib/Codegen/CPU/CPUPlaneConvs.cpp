//===- CPUPlaneConvs.cpp - Convolutions computed plane by plane -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A channels-first depthwise convolution computed in its own layout, one
// output row at a time (see CPUPlaneConvs.h), and the matching of windows,
// bodies, fills and padding that CPUDepthwiseRows.cpp shares.
//
//===----------------------------------------------------------------------===//

#include "CPUPlaneConvs.h"

#include "CPUOperandLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace {

using Window = boo::ConvWindow;

/// The parts of a plane convolution (convolvePlanes).
struct PlaneConv {
  linalg::GenericOp op;
  OpOperand *image = nullptr, *filter = nullptr;
  /// The windows of the image's two innermost dims (rows, columns); their
  /// offsets are into `source`, the image without its zero padding.
  Window rows, cols;
  Value source;
};

/// The image operand of `op` and its windows, if `op` is a plane
/// convolution whose output rows have at least `minRow` elements.
std::optional<PlaneConv> matchPlaneConv(linalg::GenericOp op, int64_t minRow) {
  std::optional<boo::PlaneImage> image = boo::matchPlaneImage(op, minRow);
  if (!image)
    return std::nullopt;
  PlaneConv conv{op,          image->image, image->filter,
                 image->rows, image->cols,  image->image->get()};
  AffineMap imageMap = op.getMatchingIndexingMap(conv.image);
  unsigned n = imageMap.getNumResults();
  if (!boo::isDepthwiseWindow(op, conv.image, conv.filter, conv.rows, conv.cols,
                              n - 2, n - 1))
    return std::nullopt;
  // A zero-padded image is read unpadded.
  conv.source =
      boo::unpadWindows(conv.source, n - 2, n - 1, conv.rows, conv.cols);
  auto sourceType = cast<RankedTensorType>(conv.source.getType());
  if (!sourceType.hasStaticShape())
    return std::nullopt;
  return conv;
}

/// How many window rows' taps an interior output row passes on to the next
/// (as the next row's window rows 0..), for rows of `tapsPerRow` taps per
/// window row: none where they would take more than kMaxCarriedTaps
/// registers.
constexpr int64_t kMaxCarriedTaps = 12;
/// How many window rows further down output row oh+1's window row 0 is
/// than oh's (every window row, when no window row of oh+1 is one of oh's).
int64_t rowShift(const Window &w, int64_t tapRows) {
  return w.stride % w.dilation == 0 ? w.stride / w.dilation : tapRows;
}
int64_t carriedRows(PlaneConv conv, int64_t tapsPerRow) {
  int64_t tapRows = conv.op.getStaticLoopRanges()[conv.rows.tap];
  int64_t carried =
      std::max<int64_t>(tapRows - rowShift(conv.rows, tapRows), 0);
  return carried * tapsPerRow > kMaxCarriedTaps ? 0 : carried;
}

/// The lanes of a plane's registers for output rows of `cols`: half a
/// register for rows that fit in one, else `vectorWidth` for rows that fit
/// in one register of it (7-wide rows were twice as slow in 16 lanes),
/// else twice that. A stride-2 tap of 16 lanes is one two-register shuffle
/// on AVX-512, of 8 lanes two (MobileNetV2's 112x112x96 stride-2 layer
/// went from 0.116 to 0.081 ms on `cpu:1`), and 28-wide stride-1 rows
/// carry their taps to the next row in 2 registers of 16, not in 4 of 8
/// (28x28x192: 0.041-0.049 -> 0.029-0.031 ms). On a Zen 5, which issues
/// two 512-bit FMAs per cycle, the other stride-1 rows gain too (on
/// `cpu:1`, alternating `boo-run-module --benchmark` runs): 56x56x144 went
/// from 0.101-0.103 to 0.083 ms, 112x112x32 from 0.090 to 0.060-0.064,
/// 14x14x576 from 0.0177-0.0179 to 0.0129-0.0132, 14x14x384 from
/// 0.0119-0.0129 to 0.0090-0.0092. (On the Zen 4 before it, whose 512-bit
/// FMAs take two cycles, 14x14x576 went the other way, 0.024 -> 0.027.)
int64_t planeLanes(int64_t cols, int64_t vectorWidth) {
  if (2 * cols <= vectorWidth)
    return vectorWidth / 2;
  return cols > vectorWidth ? 2 * vectorWidth : vectorWidth;
}

/// Builds the rows of one output plane (convolvePlanes).
class PlaneBuilder : boo::PlaneExtents {
public:
  PlaneBuilder(RewriterBase &rewriter, PlaneConv conv, int64_t lanes,
               int64_t maxSets)
      : PlaneExtents(conv.op, conv.source), b(rewriter), conv(conv),
        loc(conv.op.getLoc()), lanes(lanes), maxSets(maxSets) {
    SmallVector<int64_t> ranges = conv.op.getStaticLoopRanges();
    tapRows = ranges[conv.rows.tap];
    tapCols = ranges[conv.cols.tap];
    f32 = b.getF32Type();
  }

  /// The plane at `loops` (the value of every loop but the window's):
  /// `plane` (the output's slice) with each row computed; `init`, when
  /// set, is every accumulator's initial value.
  Value build(Value plane, ArrayRef<Value> loops, Value init);

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  VectorType f32Vector(int64_t n) { return VectorType::get({n}, f32); }
  /// `n` lanes of the image row `row` from column `start` on (zero past
  /// the row's end), in f32.
  Value readImage(Value row, int64_t start, int64_t n);
  /// The lanes of a strided tap whose first lane reads column `col` of
  /// image row `row` (columns col + i*stride; lanes left of the row are
  /// zero), shuffled out of two registers of the row: those from column
  /// `shared` on, when they cover the tap, else two from its first column.
  /// The registers read are kept in `pieces`, by first column.
  Value stridedTap(Value row, int64_t col, int64_t shared,
                   DenseMap<int64_t, Value> &pieces);
  /// The lanes of a unit-stride tap whose first lane reads column `col`
  /// of image row `row`: the row's register at the multiple of `lanes`
  /// at or left of `col`, shuffled with the next one (zero registers left
  /// and right of the row). The registers read are kept in `pieces`.
  Value alignedTap(Value row, int64_t col, DenseMap<int64_t, Value> &pieces);
  /// Whether the tap of window column `kx` for register `j` of an output
  /// row reads the image: a tap left of the row (in a wide padding) adds
  /// nothing, in every row.
  bool tapPresent(int64_t j, int64_t kx) {
    const Window &w = conv.cols;
    return j * lanes * w.stride + w.offset + kx * w.dilation +
               (lanes - 1) * w.stride >=
           0;
  }
  /// The taps of image row `row` for every register of an output row and
  /// every window column (index j * tapCols + kx); null for the taps left
  /// of the row, which add nothing.
  SmallVector<Value> rowTaps(Value row);
  /// `sums` with the taps of window row `ky` multiplied and added.
  void addTaps(ArrayRef<Value> taps, int64_t ky, SmallVector<Value> &sums);
  /// The partial sums of output row `oh` before any tap: the initial
  /// values (read from `plane` unless a fill's), then zeros.
  SmallVector<Value> initialSums(Value oh, Value plane);
  /// `plane` with output row `oh` written: the sum of the sets of `sums`.
  Value writeRow(Value oh, Value plane, ArrayRef<Value> sums);
  /// `plane` with output rows [from, to) computed, each window row inside
  /// an scf.if on whether its image row is inside the image.
  Value checkedRows(Value plane, int64_t from, int64_t to);
  /// `plane` with output rows [from, to) computed, whose image rows are
  /// all inside the image; the taps of the image rows the next output row
  /// reads again are carried to it.
  Value interiorRows(Value plane, int64_t from, int64_t to);
  /// The image row of output row `oh` and window row `ky`.
  Value imageRow(Value oh, int64_t ky);

  RewriterBase &b;
  PlaneConv conv;
  Location loc;
  int64_t lanes, maxSets;
  int64_t tapRows, tapCols;
  Type f32;
  // Set by build: the plane's loops, the broadcast weights (index
  // ky * tapCols + kx), the fill's splat (or null), the registers of an
  // output row, and the sets of partial sums.
  SmallVector<Value> loops, weights;
  Value splat;
  int64_t chunks = 1, sets = 1;
};

Value PlaneBuilder::readImage(Value row, int64_t start, int64_t n) {
  SmallVector<Value> indices;
  AffineMap map = conv.op.getMatchingIndexingMap(conv.image);
  for (AffineExpr e : map.getResults().drop_back(2))
    indices.push_back(loops[cast<AffineDimExpr>(e).getPosition()]);
  indices.append({row, index(start)});
  return boo::readImageRow(b, loc, conv.source, indices, n,
                           start + n <= inCols);
}

Value PlaneBuilder::stridedTap(Value row, int64_t col, int64_t shared,
                               DenseMap<int64_t, Value> &pieces) {
  int64_t stride = conv.cols.stride;
  // Lane i reads column col + i*stride; lanes left of the row are zero.
  int64_t zeroLanes = col < 0 ? llvm::divideCeil(-col, stride) : 0;
  int64_t low = col + zeroLanes * stride, high = col + (lanes - 1) * stride;
  // The lanes come from two registers of the row: those the chunk's taps
  // share when they cover them, else two read at the tap's first column.
  int64_t base = low >= shared && high < shared + 2 * lanes ? shared : low;
  auto piece = [&](int64_t start) {
    Value &v = pieces[start];
    if (!v)
      v = readImage(row, start, lanes);
    return v;
  };
  Value first = piece(base);
  Value second = high < base + lanes ? first : piece(base + lanes);
  SmallVector<int64_t> lanesOf;
  for (int64_t i = 0; i < lanes; ++i)
    lanesOf.push_back(i < zeroLanes ? 0 : col + i * stride - base);
  Value tap = vector::ShuffleOp::create(b, loc, first, second, lanesOf);
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

Value PlaneBuilder::alignedTap(Value row, int64_t col,
                               DenseMap<int64_t, Value> &pieces) {
  int64_t base = llvm::divideFloorSigned(col, lanes) * lanes;
  auto piece = [&](int64_t start) {
    Value &v = pieces[start];
    if (!v)
      v = start + lanes <= 0 || start >= inCols
              ? arith::ConstantOp::create(
                    b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f))
                    .getResult()
              : readImage(row, start, lanes);
    return v;
  };
  Value first = piece(base);
  if (col == base)
    return first;
  SmallVector<int64_t> lanesOf;
  for (int64_t i = 0; i < lanes; ++i)
    lanesOf.push_back(col - base + i);
  Value second = piece(base + lanes);
  return vector::ShuffleOp::create(b, loc, first, second, lanesOf);
}

SmallVector<Value> PlaneBuilder::rowTaps(Value row) {
  const Window &w = conv.cols;
  SmallVector<Value> taps;
  // Registers of this image row, by first column (stridedTap).
  DenseMap<int64_t, Value> pieces;
  for (int64_t j = 0; j < chunks; ++j) {
    int64_t first = j * lanes * w.stride + w.offset;
    for (int64_t kx = 0; kx < tapCols; ++kx) {
      int64_t col = first + kx * w.dilation;
      Value &tap = taps.emplace_back();
      if (!tapPresent(j, kx))
        continue;
      if (w.stride > 1 && (lanes - 1) * w.stride < 2 * lanes) {
        // A strided tap's lanes span two registers: one two-register
        // shuffle (a wider shuffle became several per tap on x86).
        tap = stridedTap(row, col, std::max<int64_t>(first, 0), pieces);
        continue;
      }
      if (w.stride == 1) {
        tap = alignedTap(row, col, pieces);
        continue;
      }
      // A unit-stride tap is read where it starts (a register), shifted
      // by zeros left of the row; a wider stride reads its span and
      // shuffles its lanes out.
      int64_t start = std::max<int64_t>(col, 0);
      int64_t width =
          llvm::alignTo(col + (lanes - 1) * w.stride - start + 1, lanes);
      tap = readImage(row, start, width);
      SmallVector<int64_t> lanesOf;
      for (int64_t i = 0; i < lanes; ++i) {
        int64_t at = col + i * w.stride - start;
        lanesOf.push_back(at < 0 ? width : at);
      }
      if (width != lanes ||
          !llvm::equal(lanesOf, llvm::seq<int64_t>(0, lanes))) {
        Value zeros = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(f32Vector(width), 0.0f));
        tap = vector::ShuffleOp::create(b, loc, tap, zeros, lanesOf);
      }
    }
  }
  return taps;
}

void PlaneBuilder::addTaps(ArrayRef<Value> taps, int64_t ky,
                           SmallVector<Value> &sums) {
  for (int64_t j = 0; j < chunks; ++j)
    for (int64_t kx = 0; kx < tapCols; ++kx) {
      Value tap = taps[j * tapCols + kx];
      if (!tap)
        continue;
      int64_t t = ky * tapCols + kx;
      Value &sum = sums[(t % sets) * chunks + j];
      sum = vector::FMAOp::create(b, loc, tap, weights[t], sum);
    }
}

SmallVector<Value> PlaneBuilder::initialSums(Value oh, Value plane) {
  SmallVector<Value> sums;
  for (int64_t j = 0; j < chunks; ++j) {
    if (splat) {
      sums.push_back(splat);
      continue;
    }
    SmallVector<Value> indices(outRank - 2, index(0));
    indices.append({oh, index(j * lanes)});
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    sums.push_back(vector::TransferReadOp::create(
        b, loc, f32Vector(lanes), plane, indices, zero,
        ArrayRef<bool>{(j + 1) * lanes <= outCols}));
  }
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f));
  for (int64_t p = 1; p < sets; ++p)
    sums.append(chunks, zeros);
  return sums;
}

Value PlaneBuilder::writeRow(Value oh, Value plane, ArrayRef<Value> sums) {
  for (int64_t j = 0; j < chunks; ++j) {
    Value sum = sums[j];
    for (int64_t p = 1; p < sets; ++p)
      sum = arith::AddFOp::create(b, loc, sum, sums[p * chunks + j]);
    SmallVector<Value> indices(outRank - 2, index(0));
    indices.append({oh, index(j * lanes)});
    plane = vector::TransferWriteOp::create(
                b, loc, sum, plane, indices,
                ArrayRef<bool>{(j + 1) * lanes <= outCols})
                .getResult();
  }
  return plane;
}

Value PlaneBuilder::imageRow(Value oh, int64_t ky) {
  const Window &w = conv.rows;
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, oh, index(w.stride)),
      index(ky * w.dilation + w.offset));
}

Value PlaneBuilder::checkedRows(Value plane, int64_t from, int64_t to) {
  if (from >= to)
    return plane;
  auto rowLoop = scf::ForOp::create(b, loc, index(from), index(to), index(1),
                                    ValueRange{plane});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rowLoop.getBody());
  Value oh = rowLoop.getInductionVar();
  Value rowPlane = rowLoop.getRegionIterArgs()[0];
  SmallVector<Value> sums = initialSums(oh, rowPlane);
  for (int64_t ky = 0; ky < tapRows; ++ky) {
    // Image row oh*stride + ky*dilation + offset is inside the image for
    // oh in [lo, hi).
    auto [lo, hi] = boo::windowRowsInside(conv.rows, ky, inRows, outRows);
    lo = std::max(lo, from);
    hi = std::min(hi, to);
    if (lo >= hi)
      continue;
    Value cond;
    auto both = [&](Value c) {
      cond = cond ? arith::AndIOp::create(b, loc, cond, c).getResult() : c;
    };
    if (lo > from)
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, oh,
                                 index(lo)));
    if (hi < to)
      both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, oh,
                                 index(hi)));
    if (!cond) {
      addTaps(rowTaps(imageRow(oh, ky)), ky, sums);
      continue;
    }
    auto ifOp = scf::IfOp::create(b, loc, TypeRange(ValueRange(sums)), cond,
                                  /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> added = sums;
    addTaps(rowTaps(imageRow(oh, ky)), ky, added);
    scf::YieldOp::create(b, loc, added);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, sums);
    b.setInsertionPointAfter(ifOp);
    sums = SmallVector<Value>(ifOp.getResults());
  }
  scf::YieldOp::create(b, loc, writeRow(oh, rowPlane, sums));
  return rowLoop.getResult(0);
}

Value PlaneBuilder::interiorRows(Value plane, int64_t from, int64_t to) {
  if (from >= to)
    return plane;
  // Output row oh+1 reads the image rows of window rows shift.. of row oh
  // as its window rows 0..: their taps are carried to the next iteration
  // (up to kMaxCarriedTaps registers).
  int64_t shift = rowShift(conv.rows, tapRows);
  SmallVector<bool> present;
  for (int64_t j = 0; j < chunks; ++j)
    for (int64_t kx = 0; kx < tapCols; ++kx)
      present.push_back(tapPresent(j, kx));
  int64_t perRow = llvm::count(present, true);
  int64_t carried = carriedRows(conv, perRow);
  SmallVector<Value> inits = {plane};
  for (int64_t ky = 0; ky < carried; ++ky)
    for (Value tap : rowTaps(imageRow(index(from), ky)))
      if (tap)
        inits.push_back(tap);
  auto rowLoop =
      scf::ForOp::create(b, loc, index(from), index(to), index(1), inits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(rowLoop.getBody());
  Value oh = rowLoop.getInductionVar();
  ValueRange args = rowLoop.getRegionIterArgs();
  SmallVector<Value> sums = initialSums(oh, args[0]);
  SmallVector<Value> next;
  for (int64_t ky = 0; ky < tapRows; ++ky) {
    SmallVector<Value> taps;
    if (ky < carried) {
      ValueRange row = args.drop_front(1 + ky * perRow).take_front(perRow);
      auto it = row.begin();
      for (bool p : present)
        taps.push_back(p ? *it++ : Value());
    } else {
      taps = rowTaps(imageRow(oh, ky));
    }
    addTaps(taps, ky, sums);
    if (ky >= shift && ky < shift + carried)
      for (Value tap : taps)
        if (tap)
          next.push_back(tap);
  }
  SmallVector<Value> yields = {writeRow(oh, args[0], sums)};
  yields.append(next);
  scf::YieldOp::create(b, loc, yields);
  return rowLoop.getResult(0);
}

Value PlaneBuilder::build(Value plane, ArrayRef<Value> planeLoops, Value init) {
  loops.assign(planeLoops.begin(), planeLoops.end());
  // The taps' weights, broadcast.
  AffineMap filterMap = conv.op.getMatchingIndexingMap(conv.filter);
  for (int64_t ky = 0; ky < tapRows; ++ky)
    for (int64_t kx = 0; kx < tapCols; ++kx) {
      SmallVector<Value> indices;
      for (AffineExpr e : filterMap.getResults()) {
        unsigned d = cast<AffineDimExpr>(e).getPosition();
        indices.push_back(d == conv.rows.tap   ? index(ky)
                          : d == conv.cols.tap ? index(kx)
                                               : loops[d]);
      }
      Value weight =
          tensor::ExtractOp::create(b, loc, conv.filter->get(), indices);
      if (!weight.getType().isF32())
        weight = arith::ExtFOp::create(b, loc, f32, weight);
      weights.push_back(
          vector::BroadcastOp::create(b, loc, f32Vector(lanes), weight));
    }
  if (init)
    splat = vector::BroadcastOp::create(b, loc, f32Vector(lanes), init);
  chunks = llvm::divideCeil(outCols, lanes);
  // The taps add to `sets` sets of partial sums (the first set starts at
  // the initial values), tap t to set t % sets, so that a row of few
  // registers still has about 8 independent chains of multiply-adds; the
  // sets are summed at the end. With one set, the 7x7x960 layer's rows
  // were chains of 9 dependent multiply-adds: 0.055 ms against 0.014 ms
  // with 3 sets (more sets were slower again). At most `maxSets`.
  sets = std::clamp<int64_t>(8 / chunks, 1, maxSets);
  // The output rows whose window rows are all inside the image need no
  // checks; the rows above and below them do.
  int64_t lo = 0, hi = outRows;
  for (int64_t ky = 0; ky < tapRows; ++ky) {
    auto [first, last] = boo::windowRowsInside(conv.rows, ky, inRows, outRows);
    lo = std::max(lo, first);
    hi = std::min(hi, last);
  }
  if (lo >= hi)
    return checkedRows(plane, 0, outRows);
  plane = checkedRows(plane, 0, lo);
  plane = interiorRows(plane, lo, hi);
  return checkedRows(plane, hi, outRows);
}

} // namespace

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

bool mlir::boo::convolvePlanes(RewriterBase &rewriter, linalg::GenericOp op,
                               int64_t vectorWidth) {
  std::optional<PlaneConv> conv = matchPlaneConv(op, vectorWidth / 4);
  if (!conv)
    return false;
  int64_t cols =
      cast<ShapedType>(op.getDpsInits()[0].getType()).getShape().back();
  int64_t lanes = planeLanes(cols, vectorWidth);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value fill;
  Value dest = boo::convDestination(rewriter, op, fill);
  // One iteration per output plane.
  auto outType = cast<RankedTensorType>(dest.getType());
  unsigned rank = outType.getRank();
  SmallVector<OpFoldResult> ubs, offsets, sizes,
      strides(rank, rewriter.getIndexAttr(1));
  for (int64_t size : outType.getShape().drop_back(2)) {
    ubs.push_back(rewriter.getIndexAttr(size));
    sizes.push_back(rewriter.getIndexAttr(1));
  }
  for (int64_t size : outType.getShape().take_back(2))
    sizes.push_back(rewriter.getIndexAttr(size));
  auto forall =
      scf::ForallOp::create(rewriter, loc, ubs, ValueRange{dest}, std::nullopt);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  // Every loop but the window's: the plane's induction variables, and 0
  // for the reductions of extent 1.
  SmallVector<Value> loops(op.getNumLoops(), zero);
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (auto [i, iv] : llvm::enumerate(forall.getInductionVars())) {
    loops[outMap.getDimPosition(i)] = iv;
    offsets.push_back(iv);
  }
  offsets.append(2, rewriter.getIndexAttr(0));
  Value shared = forall.getRegionIterArgs()[0];
  Value plane = tensor::ExtractSliceOp::create(rewriter, loc, shared, offsets,
                                               sizes, strides);
  // Stride-2 rows in registers twice the vector width (planeLanes) were
  // faster with one set of partial sums: the 112x112x96 layer took 0.081
  // ms with one and 0.096 with 2, the 28x28x192 layer 0.012-0.014 ms with
  // one and 0.0145 with 3.
  int64_t maxSets = conv->cols.stride > 1 && lanes > vectorWidth ? 1 : 3;
  Value result =
      PlaneBuilder(rewriter, *conv, lanes, maxSets).build(plane, loops, fill);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, result, shared, offsets,
                                        sizes, strides);
  boo::replaceConvolution(rewriter, op, forall.getResults());
  return true;
}
