//===- MMAStaging.cpp - One MMA kernel's operands into LDS ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The stage step of MMAKernelEmitter: each step's A and B tiles, copied
// into LDS by all threads, as wide as the operand's memory layout allows
// (docs/GPUPipeline.md, "Wide staging"): along K when its rows are
// contiguous along K, else along M or N with a transpose in registers,
// else one element at a time.
//
//===----------------------------------------------------------------------===//

#include "MMAKernelEmitter.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::boo;

namespace mlir::boo::mma {

/// The widest access (at most 16 bytes) in which a staged operand can be
/// read along `loop`: its rows are contiguous along it in memory (see
/// VectorReplay.cpp) and the vectors tile the workgroup's tile and the
/// loop's extent exactly, so each is wholly inside or outside the problem.
int64_t MMAKernelEmitter::pickStagingWidth(const Factor &f, unsigned loop,
                                           int64_t tile, int64_t extent) const {
  if (!canMaterializeFactorVector(acc, f, loop))
    return 1;
  for (int64_t w = kMaxAccessBytes / elemBytes(); w > 1; w /= 2)
    if (tile % w == 0 && extent % w == 0)
      return w;
  return 1;
}

/// Operand value at `coords` (all loops set), 0 outside the problem.
Value MMAKernelEmitter::operandValue(OpBuilder &ob, const Factor &f,
                                     SmallVector<Value> coords, Value mOrN,
                                     int64_t mOrNLoop, int64_t mOrNExtent,
                                     Value kCoord, int64_t width,
                                     std::optional<unsigned> vectorLoop) {
  coords[mOrNLoop] = mOrN;
  coords[kL] = kCoord;
  // The loop this factor does not read: any in-range value.
  coords[mOrNLoop == mL ? nL : mL] = zeroIdx;
  for (Value &c : coords)
    if (!c)
      c = zeroIdx;
  // A vector is wholly inside or outside the problem (pickStagingWidth).
  Value inRange = andAll(
      ob, loc,
      {lessThan(ob, loc, mOrN, mOrNExtent), lessThan(ob, loc, kCoord, extK)});
  if (width == 1)
    return selectOrZero(ob, loc, inRange, elemType, [&](OpBuilder &tb) {
      return materializeFactor(tb, loc, acc, f, coords);
    });
  return selectOrZero(
      ob, loc, inRange, VectorType::get({width}, elemType), [&](OpBuilder &tb) {
        return materializeFactorVector(tb, loc, acc, f, coords,
                                       vectorLoop.value_or(kL), width);
      });
}

/// Stages the A and B tiles of `step` into LDS buffer `buffer`.
void MMAKernelEmitter::stage(OpBuilder &outer, Value step, Value buffer) {
  StepPosition at = stepCoords(outer, step);
  // A skipped step stages nothing (its compute is skipped too).
  OpBuilder sb = outer;
  if (Value valid = at.valid) {
    auto guard = scf::IfOp::create(outer, loc, valid,
                                   /*withElseRegion=*/false);
    sb = OpBuilder::atBlockTerminator(guard.thenBlock());
  }
  for (bool isA : {true, false}) {
    if (!(isA ? stagedA : stagedB))
      continue;
    if ((isA ? mnWidthA : mnWidthB) > 1)
      stageOperandAlongMN(sb, at, buffer, isA);
    else
      stageOperand(sb, at, buffer, isA);
  }
}

/// Runs `body` for items tid, tid + threads, ... below `count`: each
/// thread's share of a staging.
void MMAKernelEmitter::forEachStagingItem(
    OpBuilder &sb, int64_t count, function_ref<void(OpBuilder &, Value)> body) {
  int64_t perThread = llvm::divideCeil(count, threads);
  auto forOp = scf::ForOp::create(sb, loc, zeroIdx, cIndex(sb, loc, perThread),
                                  cIndex(sb, loc, 1));
  OpBuilder fb = OpBuilder::atBlockTerminator(forOp.getBody());
  Value idx = arith::AddIOp::create(
      fb, loc, tid,
      arith::MulIOp::create(fb, loc, forOp.getInductionVar(),
                            cIndex(fb, loc, threads)));
  if (count % threads == 0)
    return body(fb, idx);
  auto guard = scf::IfOp::create(fb, loc, lessThan(fb, loc, idx, count),
                                 /*withElseRegion=*/false);
  OpBuilder gb = OpBuilder::atBlockTerminator(guard.thenBlock());
  body(gb, idx);
}

/// Stages A's (or B's) tile of the step at `at` when the operand is
/// contiguous along M (N), not K: each thread reads a block of `width` rows
/// x kPer k's, one vector along the rows per k, and writes it transposed,
/// one vector of kPer elements along K (8 bytes) per row. Consecutive
/// threads read consecutive row blocks.
void MMAKernelEmitter::stageOperandAlongMN(OpBuilder &sb,
                                           const StepPosition &at, Value buffer,
                                           bool isA) {
  Value lds = isA ? ldsA : ldsB;
  const Factor &f = isA ? kernel.a : kernel.b;
  int64_t loop = isA ? mL : nL;
  int64_t extent = isA ? extM : extN;
  int64_t width = isA ? mnWidthA : mnWidthB;
  int64_t rowBlocks = (isA ? wgM : wgN) / width;
  int64_t kPer = std::min(kT, kLdsTransposeBytes / elemBytes());
  int64_t kGroups = kT / kPer;
  // Consecutive threads take consecutive row blocks, or consecutive K
  // groups of a block when that spreads their LDS writes over the banks.
  bool columnMajor = preferColumnMajorMNStaging(
      rowBlocks, kGroups, width, kPer * elemBytes(),
      cast<MemRefType>(lds.getType()).getShape().back() * elemBytes(),
      waveSize);
  int64_t rowDivisor = columnMajor ? kGroups : rowBlocks;
  Value kBase = at.coords[kL];
  VectorType rowType = VectorType::get({kPer}, elemType);
  forEachStagingItem(
      sb, rowBlocks * kGroups, [&](OpBuilder &ib, Value idx) {
        Value divisor = cIndex(ib, loc, rowDivisor);
        Value quotient = arith::DivUIOp::create(ib, loc, idx, divisor);
        Value remainder = arith::RemUIOp::create(ib, loc, idx, divisor);
        Value block = columnMajor ? quotient : remainder;
        Value group = columnMajor ? remainder : quotient;
        Value row =
            arith::MulIOp::create(ib, loc, block, cIndex(ib, loc, width));
        Value col =
            arith::MulIOp::create(ib, loc, group, cIndex(ib, loc, kPer));
        Value global = globalRow(ib, loop, row);
        SmallVector<Value> alongRows;
        for (int64_t j = 0; j < kPer; ++j) {
          Value kCoord =
              arith::AddIOp::create(ib, loc, kBase, addConst(ib, loc, col, j));
          alongRows.push_back(operandValue(ib, f, at.coords, global, loop,
                                           extent, kCoord, width, loop));
        }
        for (int64_t i = 0; i < width; ++i) {
          SmallVector<Value> alongK;
          for (Value v : alongRows)
            alongK.push_back(vector::ExtractOp::create(ib, loc, v, i));
          Value packed =
              vector::FromElementsOp::create(ib, loc, rowType, alongK);
          vector::StoreOp::create(
              ib, loc, packed, lds,
              ValueRange{buffer, addConst(ib, loc, row, i), col});
        }
      });
}

/// Stages A's (or B's) tile of the step at `at`: the threads store its
/// rows x kT elements, `width` at a time along K (one vector access each
/// in global memory and LDS), consecutive threads consecutive vectors.
void MMAKernelEmitter::stageOperand(OpBuilder &sb, const StepPosition &at,
                                    Value buffer, bool isA) {
  Value lds = isA ? ldsA : ldsB;
  const Factor &f = isA ? kernel.a : kernel.b;
  int64_t rows = isA ? wgM : wgN;
  int64_t loop = isA ? mL : nL;
  int64_t extent = isA ? extM : extN;
  int64_t width = isA ? widthA : widthB;
  int64_t perRow = kT / width;
  int64_t rowStride = cast<MemRefType>(lds.getType()).getShape().back();
  std::pair<int64_t, int64_t> spread = getStagingRowSpread(
      rows, perRow, width * elemBytes(), rowStride * elemBytes());
  int64_t group = spread.first, spacing = spread.second;
  Value kBase = at.coords[kL];
  forEachStagingItem(sb, rows * perRow, [&](OpBuilder &ib, Value idx) {
    Value row = arith::DivUIOp::create(ib, loc, idx, cIndex(ib, loc, perRow));
    if (spacing > 1) {
      // Within each block of group x spacing rows, item row j * spacing + m
      // for the (m * group + j)-th: a write cycle's rows `spacing` apart.
      int64_t block = group * spacing;
      Value base = arith::MulIOp::create(
          ib, loc, arith::DivUIOp::create(ib, loc, row, cIndex(ib, loc, block)),
          cIndex(ib, loc, block));
      Value inBlock =
          arith::RemUIOp::create(ib, loc, row, cIndex(ib, loc, block));
      Value j =
          arith::RemUIOp::create(ib, loc, inBlock, cIndex(ib, loc, group));
      Value m =
          arith::DivUIOp::create(ib, loc, inBlock, cIndex(ib, loc, group));
      row = arith::AddIOp::create(
          ib, loc, base,
          arith::AddIOp::create(
              ib, loc,
              arith::MulIOp::create(ib, loc, j, cIndex(ib, loc, spacing)), m));
    }
    Value col = arith::MulIOp::create(
        ib, loc, arith::RemUIOp::create(ib, loc, idx, cIndex(ib, loc, perRow)),
        cIndex(ib, loc, width));
    Value global = globalRow(ib, loop, row);
    Value kCoord = arith::AddIOp::create(ib, loc, kBase, col);
    Value v =
        operandValue(ib, f, at.coords, global, loop, extent, kCoord, width);
    if (width == 1) {
      memref::StoreOp::create(ib, loc, v, lds, {buffer, row, col});
      return;
    }
    vector::StoreOp::create(ib, loc, v, lds, ValueRange{buffer, row, col});
  });
}

} // namespace mlir::boo::mma
