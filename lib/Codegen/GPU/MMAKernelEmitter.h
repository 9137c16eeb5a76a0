//===- MMAKernelEmitter.h - The builder of one MMA kernel -------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The class that builds one MMA kernel's workgroup/thread scf.forall nest,
// shared by MMAKernelEmitter.cpp (plan, setup, compute, pipeline,
// epilogue) and MMAStaging.cpp (stage: operands into LDS). Private to
// lib/Codegen/GPU.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_GPU_MMAKERNELEMITTER_H
#define BOO_LIB_CODEGEN_GPU_MMAKERNELEMITTER_H

#include "MMAKernel.h"
#include "StridePhases.h"

#include "Boo/Codegen/GPU/MMALayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::boo::mma {

using Factor = MMAKernel::Factor;

/// The widest memory access per lane the kernels use (dwordx4, b128).
constexpr int64_t kMaxAccessBytes = 16;
/// Bytes along K of each LDS write when staging transposes (an operand
/// contiguous along M or N): 4 16-bit elements, one ds_write_b64.
constexpr int64_t kLdsTransposeBytes = 8;

/// `cond ? then() : zero` as an scf.if yielding one value of `type`.
inline Value selectOrZero(OpBuilder &b, Location loc, Value cond, Type type,
                          function_ref<Value(OpBuilder &)> then) {
  auto ifOp = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &tb, Location l) { scf::YieldOp::create(tb, l, then(tb)); },
      [&](OpBuilder &eb, Location l) {
        Value zero =
            arith::ConstantOp::create(eb, l, type, eb.getZeroAttr(type));
        scf::YieldOp::create(eb, l, zero);
      });
  return ifOp.getResult(0);
}

inline Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

inline Value addConst(OpBuilder &b, Location loc, Value x, int64_t c) {
  if (c == 0)
    return x;
  return arith::AddIOp::create(b, loc, x, cIndex(b, loc, c));
}

inline Value lessThan(OpBuilder &b, Location loc, Value x, int64_t bound) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                               cIndex(b, loc, bound));
}

inline Value andAll(OpBuilder &b, Location loc, ArrayRef<Value> conds) {
  Value result;
  for (Value c : conds)
    result = result ? arith::AndIOp::create(b, loc, result, c).getResult() : c;
  return result;
}

/// A phased tap loop of the workgroup: the first tap its input position
/// reads and whether it reads any (null when always true).
struct PhasedTap {
  const StridePhase *phase;
  Value first, exists;
};

/// Where one step is: the loop coordinates of its first iteration (K at its
/// tile origin; with a phase split, M unset) and whether its phased taps
/// exist (null without phased taps).
struct StepPosition {
  SmallVector<Value> coords;
  Value valid;
};

/// Builds one MMA kernel. The stages share the plan and the values of the
/// nest built so far; `b` stays in the thread loop's body.
class MMAKernelEmitter {
public:
  explicit MMAKernelEmitter(MMAKernel &kernel)
      : kernel(kernel), acc(kernel.acc), mma(*kernel.layout),
        ctx(acc.getContext()), loc(acc.getLoc()), b(acc) {}

  LogicalResult emit();

private:
  LogicalResult plan();
  int64_t pickStagingWidth(const Factor &f, unsigned loop, int64_t tile,
                           int64_t extent) const;
  int64_t elemBytes() const { return elemType.getIntOrFloatBitWidth() / 8; }
  void createWorkgroupLoop();
  void createThreads();
  void planSteps();

  Value globalRow(OpBuilder &gb, int64_t loop, Value row);
  StepPosition stepCoords(OpBuilder &sb, Value step);
  Value operandValue(OpBuilder &ob, const Factor &f, SmallVector<Value> coords,
                     Value mOrN, int64_t mOrNLoop, int64_t mOrNExtent,
                     Value kCoord, int64_t width = 1,
                     std::optional<unsigned> vectorLoop = std::nullopt);

  void stage(OpBuilder &outer, Value step, Value buffer);
  void forEachStagingItem(OpBuilder &sb, int64_t count,
                          function_ref<void(OpBuilder &, Value)> body);
  void stageOperand(OpBuilder &sb, const StepPosition &at, Value buffer,
                    bool isA);
  void stageOperandAlongMN(OpBuilder &sb, const StepPosition &at, Value buffer,
                           bool isA);
  SmallVector<Value> compute(OpBuilder &outer, Value step, Value buffer,
                             SmallVector<Value> accs);
  Value loadFragment(OpBuilder &cb, const StepPosition &at, Value buffer,
                     bool isA, int64_t tile, int64_t kk);
  SmallVector<Value> emitStepLoop();
  LogicalResult emitResults(ArrayRef<Value> finalAccs);
  void emitRunStores(OpBuilder &b, ArrayRef<SmallVector<ResultStore>> run);
  void eraseKernelOps();

  MMAKernel &kernel;
  linalg::GenericOp acc;
  const MMAIntrinsicLayout &mma;
  MLIRContext *ctx;
  Location loc;
  OpBuilder b;

  // Plan.
  int64_t numLoops;
  SmallVector<int64_t> ranges;
  SmallVector<utils::IteratorType> iterators;
  unsigned mL, nL, kL;
  int64_t extM, extN, extK, wgM, wgN, sgM, sgN, kT, waveSize, threads;
  int64_t wavesM, wavesN, tilesM, tilesN;
  /// The phased tap loops; M's phase, if it is split by phase.
  SmallVector<StridePhase> phases;
  const StridePhase *mPhase = nullptr;
  int64_t extMq, depth;
  bool stagedA, stagedB, staged;
  /// Elements each staging access moves along K (1: scalars), per operand;
  /// else along M (A) or N (B); the LDS rows' padding in elements.
  int64_t widthA = 1, widthB = 1, mnWidthA = 1, mnWidthB = 1;
  int64_t padA = 0, padB = 0;
  /// Split-K: workgroups per output tile, and the steps each computes.
  int64_t splits = 1, stepsPerSplit = 0;
  Type elemType;
  VectorType accType, aType, bType;

  // The nest.
  scf::ForallOp workgroupLoop;
  /// The workgroup's coordinates: the M/N tile origins (M's in q with a
  /// phase split) and the other parallel loops' values.
  SmallVector<Value> base;
  Value mPhaseValue;
  Value ldsA, ldsB;
  /// Split-K: this workgroup's split, and the f32 partial sums
  /// [splits][accumulator shape] (a host temporary).
  Value splitIndex, partials;
  Value tid, lane;
  /// Origins of this subgroup's tile inside the workgroup tile.
  Value sgRowM, sgRowN;
  Value zeroIdx;
  llvm::SmallDenseMap<int64_t, PhasedTap> phasedTaps; // by tap loop
  SmallVector<int64_t> stepLoops, stepCounts;
};

} // namespace mlir::boo::mma

#endif // BOO_LIB_CODEGEN_GPU_MMAKERNELEMITTER_H
