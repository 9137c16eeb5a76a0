//===- CPUPlaneConvs.cpp - Convolutions computed plane by plane -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A channels-first depthwise convolution computed in its own layout, one
// output row at a time (see CPUPlaneConvs.h).
//
//===----------------------------------------------------------------------===//

#include "CPUPlaneConvs.h"

#include "CPUConvWindows.h"
#include "CPUPlaneBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::boo::planes;

namespace {

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

/// How many window rows further down output row oh+1's window row 0 is
/// than oh's (every window row, when no window row of oh+1 is one of oh's).
int64_t rowShift(const Window &w, int64_t tapRows) {
  return w.stride % w.dilation == 0 ? w.stride / w.dilation : tapRows;
}
/// How many window rows' taps an interior output row passes on to the next
/// (as the next row's window rows 0..), for rows of `rowLanes` lanes of
/// taps per window row: none where they would take more than `maxLanes`.
int64_t carriedRows(PlaneConv conv, int64_t rowLanes, int64_t maxLanes) {
  int64_t tapRows = conv.op.getStaticLoopRanges()[conv.rows.tap];
  int64_t carried =
      std::max<int64_t>(tapRows - rowShift(conv.rows, tapRows), 0);
  return carried * rowLanes > maxLanes ? 0 : carried;
}

/// The lanes of a plane's registers for output rows of `cols`: half a
/// register for rows that fit in one, else `vectorWidth` for rows that fit
/// in one register of it (7-wide rows were twice as slow in 16 lanes),
/// else twice that: a stride-2 tap of 16 lanes is one two-register
/// shuffle on AVX-512, 28-wide rows carry their taps in 2 registers of 16,
/// and a Zen 5 issues two 512-bit FMAs per cycle (the measurements are in
/// docs/CPUPipeline.md, "Plane convolutions").
int64_t planeLanes(int64_t cols, int64_t vectorWidth) {
  if (2 * cols <= vectorWidth)
    return vectorWidth / 2;
  return cols > vectorWidth ? 2 * vectorWidth : vectorWidth;
}

} // namespace

Value PlaneBuilder::readImage(Value row, int64_t start, int64_t n) {
  SmallVector<Value> indices;
  AffineMap map = conv.op.getMatchingIndexingMap(conv.image);
  for (AffineExpr e : map.getResults().drop_back(2))
    indices.push_back(loops[cast<AffineDimExpr>(e).getPosition()]);
  indices.append({row, index(start)});
  return boo::readImageRow(b, loc, conv.source, indices, n,
                           start + n <= inCols);
}

Value PlaneBuilder::readPlaneRow(Value plane, Value oh, int64_t col,
                                 int64_t n) {
  SmallVector<Value> indices(outRank - 2, index(0));
  indices.append({oh, index(col)});
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  return vector::TransferReadOp::create(b, loc, f32Vector(n), plane, indices,
                                        zero,
                                        ArrayRef<bool>{col + n <= outCols});
}

Value PlaneBuilder::writePlaneRow(Value plane, Value oh, int64_t col,
                                  Value value) {
  SmallVector<Value> indices(outRank - 2, index(0));
  indices.append({oh, index(col)});
  int64_t n = cast<VectorType>(value.getType()).getNumElements();
  return vector::TransferWriteOp::create(b, loc, value, plane, indices,
                                         ArrayRef<bool>{col + n <= outCols})
      .getResult();
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
  return arith::SelectOp::create(b, loc, mask, tap, zeros(lanes));
}

Value PlaneBuilder::alignedTap(Value row, int64_t col,
                               DenseMap<int64_t, Value> &pieces) {
  int64_t base = llvm::divideFloorSigned(col, lanes) * lanes;
  auto piece = [&](int64_t start) {
    Value &v = pieces[start];
    if (!v)
      v = start + lanes <= 0 || start >= inCols ? zeros(lanes)
                                                : readImage(row, start, lanes);
    return v;
  };
  Value first = piece(base);
  return col == base ? first
                     : shiftLanes(first, piece(base + lanes), col - base);
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
        tap = vector::ShuffleOp::create(b, loc, tap, zeros(width), lanesOf);
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
    sums.push_back(splat ? splat : readPlaneRow(plane, oh, j * lanes, lanes));
  }
  for (int64_t p = 1; p < sets; ++p)
    sums.append(chunks, zeros(lanes));
  return sums;
}

Value PlaneBuilder::writeRow(Value oh, Value plane, ArrayRef<Value> sums) {
  for (int64_t j = 0; j < chunks; ++j) {
    Value sum = sums[j];
    for (int64_t p = 1; p < sets; ++p)
      sum = arith::AddFOp::create(b, loc, sum, sums[p * chunks + j]);
    plane = writePlaneRow(plane, oh, j * lanes, sum);
  }
  return plane;
}

Value PlaneBuilder::imageRow(Value oh, int64_t ky) {
  return imageRowAt(oh, ky * conv.rows.dilation + conv.rows.offset);
}

Value PlaneBuilder::imageRowAt(Value oh, int64_t offset) {
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, oh, index(conv.rows.stride)),
      index(offset));
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
  if (shifted)
    sums = shiftedSums(oh, sums, from, to);
  else
    addWindowRows(oh, from, to, sums,
                  [&](int64_t ky, Value row, SmallVector<Value> &acc) {
                    addTaps(rowTaps(row), ky, acc);
                  });
  scf::YieldOp::create(b, loc, writeRow(oh, rowPlane, sums));
  return rowLoop.getResult(0);
}

void PlaneBuilder::addWindowRows(
    Value oh, int64_t from, int64_t to, SmallVector<Value> &acc,
    function_ref<void(int64_t, Value, SmallVector<Value> &)> add) {
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
      add(ky, imageRow(oh, ky), acc);
      continue;
    }
    for (Value &v : acc)
      if (!v)
        v = zeros(lanes);
    auto ifOp = scf::IfOp::create(b, loc, TypeRange(ValueRange(acc)), cond,
                                  /*withElseRegion=*/true);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> added = acc;
    add(ky, imageRow(oh, ky), added);
    scf::YieldOp::create(b, loc, added);
    b.setInsertionPointToStart(ifOp.elseBlock());
    scf::YieldOp::create(b, loc, acc);
    b.setInsertionPointAfter(ifOp);
    acc = SmallVector<Value>(ifOp.getResults());
  }
}

Value PlaneBuilder::interiorRows(Value plane, int64_t from, int64_t to) {
  if (from >= to)
    return plane;
  // Output row oh+1 reads the image rows of window rows shift.. of row oh
  // as its window rows 0..: their taps are carried to the next iteration
  // (up to maxCarriedLanes).
  int64_t shift = rowShift(conv.rows, tapRows);
  SmallVector<bool> present;
  for (int64_t j = 0; j < chunks; ++j)
    for (int64_t kx = 0; kx < tapCols; ++kx)
      present.push_back(tapPresent(j, kx));
  int64_t perRow = llvm::count(present, true);
  int64_t carried = carriedRows(conv, perRow * lanes, maxCarriedLanes);
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
  // Strided rows of at most one register of `lanes` (half of a 512-bit
  // one) whose image rows fit in a register of twice that, with a lane to
  // spare, are computed two to a register (pairedRows; 14x14x576 at stride
  // 2: 0.0071-0.0074 -> 0.0059-0.0062 ms on cpu:1). Unit-stride rows,
  // which carry their taps to the next row, were slower paired.
  paired = pairRows && outCols <= lanes && inCols < 2 * lanes && outRows >= 2 &&
           conv.cols.stride > 1;
  if (paired) {
    slot = lanes;
    lanes *= 2;
  }
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
  if (paired)
    return pairedRows(plane);
  // The output rows whose window rows are all inside the image need no
  // checks; the rows above and below them do.
  int64_t lo = 0, hi = outRows;
  for (int64_t ky = 0; ky < tapRows; ++ky) {
    auto [first, last] = boo::windowRowsInside(conv.rows, ky, inRows, outRows);
    lo = std::max(lo, first);
    hi = std::min(hi, last);
  }
  // Unit-stride rows whose taps are not carried to the next row add
  // shifted sums, where they fit (every output register's alone). On
  // `cpu:1` (alternating `boo-run-module --benchmark` runs), 56x56x144
  // went from 0.062 to 0.043 ms and 112x112x32 from 0.052 to 0.038; the
  // rows that carry their taps were as fast or faster with them
  // (28x28x192: 0.0139 ms against 0.0155 with shifted sums).
  int64_t perRow = 0;
  for (int64_t j = 0; j < chunks; ++j)
    for (int64_t kx = 0; kx < tapCols; ++kx)
      perRow += tapPresent(j, kx);
  shifted = conv.cols.stride == 1 &&
            carriedRows(conv, perRow * lanes, maxCarriedLanes) == 0;
  for (int64_t j = 0; shifted && j < chunks; ++j)
    shifted = sumLanes(j, j + 1) <= maxSumLanes;
  if (shifted)
    sets = 1;
  if (lo >= hi)
    return checkedRows(plane, 0, outRows);
  if (shifted)
    plane = checkedRows(checkedRows(plane, 0, lo), lo, hi);
  else
    plane = interiorRows(checkedRows(plane, 0, lo), lo, hi);
  return checkedRows(plane, hi, outRows);
}

bool mlir::boo::convolvePlanes(RewriterBase &rewriter, linalg::GenericOp op,
                               int64_t vectorWidth, int64_t accumulatorLanes) {
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
      PlaneBuilder(rewriter, *conv, lanes, maxSets, lanes == vectorWidth,
                   accumulatorLanes)
          .build(plane, loops, fill);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, result, shared, offsets,
                                        sizes, strides);
  boo::replaceConvolution(rewriter, op, forall.getResults());
  return true;
}
