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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

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
/// The most lanes the sums of a group of output registers take in
/// shifted-sums mode (16 registers of 16 lanes).
constexpr int64_t kMaxSumLanes = 256;
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
/// else twice that: a stride-2 tap of 16 lanes is one two-register
/// shuffle on AVX-512, 28-wide rows carry their taps in 2 registers of 16,
/// and a Zen 5 issues two 512-bit FMAs per cycle (the measurements are in
/// docs/CPUPipeline.md, "Plane convolutions").
int64_t planeLanes(int64_t cols, int64_t vectorWidth) {
  if (2 * cols <= vectorWidth)
    return vectorWidth / 2;
  return cols > vectorWidth ? 2 * vectorWidth : vectorWidth;
}

/// Builds the rows of one output plane (convolvePlanes).
class PlaneBuilder : boo::PlaneExtents {
public:
  PlaneBuilder(RewriterBase &rewriter, PlaneConv conv, int64_t lanes,
               int64_t maxSets, bool pairRows)
      : PlaneExtents(conv.op, conv.source), b(rewriter), conv(conv),
        loc(conv.op.getLoc()), lanes(lanes), maxSets(maxSets),
        pairRows(pairRows) {
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
  /// Calls `add(ky, imageRow, acc)` for each window row ky of output row
  /// `oh` (one of [from, to)) whose image row is inside the image: inside
  /// an scf.if on `oh` where only some rows of [from, to) have it. Null
  /// values of `acc` are zeros.
  void
  addWindowRows(Value oh, int64_t from, int64_t to, SmallVector<Value> &acc,
                function_ref<void(int64_t, Value, SmallVector<Value> &)> add);
  /// The lanes of the sums of window column `kx` for register `j` of
  /// an output row in shifted-sums mode, from `q` (the column's sums per
  /// register of the image row, first at register `first`, null outside).
  Value shiftedSum(ArrayRef<Value> q, int64_t first, int64_t kx, int64_t j);
  /// The image registers (by first register and count) whose sums window
  /// column `kx` needs for output registers [j0, j1), inside the image.
  std::pair<int64_t, int64_t> sumRegisters(int64_t j0, int64_t j1, int64_t kx);
  /// How many lanes the sums of output registers [j0, j1) take.
  int64_t sumLanes(int64_t j0, int64_t j1);
  /// `sums` (output row `oh`'s initial values) plus its taps in
  /// shifted-sums mode: for each group of output registers, the products
  /// of each window column's weight with the image rows' registers at
  /// multiples of the lanes are summed over the window rows, per window
  /// column and register; each output register adds the sums of each
  /// window column shifted to its columns (one shuffle of two registers),
  /// not one shuffled tap per window row and column.
  SmallVector<Value> shiftedSums(Value oh, SmallVector<Value> sums,
                                 int64_t from, int64_t to);
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
  /// Whether rows use shifted sums (shiftedSums).
  bool shifted = false;
  /// Whether two output rows may share a register (pairedRows), and
  /// whether they do: each then takes `slot` of its `lanes` lanes.
  bool pairRows, paired = false;
  int64_t slot = 0;

  /// `plane` with every output row computed two rows to a register
  /// (pairedRows mode).
  Value pairedRows(Value plane);
  /// `plane` with output rows `oh` and, when `second`, oh+1 computed in
  /// one register: rows oh in lanes [0, slot), oh+1 in [slot, 2*slot).
  Value rowPair(Value oh, Value plane, bool second);
  /// Image row `row` in one register (zero past the row's end), or zeros
  /// when `row` is outside the image.
  Value wholeImageRow(Value row);
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
        v = arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f));
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

std::pair<int64_t, int64_t> PlaneBuilder::sumRegisters(int64_t j0, int64_t j1,
                                                       int64_t kx) {
  const Window &w = conv.cols;
  int64_t shift = w.offset + kx * w.dilation;
  int64_t lo =
      std::max<int64_t>(llvm::divideFloorSigned(j0 * lanes + shift, lanes), 0);
  int64_t hi = std::min<int64_t>(
      llvm::divideFloorSigned(std::min(j1 * lanes, outCols) - 1 + shift, lanes),
      llvm::divideCeil(inCols, lanes) - 1);
  return {lo, std::max<int64_t>(hi - lo + 1, 0)};
}

int64_t PlaneBuilder::sumLanes(int64_t j0, int64_t j1) {
  int64_t n = 0;
  for (int64_t kx = 0; kx < tapCols; ++kx)
    n += sumRegisters(j0, j1, kx).second;
  return n * lanes;
}

Value PlaneBuilder::shiftedSum(ArrayRef<Value> q, int64_t first, int64_t kx,
                               int64_t j) {
  const Window &w = conv.cols;
  int64_t col = j * lanes + w.offset + kx * w.dilation;
  int64_t base = llvm::divideFloorSigned(col, lanes);
  auto reg = [&](int64_t r) -> Value {
    if (r >= first && r < first + static_cast<int64_t>(q.size()))
      return q[r - first];
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f));
  };
  if (col == base * lanes)
    return reg(base);
  SmallVector<int64_t> lanesOf;
  for (int64_t i = 0; i < lanes; ++i)
    lanesOf.push_back(col - base * lanes + i);
  return vector::ShuffleOp::create(b, loc, reg(base), reg(base + 1), lanesOf);
}

SmallVector<Value> PlaneBuilder::shiftedSums(Value oh, SmallVector<Value> sums,
                                             int64_t from, int64_t to) {
  // Groups of output registers whose sums take at most 16 registers of
  // 16 lanes (sumLanes).
  for (int64_t j0 = 0, j1; j0 < chunks; j0 = j1) {
    for (j1 = j0 + 1; j1 < chunks && sumLanes(j0, j1 + 1) <= kMaxSumLanes;)
      ++j1;
    SmallVector<std::pair<int64_t, int64_t>> regs;
    SmallVector<int64_t> at = {0};
    for (int64_t kx = 0; kx < tapCols; ++kx) {
      regs.push_back(sumRegisters(j0, j1, kx));
      at.push_back(at.back() + regs.back().second);
    }
    SmallVector<Value> q(at.back());
    addWindowRows(
        oh, from, to, q, [&](int64_t ky, Value row, SmallVector<Value> &acc) {
          DenseMap<int64_t, Value> pieces;
          for (int64_t kx = 0; kx < tapCols; ++kx)
            for (int64_t r = 0; r < regs[kx].second; ++r) {
              int64_t reg = regs[kx].first + r;
              Value &piece = pieces[reg];
              if (!piece)
                piece = readImage(row, reg * lanes, lanes);
              Value weight = weights[ky * tapCols + kx];
              Value &sum = acc[at[kx] + r];
              sum = sum ? vector::FMAOp::create(b, loc, piece, weight, sum)
                              .getResult()
                        : arith::MulFOp::create(b, loc, piece, weight)
                              .getResult();
            }
        });
    for (int64_t j = j0; j < j1; ++j)
      for (int64_t kx = 0; kx < tapCols; ++kx) {
        ArrayRef<Value> kq = ArrayRef<Value>(q).slice(at[kx], regs[kx].second);
        if (kq.empty() || !llvm::all_of(kq, [](Value v) { return bool(v); }))
          continue; // No window row read the image.
        sums[j] = arith::AddFOp::create(b, loc, sums[j],
                                        shiftedSum(kq, regs[kx].first, kx, j));
      }
  }
  return sums;
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

Value PlaneBuilder::wholeImageRow(Value row) {
  Value inside = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row, index(0)),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row,
                            index(inRows)));
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{f32Vector(lanes)}, inside,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, readImage(row, 0, lanes));
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(
      b, loc,
      ValueRange{arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f))});
  return ifOp.getResult(0);
}

Value PlaneBuilder::rowPair(Value oh, Value plane, bool second) {
  const Window &w = conv.cols;
  Value next = arith::AddIOp::create(b, loc, oh, index(1));
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f));
  // Initial values: the fill's splat, or the two rows read from `plane`.
  SmallVector<Value> sums(sets, zeros);
  if (splat) {
    sums[0] = splat;
  } else {
    auto rowOf = [&](Value r) {
      SmallVector<Value> indices(outRank - 2, index(0));
      indices.append({r, index(0)});
      Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
      return vector::TransferReadOp::create(b, loc, f32Vector(slot), plane,
                                            indices, zero,
                                            ArrayRef<bool>{outCols == slot})
          .getResult();
    };
    Value low = rowOf(oh);
    Value high =
        second ? rowOf(next)
               : arith::ConstantOp::create(
                     b, loc, DenseElementsAttr::get(f32Vector(slot), 0.0f))
                     .getResult();
    sums[0] = vector::ShuffleOp::create(
        b, loc, low, high, llvm::to_vector(llvm::seq<int64_t>(0, lanes)));
  }
  // Lane i of a tap reads column i*stride + kx*dilation + offset of the
  // first row's image row, lane slot+i of the second's; the lanes outside
  // the image row read the last lane of the first register, a zero (the
  // image row is narrower than the register).
  // The image rows by their offset from row oh*stride, each read once
  // (the first row's last window row is the second's first at stride 2).
  const Window &h = conv.rows;
  DenseMap<int64_t, Value> imageRows;
  auto rowAt = [&](int64_t offset) {
    Value &row = imageRows[offset];
    if (!row)
      row = wholeImageRow(arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, oh, index(h.stride)),
          index(offset)));
    return row;
  };
  for (int64_t ky = 0; ky < tapRows; ++ky) {
    int64_t offset = ky * h.dilation + h.offset;
    Value first = rowAt(offset);
    Value other = rowAt(offset + h.stride);
    for (int64_t kx = 0; kx < tapCols; ++kx) {
      SmallVector<int64_t> lanesOf(lanes, lanes - 1);
      for (int64_t i = 0; i < std::min(slot, outCols); ++i) {
        int64_t col = i * w.stride + kx * w.dilation + w.offset;
        if (col < 0 || col >= inCols)
          continue;
        lanesOf[i] = col;
        lanesOf[slot + i] = lanes + col;
      }
      Value tap = vector::ShuffleOp::create(b, loc, first, other, lanesOf);
      int64_t t = ky * tapCols + kx;
      sums[t % sets] =
          vector::FMAOp::create(b, loc, tap, weights[t], sums[t % sets]);
    }
  }
  Value sum = sums[0];
  for (int64_t p = 1; p < sets; ++p)
    sum = arith::AddFOp::create(b, loc, sum, sums[p]);
  // Each row's lanes are written back, its tail masked.
  auto write = [&](Value r, int64_t from) {
    Value lanesOfRow = vector::ExtractStridedSliceOp::create(
        b, loc, sum, ArrayRef<int64_t>{from}, ArrayRef<int64_t>{slot},
        ArrayRef<int64_t>{1});
    SmallVector<Value> indices(outRank - 2, index(0));
    indices.append({r, index(0)});
    plane = vector::TransferWriteOp::create(b, loc, lanesOfRow, plane, indices,
                                            ArrayRef<bool>{outCols == slot})
                .getResult();
  };
  write(oh, 0);
  if (second)
    write(next, slot);
  return plane;
}

Value PlaneBuilder::pairedRows(Value plane) {
  int64_t pairs = outRows / 2;
  auto pairLoop = scf::ForOp::create(b, loc, index(0), index(pairs), index(1),
                                     ValueRange{plane});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(pairLoop.getBody());
    Value oh =
        arith::MulIOp::create(b, loc, pairLoop.getInductionVar(), index(2));
    scf::YieldOp::create(b, loc,
                         rowPair(oh, pairLoop.getRegionIterArgs()[0], true));
  }
  plane = pairLoop.getResult(0);
  if (outRows % 2)
    plane = rowPair(index(outRows - 1), plane, false);
  return plane;
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
  // The output rows whose window rows are all inside the image need no
  // checks; the rows above and below them do.
  int64_t lo = 0, hi = outRows;
  for (int64_t ky = 0; ky < tapRows; ++ky) {
    auto [first, last] = boo::windowRowsInside(conv.rows, ky, inRows, outRows);
    lo = std::max(lo, first);
    hi = std::min(hi, last);
  }
  if (paired)
    return pairedRows(plane);
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
  shifted = conv.cols.stride == 1 && carriedRows(conv, perRow) == 0;
  for (int64_t j = 0; shifted && j < chunks; ++j)
    shifted = sumLanes(j, j + 1) <= kMaxSumLanes;
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

} // namespace

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
      PlaneBuilder(rewriter, *conv, lanes, maxSets, lanes == vectorWidth)
          .build(plane, loops, fill);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, result, shared, offsets,
                                        sizes, strides);
  boo::replaceConvolution(rewriter, op, forall.getResults());
  return true;
}
