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
//   stage     one step's A and B tiles into LDS (MMAStaging.cpp);
//   compute   one step's MMAs on fragments (from LDS, or global memory);
//   pipeline  the loop over the steps, double-buffered or not;
//   epilogue  each lane's D elements through the epilogue generics.
//
//===----------------------------------------------------------------------===//

#include "MMAKernelEmitter.h"

#include "GPUUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::boo;

namespace mlir::boo::mma {

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

/// Each lane's D elements inside the problem, through the epilogues. Items
/// that are consecutive rows (a run) share one guard when M is a multiple
/// of their count (they are all inside or all outside); where the output
/// is contiguous along M, a run's elements are one vector store.
LogicalResult MMAKernelEmitter::emitResults(ArrayRef<Value> finalAccs) {
  int64_t group = getAccumulatorRowRun(mma);
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
        SmallVector<SmallVector<ResultStore>> run(group);
        RunReads reads{mL, group, 0, llvm::DenseMap<OpOperand *, Value>()};
        for (int64_t v = v0; v < v0 + group; ++v) {
          reads.position = v - v0;
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
          if (failed(emitMMAEpilogue(gb, loc, kernel, value, coords,
                                     &run[v - v0],
                                     group > 1 ? &reads : nullptr)))
            return failure();
        }
        emitRunStores(gb, run);
      }
  return success();
}

/// Emits the stores of a run of consecutive rows (`run[v]`: the stores of
/// the run's v-th row, the same sequence for each row). Where the output
/// is contiguous along M, the run's elements are one vector store;
/// elsewhere each is a scalar store.
void MMAKernelEmitter::emitRunStores(OpBuilder &b,
                                     ArrayRef<SmallVector<ResultStore>> run) {
  for (size_t s = 0; s < run.front().size(); ++s) {
    const ResultStore &first = run.front()[s];
    bool vector = run.size() > 1 &&
                  isUnitStrideAlong(first.buffer, first.map, mL) &&
                  llvm::all_of(run, [&](ArrayRef<ResultStore> row) {
                    return row.size() == run.front().size() &&
                           row[s].buffer == first.buffer;
                  });
    if (!vector) {
      for (ArrayRef<ResultStore> row : run)
        memref::StoreOp::create(b, loc, row[s].value, row[s].buffer,
                                row[s].indices);
      continue;
    }
    SmallVector<Value> values;
    for (ArrayRef<ResultStore> row : run)
      values.push_back(row[s].value);
    auto type = VectorType::get({static_cast<int64_t>(run.size())},
                                first.value.getType());
    Value vec = vector::FromElementsOp::create(b, loc, type, values);
    vector::StoreOp::create(b, loc, vec, first.buffer, first.indices);
  }
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

} // namespace mlir::boo::mma

LogicalResult mlir::boo::buildMMAKernel(MMAKernel &kernel) {
  return mma::MMAKernelEmitter(kernel).emit();
}
