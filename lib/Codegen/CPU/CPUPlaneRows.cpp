//===- CPUPlaneRows.cpp - A plane convolution's other row schedules -------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The rows of a channels-first depthwise convolution that are not one
// shuffled tap per window row and column (CPUPlaneBuilder.h): unit-stride
// rows too long to carry their taps add shifted sums, and short strided
// rows are computed two to a register.
//
//===----------------------------------------------------------------------===//

#include "CPUPlaneBuilder.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::boo::planes;

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
    return zeros(lanes);
  };
  if (col == base * lanes)
    return reg(base);
  return shiftLanes(reg(base), reg(base + 1), col - base * lanes);
}

SmallVector<Value> PlaneBuilder::shiftedSums(Value oh, SmallVector<Value> sums,
                                             int64_t from, int64_t to) {
  // Groups of output registers whose sums take at most maxSumLanes (16
  // registers of 16 lanes with AVX-512; sumLanes).
  for (int64_t j0 = 0, j1; j0 < chunks; j0 = j1) {
    for (j1 = j0 + 1; j1 < chunks && sumLanes(j0, j1 + 1) <= maxSumLanes;)
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
  scf::YieldOp::create(b, loc, ValueRange{zeros(lanes)});
  return ifOp.getResult(0);
}

Value PlaneBuilder::rowPair(Value oh, Value plane, bool second) {
  const Window &w = conv.cols;
  Value next = arith::AddIOp::create(b, loc, oh, index(1));
  // Initial values: the fill's splat, or the two rows read from `plane`.
  SmallVector<Value> sums(sets, zeros(lanes));
  if (splat) {
    sums[0] = splat;
  } else {
    Value low = readPlaneRow(plane, oh, 0, slot);
    Value high = second ? readPlaneRow(plane, next, 0, slot) : zeros(slot);
    sums[0] = vector::ShuffleOp::create(
        b, loc, low, high, llvm::to_vector(llvm::seq<int64_t>(0, lanes)));
  }
  // The image rows by their offset from row oh*stride, each read once
  // (the first row's last window row is the second's first at stride 2).
  const Window &h = conv.rows;
  DenseMap<int64_t, Value> imageRows;
  auto rowAt = [&](int64_t offset) {
    Value &row = imageRows[offset];
    if (!row)
      row = wholeImageRow(imageRowAt(oh, offset));
    return row;
  };
  for (int64_t ky = 0; ky < tapRows; ++ky) {
    int64_t offset = ky * h.dilation + h.offset;
    Value first = rowAt(offset);
    Value other = rowAt(offset + h.stride);
    // Lane i of a tap reads column i*stride + kx*dilation + offset of the
    // first row's image row, lane slot+i of the second's; the lanes outside
    // the image row read the last lane of the first register, a zero (the
    // image row is narrower than the register).
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
    plane = writePlaneRow(plane, r, 0,
                          vector::ExtractStridedSliceOp::create(
                              b, loc, sum, ArrayRef<int64_t>{from},
                              ArrayRef<int64_t>{slot}, ArrayRef<int64_t>{1}));
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
