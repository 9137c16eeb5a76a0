//===- MMAKernelEmitter.cpp - One MMA kernel as a forall nest -------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Builds the workgroup/thread scf.forall nest of one MMA kernel (see
// GPUMMAKernels.cpp for its shape) in stages:
//
//   plan      the config's tiles as numbers, checked against the intrinsic;
//   setup     the workgroup loop and its coordinates, the LDS tiles, the
//             thread loop and the subgroup's origin, the steps over the
//             reduction loops (phased taps included);
//   stage     one step's A and B tiles into LDS;
//   compute   one step's MMAs on fragments (from LDS, or global memory);
//   pipeline  the loop over the steps, double-buffered or not;
//   epilogue  each lane's D elements through the epilogue generics.
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"
#include "MMAKernel.h"
#include "StridePhases.h"

#include "Boo/Codegen/GPU/MMALayout.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

using Factor = MMAKernel::Factor;

/// The widest memory access per lane the kernels use (dwordx4, b128).
constexpr int64_t kMaxAccessBytes = 16;
/// Bytes along K of each LDS write when staging transposes (an operand
/// contiguous along M or N): 4 16-bit elements, one ds_write_b64.
constexpr int64_t kLdsTransposeBytes = 8;

/// `cond ? then() : zero` as an scf.if yielding one value of `type`.
Value selectOrZero(OpBuilder &b, Location loc, Value cond, Type type,
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

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value addConst(OpBuilder &b, Location loc, Value x, int64_t c) {
  if (c == 0)
    return x;
  return arith::AddIOp::create(b, loc, x, cIndex(b, loc, c));
}

Value lessThan(OpBuilder &b, Location loc, Value x, int64_t bound) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                               cIndex(b, loc, bound));
}

Value andAll(OpBuilder &b, Location loc, ArrayRef<Value> conds) {
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

/// The config's tiles as numbers; fails unless they fit the intrinsic.
LogicalResult MMAKernelEmitter::plan() {
  LoweringConfigAttr config = kernel.config;
  numLoops = acc.getNumLoops();
  ranges = acc.getStaticLoopRanges();
  iterators = acc.getIteratorTypesArray();
  ArrayRef<int64_t> wgTiles = config.getWorkgroup();
  ArrayRef<int64_t> sgTiles = config.getSubgroup();
  ArrayRef<int64_t> redTiles = config.getReduction();
  mL = kernel.m, nL = kernel.n, kL = kernel.k;
  extM = ranges[mL], extN = ranges[nL], extK = ranges[kL];
  wgM = wgTiles[mL], wgN = wgTiles[nL];
  sgM = sgTiles.empty() ? wgM : sgTiles[mL];
  sgN = sgTiles.empty() ? wgN : sgTiles[nL];
  kT = redTiles.empty() ? mma.k : redTiles[kL];
  waveSize = config.getSubgroupSize();
  threads = config.getWorkgroupSize()[0];
  auto fail = [&](const Twine &msg) { return emitMMAKernelError(kernel, msg); };
  if (waveSize != mma.waveSize)
    return fail("subgroup_size " + Twine(waveSize) + " but '" + mma.name +
                "' runs on waves of " + Twine(mma.waveSize));
  if (wgM <= 0 || wgN <= 0 || sgM <= 0 || sgN <= 0 || wgM % sgM || wgN % sgN ||
      sgM % mma.m || sgN % mma.n || kT <= 0 || kT % mma.k)
    return fail("the workgroup, subgroup and K tiles must be multiples of "
                "the subgroup tiles and of " +
                mma.name);
  wavesM = wgM / sgM, wavesN = wgN / sgN;
  if (threads != wavesM * wavesN * waveSize)
    return fail("workgroup_size " + Twine(threads) + " is not " +
                Twine(wavesM * wavesN) + " subgroup(s) of " + Twine(waveSize));
  // Every other parallel loop is one iteration per workgroup; every other
  // reduction loop one step at a time.
  for (int64_t d = 0; d < numLoops; ++d)
    if (d != mL && d != nL && iterators[d] == utils::IteratorType::parallel &&
        wgTiles[d] != 1 && !(wgTiles[d] == 0 && ranges[d] == 1))
      return fail("the MMA strategy needs workgroup tile 1 on loop " +
                  Twine(d) + " (not M or N)");
  tilesM = sgM / mma.m, tilesN = sgN / mma.n;
  // Backward data with stride > 1 (#boo.stride_phases): each tap loop
  // steps over the taps that can contribute, which the workgroup's input
  // position fixes: M workgroups are split by phase (M = phase + s*q, a
  // tile of q), the other input loops have one value per workgroup.
  for (const StridePhase &p : getStridePhases(acc))
    if (iterators[p.tapLoop] == utils::IteratorType::reduction &&
        p.tapLoop != kL && p.inputLoop != nL &&
        iterators[p.inputLoop] == utils::IteratorType::parallel)
      phases.push_back(p);
  for (const StridePhase &p : phases)
    if (p.inputLoop == mL)
      mPhase = &p;
  // M positions per phase (all of M without a phase split).
  extMq = mPhase ? llvm::divideCeil(extM, mPhase->stride) : extM;
  depth = std::max<int64_t>(1, config.getPipelineDepth());
  // Split-K: the steps (the other reduction loops' values, phased taps
  // counted per phase, times the K tiles) must split evenly.
  splits = config.getSplitK();
  int64_t steps = llvm::divideCeil(extK, kT);
  for (int64_t d = 0; d < numLoops; ++d) {
    if (iterators[d] != utils::IteratorType::reduction || d == kL)
      continue;
    auto phase = llvm::find_if(
        phases, [&](const StridePhase &p) { return p.tapLoop == d; });
    steps *= phase == phases.end() ? ranges[d] : phase->getNumSteps(ranges[d]);
  }
  if (steps % splits != 0)
    return fail("split_k " + Twine(splits) + " does not divide the " +
                Twine(steps) + " reduction steps");
  stepsPerSplit = steps / splits;
  // Inputs 0 and 1 of the root generic (KernelLoopNest) are A and B.
  stagedA = llvm::is_contained(config.getPromoteOperands(), 0);
  stagedB = llvm::is_contained(config.getPromoteOperands(), 1);
  staged = stagedA || stagedB;
  if (!staged)
    depth = 1;

  elemType = kernel.a.value.getType();
  Type f32 = b.getF32Type();
  accType = VectorType::get({mma.cItems}, f32);
  aType = VectorType::get({mma.aItems}, elemType);
  bType = VectorType::get({mma.bItems}, elemType);
  // Along K if the operand's rows are contiguous along K, else along its
  // M (N) loop if they are along that (not M split by stride phase: its
  // rows are s apart).
  if (stagedA) {
    widthA = pickStagingWidth(kernel.a, kL, kT, extK);
    if (widthA == 1 && !mPhase)
      mnWidthA = pickStagingWidth(kernel.a, mL, wgM, extM);
    padA = getLDSRowPadding(mma, /*isA=*/true, kT, elemBytes());
  }
  if (stagedB) {
    widthB = pickStagingWidth(kernel.b, kL, kT, extK);
    if (widthB == 1)
      mnWidthB = pickStagingWidth(kernel.b, nL, wgN, extN);
    padB = getLDSRowPadding(mma, /*isA=*/false, kT, elemBytes());
  }
  return success();
}

/// The widest access (at most 16 bytes) in which a staged operand can be
/// read along `loop`: its rows are contiguous along it in memory (see
/// MMAVectorReplay.cpp) and the vectors tile the workgroup's tile and the
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

/// The workgroup loop, one iteration per (other parallel loop values, M
/// tile, N tile), the N tile fastest; the workgroup's coordinates; the LDS
/// tiles of the promoted operands.
void MMAKernelEmitter::createWorkgroupLoop() {
  SmallVector<int64_t> parallelLoops, gridCounts;
  for (int64_t d = 0; d < numLoops; ++d)
    if (iterators[d] == utils::IteratorType::parallel) {
      parallelLoops.push_back(d);
      gridCounts.push_back(d == mL   ? llvm::divideCeil(extMq, wgM) *
                                           (mPhase ? mPhase->stride : 1)
                           : d == nL ? llvm::divideCeil(extN, wgN)
                                     : ranges[d]);
    }
  SmallVector<Attribute> blockMapping;
  auto blockDim = [&](int64_t id) {
    return gpu::GPUBlockMappingAttr::get(
        ctx, static_cast<gpu::MappingId>(
                 static_cast<int64_t>(gpu::MappingId::LinearDim0) + id));
  };
  int64_t next = 1;
  for (int64_t d : parallelLoops)
    blockMapping.push_back(blockDim(d == nL ? 0 : next++));
  if (splits > 1) {
    // The splits are the slowest grid dim; their partial sums go to a
    // device temporary that the combine kernel reads.
    gridCounts.push_back(splits);
    blockMapping.push_back(blockDim(next++));
    auto accType = cast<MemRefType>(acc.getDpsInitOperand(0)->get().getType());
    SmallVector<int64_t> shape = {splits};
    llvm::append_range(shape, accType.getShape());
    partials =
        memref::AllocOp::create(b, loc, MemRefType::get(shape, b.getF32Type()));
  }
  workgroupLoop =
      scf::ForallOp::create(b, loc, getAsIndexOpFoldResult(ctx, gridCounts),
                            ValueRange(), b.getArrayAttr(blockMapping));
  b.setInsertionPointToStart(workgroupLoop.getBody());
  if (splits > 1)
    splitIndex = workgroupLoop.getInductionVar(parallelLoops.size());
  base.assign(numLoops, Value());
  for (auto [i, d] : llvm::enumerate(parallelLoops)) {
    Value iv = workgroupLoop.getInductionVar(i);
    if (d == mL && mPhase) {
      Value s = cIndex(b, loc, mPhase->stride);
      mPhaseValue = arith::RemUIOp::create(b, loc, iv, s);
      iv = arith::DivUIOp::create(b, loc, iv, s);
    }
    if (d == mL || d == nL)
      iv = arith::MulIOp::create(b, loc, iv,
                                 cIndex(b, loc, d == mL ? wgM : wgN));
    base[d] = iv;
  }
  Attribute workgroupSpace =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto ldsTile = [&](int64_t rows, int64_t pad) -> Value {
    return memref::AllocOp::create(
        b, loc,
        MemRefType::get({depth, rows, kT + pad}, elemType,
                        MemRefLayoutAttrInterface(), workgroupSpace),
        b.getI64IntegerAttr(kMaxAccessBytes));
  };
  if (stagedA)
    ldsA = ldsTile(wgM, padA);
  if (stagedB)
    ldsB = ldsTile(wgN, padB);
}

/// The thread loop; the lane and its subgroup's origin in the workgroup
/// tile.
void MMAKernelEmitter::createThreads() {
  scf::ForallOp threadLoop = createThreadLoop(b, loc, threads);
  tid = threadLoop.getInductionVar(0);
  Value wave = arith::DivUIOp::create(b, loc, tid, cIndex(b, loc, waveSize));
  lane = arith::RemUIOp::create(b, loc, tid, cIndex(b, loc, waveSize));
  Value waveM = arith::RemUIOp::create(b, loc, wave, cIndex(b, loc, wavesM));
  Value waveN = arith::DivUIOp::create(b, loc, wave, cIndex(b, loc, wavesM));
  sgRowM = arith::MulIOp::create(b, loc, waveM, cIndex(b, loc, sgM));
  sgRowN = arith::MulIOp::create(b, loc, waveN, cIndex(b, loc, sgN));
  zeroIdx = cIndex(b, loc, 0);
}

/// Steps: the other reduction loops (outer to inner), then K tiles. A
/// phased tap loop steps over the taps r, r + step, ... that this
/// workgroup's input position reads, ceil(F / step) of them; a step whose
/// tap is past the filter (or that has none) is skipped by the whole
/// workgroup: no staging, no MMA. (Counts stay static: a division by a
/// per-workgroup count in every step costs more registers than the few
/// skipped steps.)
void MMAKernelEmitter::planSteps() {
  for (const StridePhase &p : phases) {
    bool isM = p.inputLoop == mL;
    auto [first, exists] =
        p.buildFirstTap(b, loc, isM ? mPhaseValue : base[p.inputLoop],
                        isM ? p.stride : ranges[p.inputLoop]);
    phasedTaps[p.tapLoop] = {&p, first, exists};
  }
  for (int64_t d = 0; d < numLoops; ++d)
    if (iterators[d] == utils::IteratorType::reduction && d != kL) {
      stepLoops.push_back(d);
      auto tap = phasedTaps.find(d);
      stepCounts.push_back(tap == phasedTaps.end()
                               ? ranges[d]
                               : tap->second.phase->getNumSteps(ranges[d]));
    }
  stepLoops.push_back(kL);
  stepCounts.push_back(llvm::divideCeil(extK, kT));
  assert(llvm::product_of(stepCounts) == splits * stepsPerSplit &&
         "plan() counted the steps");
}

/// The M loop's value at `row` of the workgroup tile, and N's.
Value MMAKernelEmitter::globalRow(OpBuilder &gb, int64_t loop, Value row) {
  Value q = arith::AddIOp::create(gb, loc, base[loop], row);
  if (loop != mL || !mPhase)
    return q;
  return arith::AddIOp::create(
      gb, loc, mPhaseValue,
      arith::MulIOp::create(gb, loc, q, cIndex(gb, loc, mPhase->stride)));
}

/// Loop coordinates of step `step` (K at its tile origin), and whether its
/// phased taps exist.
StepPosition MMAKernelEmitter::stepCoords(OpBuilder &sb, Value step) {
  SmallVector<Value> coords(base.begin(), base.end());
  if (mPhase)
    coords[mL] = nullptr; // base[M] is in q; set per row
  SmallVector<Value> conds;
  Value rest = step;
  for (int64_t i = stepLoops.size() - 1; i >= 0; --i) {
    Value count = cIndex(sb, loc, stepCounts[i]);
    Value v = i == 0 ? rest : arith::RemUIOp::create(sb, loc, rest, count);
    if (i != 0)
      rest = arith::DivUIOp::create(sb, loc, rest, count);
    if (stepLoops[i] == kL)
      v = arith::MulIOp::create(sb, loc, v, cIndex(sb, loc, kT));
    auto tap = phasedTaps.find(stepLoops[i]);
    if (tap != phasedTaps.end()) {
      const PhasedTap &t = tap->second;
      v = arith::AddIOp::create(
          sb, loc, t.first,
          arith::MulIOp::create(sb, loc, v, cIndex(sb, loc, t.phase->tapStep)));
      conds.push_back(lessThan(sb, loc, v, ranges[stepLoops[i]]));
      if (t.exists)
        conds.push_back(t.exists);
    }
    coords[stepLoops[i]] = v;
  }
  Value valid = andAll(sb, loc, conds);
  return {std::move(coords), valid};
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
  Value kBase = at.coords[kL];
  VectorType rowType = VectorType::get({kPer}, elemType);
  forEachStagingItem(
      sb, rowBlocks * (kT / kPer), [&](OpBuilder &ib, Value idx) {
        Value row = arith::MulIOp::create(
            ib, loc,
            arith::RemUIOp::create(ib, loc, idx, cIndex(ib, loc, rowBlocks)),
            cIndex(ib, loc, width));
        Value col = arith::MulIOp::create(
            ib, loc,
            arith::DivUIOp::create(ib, loc, idx, cIndex(ib, loc, rowBlocks)),
            cIndex(ib, loc, kPer));
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
  Value kBase = at.coords[kL];
  forEachStagingItem(sb, rows * perRow, [&](OpBuilder &ib, Value idx) {
    Value row = arith::DivUIOp::create(ib, loc, idx, cIndex(ib, loc, perRow));
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

/// The MMA work of one step on the staged tiles (or, unstaged, on
/// fragments read from global memory): `accs` updated.
SmallVector<Value> MMAKernelEmitter::compute(OpBuilder &outer, Value step,
                                             Value buffer,
                                             SmallVector<Value> accs) {
  // Unstaged fragments are read at the step's loop coordinates.
  StepPosition at = stepCoords(outer, step);
  // A skipped step leaves the accumulators as they are.
  OpBuilder cb = outer;
  scf::IfOp guard;
  if (at.valid) {
    guard = scf::IfOp::create(outer, loc, ValueRange(accs).getTypes(), at.valid,
                              /*withElseRegion=*/true);
    OpBuilder eb = OpBuilder::atBlockEnd(guard.elseBlock());
    scf::YieldOp::create(eb, loc, accs);
    cb = OpBuilder::atBlockEnd(guard.thenBlock());
  }
  for (int64_t kk = 0; kk < kT / mma.k; ++kk) {
    SmallVector<Value> aFrags, bFrags;
    for (int64_t i = 0; i < tilesM; ++i)
      aFrags.push_back(loadFragment(cb, at, buffer, /*isA=*/true, i, kk));
    for (int64_t j = 0; j < tilesN; ++j)
      bFrags.push_back(loadFragment(cb, at, buffer, /*isA=*/false, j, kk));
    for (int64_t i = 0; i < tilesM; ++i)
      for (int64_t j = 0; j < tilesN; ++j) {
        Value &c = accs[i * tilesN + j];
        c = createMMAOp(cb, loc, mma, aFrags[i], bFrags[j], c);
      }
  }
  if (!guard)
    return accs;
  scf::YieldOp::create(cb, loc, accs);
  return SmallVector<Value>(guard.getResults());
}

/// The lane's A (or B) fragment of MMA tile `tile` of the subgroup tile at
/// k-slice `kk` of the step at `at`.
Value MMAKernelEmitter::loadFragment(OpBuilder &cb, const StepPosition &at,
                                     Value buffer, bool isA, int64_t tile,
                                     int64_t kk) {
  Value kBase = at.coords[kL];
  auto [row0, col0] = isA ? mma.aCoord<AffineExpr>(getAffineDimExpr(0, ctx), 0)
                          : mma.bCoord<AffineExpr>(getAffineDimExpr(0, ctx), 0);
  // A: (row in M, col in K); B: (row in K, col in N).
  AffineExpr mn = isA ? row0 : col0;
  AffineExpr kExpr = isA ? col0 : row0;
  Value mnOff =
      affine::AffineApplyOp::create(cb, loc, AffineMap::get(1, 0, mn), lane);
  Value kOff =
      affine::AffineApplyOp::create(cb, loc, AffineMap::get(1, 0, kExpr), lane);
  int64_t tileSize = isA ? mma.m : mma.n;
  Value row = arith::AddIOp::create(cb, loc, isA ? sgRowM : sgRowN,
                                    addConst(cb, loc, mnOff, tile * tileSize));
  Value col = addConst(cb, loc, kOff, kk * mma.k);
  VectorType type = isA ? aType : bType;
  int64_t items = isA ? mma.aItems : mma.bItems;
  if (isA ? stagedA : stagedB)
    return vector::LoadOp::create(cb, loc, type, isA ? ldsA : ldsB,
                                  {buffer, row, col});
  SmallVector<Value> elems;
  int64_t loop = isA ? mL : nL;
  for (int64_t i = 0; i < items; ++i)
    elems.push_back(operandValue(
        cb, isA ? kernel.a : kernel.b, at.coords, globalRow(cb, loop, row),
        loop, isA ? extM : extN,
        arith::AddIOp::create(cb, loc, kBase, addConst(cb, loc, col, i))));
  return vector::FromElementsOp::create(cb, loc, type, elems);
}

/// The loop over the steps, from the fill value to the final accumulators.
/// With depth 2 the staging of step s+1 goes to the other LDS buffer while
/// step s is computed (one barrier per step); with depth 1 the loop stages,
/// synchronizes and computes (two barriers per step).
SmallVector<Value> MMAKernelEmitter::emitStepLoop() {
  // With split-K each split starts from 0; the combine adds the fill value
  // once.
  Value init = kernel.initValue;
  if (splits > 1)
    init = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  SmallVector<Value> initAccs(
      tilesM * tilesN, vector::BroadcastOp::create(b, loc, accType, init));
  Value one = cIndex(b, loc, 1);
  Value stepsV = cIndex(b, loc, stepsPerSplit);
  // This split's first step (steps are numbered over all splits).
  Value first =
      splits > 1 ? arith::MulIOp::create(b, loc, splitIndex, stepsV).getResult()
                 : zeroIdx;
  auto global = [&](OpBuilder &gb, Value local) -> Value {
    return splits > 1 ? arith::AddIOp::create(gb, loc, local, first).getResult()
                      : local;
  };
  if (staged && depth >= 2) {
    stage(b, first, zeroIdx);
    gpu::BarrierOp::create(b, loc);
    auto loop = scf::ForOp::create(
        b, loc, zeroIdx, stepsV, one, initAccs,
        [&](OpBuilder &lb, Location, Value s, ValueRange iterArgs) {
          Value next = arith::AddIOp::create(lb, loc, s, one);
          Value two = cIndex(lb, loc, 2);
          auto prefetch = scf::IfOp::create(
              lb, loc,
              arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::ult, next,
                                    stepsV),
              /*withElseRegion=*/false);
          OpBuilder pb = OpBuilder::atBlockTerminator(prefetch.thenBlock());
          stage(pb, global(pb, next),
                arith::RemUIOp::create(pb, loc, next, two));
          SmallVector<Value> accs = compute(
              lb, global(lb, s), arith::RemUIOp::create(lb, loc, s, two),
              SmallVector<Value>(iterArgs));
          gpu::BarrierOp::create(lb, loc);
          scf::YieldOp::create(lb, loc, accs);
        });
    return SmallVector<Value>(loop.getResults());
  }
  auto loop = scf::ForOp::create(
      b, loc, zeroIdx, stepsV, one, initAccs,
      [&](OpBuilder &lb, Location, Value s, ValueRange iterArgs) {
        Value step = global(lb, s);
        if (staged) {
          gpu::BarrierOp::create(lb, loc);
          stage(lb, step, zeroIdx);
          gpu::BarrierOp::create(lb, loc);
        }
        scf::YieldOp::create(
            lb, loc, compute(lb, step, zeroIdx, SmallVector<Value>(iterArgs)));
      });
  return SmallVector<Value>(loop.getResults());
}

/// Items of a lane's D fragment that are consecutive rows of one column, in
/// aligned groups (4 on CDNA, 8 on RDNA4, 1 on RDNA3, whose lanes hold
/// every other row).
int64_t consecutiveRowItems(const MMAIntrinsicLayout &mma) {
  for (int64_t g = mma.cItems; g > 1; g /= 2) {
    bool ok = mma.cItems % g == 0;
    for (int64_t l = 0; ok && l < mma.waveSize; ++l)
      for (int64_t v = 0; ok && v < mma.cItems; ++v) {
        auto first = mma.cCoord<int64_t>(l, v - v % g);
        auto item = mma.cCoord<int64_t>(l, v);
        ok = first.first % g == 0 && item.second == first.second &&
             item.first == first.first + v % g;
      }
    if (ok)
      return g;
  }
  return 1;
}

/// Each lane's D elements inside the problem, through the epilogues. Items
/// that are consecutive rows share one guard when M is a multiple of their
/// count (they are all inside or all outside), so their stores are one
/// basic block that LLVM can merge when the output is contiguous along M.
LogicalResult MMAKernelEmitter::emitResults(ArrayRef<Value> finalAccs) {
  int64_t group = consecutiveRowItems(mma);
  if (mPhase || extM % group != 0)
    group = 1;
  auto position = [&](OpBuilder &pb, int64_t i, int64_t j, int64_t v) {
    auto [r, c] = mma.cCoord<AffineExpr>(getAffineDimExpr(0, ctx), v);
    Value rOff = affine::AffineApplyOp::create(
        pb, loc, AffineMap::get(1, 0, r + i * mma.m), lane);
    Value cOff = affine::AffineApplyOp::create(
        pb, loc, AffineMap::get(1, 0, c + j * mma.n), lane);
    return std::make_pair(
        globalRow(pb, mL, arith::AddIOp::create(pb, loc, sgRowM, rOff)),
        globalRow(pb, nL, arith::AddIOp::create(pb, loc, sgRowN, cOff)));
  };
  for (int64_t i = 0; i < tilesM; ++i)
    for (int64_t j = 0; j < tilesN; ++j)
      for (int64_t v0 = 0; v0 < mma.cItems; v0 += group) {
        auto [m0, n0] = position(b, i, j, v0);
        auto guard = scf::IfOp::create(
            b, loc,
            andAll(b, loc,
                   {lessThan(b, loc, m0, extM), lessThan(b, loc, n0, extN)}),
            /*withElseRegion=*/false);
        OpBuilder gb = OpBuilder::atBlockTerminator(guard.thenBlock());
        for (int64_t v = v0; v < v0 + group; ++v) {
          auto [mg, ng] =
              v == v0 ? std::make_pair(m0, n0) : position(gb, i, j, v);
          SmallVector<Value> coords(base.begin(), base.end());
          coords[mL] = mg;
          coords[nL] = ng;
          for (Value &cv : coords)
            if (!cv)
              cv = zeroIdx;
          Value value =
              vector::ExtractOp::create(gb, loc, finalAccs[i * tilesN + j], v);
          if (splits > 1) {
            // The combine kernel adds the splits and runs the epilogue.
            OpOperand *init = acc.getDpsInitOperand(0);
            SmallVector<Value> indices = {splitIndex};
            for (AffineExpr e : acc.getMatchingIndexingMap(init).getResults())
              indices.push_back(affine::AffineApplyOp::create(
                  gb, loc, AffineMap::get(numLoops, 0, e), coords));
            memref::StoreOp::create(gb, loc, value, partials, indices);
            continue;
          }
          if (failed(emitMMAEpilogue(gb, loc, kernel, value, coords)))
            return failure();
        }
      }
  return success();
}

/// Erases what the kernel replaces: the fill, the accumulation and the
/// epilogues, then the internal buffers (reshapes first, then deallocs and
/// allocs).
void MMAKernelEmitter::eraseKernelOps() {
  SmallVector<Operation *> dead = {kernel.fill, acc};
  for (linalg::GenericOp e : kernel.epilogues)
    dead.push_back(e);
  for (Operation *op : dead)
    op->erase();
  SmallVector<Value> buffers = kernel.internalBuffers;
  llvm::sort(buffers, [](Value x, Value y) {
    return y.getDefiningOp()->isBeforeInBlock(x.getDefiningOp());
  });
  for (Value buf : buffers) {
    for (Operation *user : llvm::make_early_inc_range(buf.getUsers()))
      user->erase(); // deallocs
    buf.getDefiningOp()->erase();
  }
}

LogicalResult MMAKernelEmitter::emit() {
  if (failed(plan()))
    return failure();
  createWorkgroupLoop();
  createThreads();
  planSteps();
  SmallVector<Value> finalAccs = emitStepLoop();
  if (failed(emitResults(finalAccs)))
    return failure();
  if (splits > 1) {
    OpBuilder after(workgroupLoop);
    after.setInsertionPointAfter(workgroupLoop);
    if (failed(emitSplitKCombine(after, loc, kernel, partials)))
      return failure();
  }
  eraseKernelOps();
  return success();
}

} // namespace

LogicalResult mlir::boo::buildMMAKernel(MMAKernel &kernel) {
  return MMAKernelEmitter(kernel).emit();
}
