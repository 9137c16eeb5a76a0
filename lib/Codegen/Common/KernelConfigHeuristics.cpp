//===- KernelConfigHeuristics.cpp - Default lowering configs --------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Two strategies, both documented in docs/TuningSpec.md:
//
// - Convolutions (contractions): an implicit GEMM over one M, one N and one
//   K loop. MMA when the inputs are f16/bf16, the chip has an intrinsic for
//   them and M, N, K are each at least 16; 2x2 (or fewer) subgroups per
//   workgroup, both inputs staged through LDS, double-buffered when it fits;
//   the reduction split over workgroups (split-K) when the output tiles
//   leave compute units idle.
//   Otherwise FMA: each thread computes a small register tile, a vector
//   along the loop the output is contiguous along times positions of the
//   other GEMM loop, its operands read from global memory (no LDS staging).
// - Everything else (element-wise, layer norms, bias gradients): threads are
//   spread over the parallel loops from the innermost (contiguous) one
//   outwards, 4 elements per thread along the innermost parallel loop; each
//   thread walks the reduction loops itself (no cross-thread combine yet).
//
// Tiles are powers of two and need not divide the problem (partial tiles are
// masked by the code generator), so every shape gets a valid config.
//
//===----------------------------------------------------------------------===//

#include "KernelConfigHeuristics.h"

#include "Boo/Dialect/Boo/IR/ElementTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::boo;

namespace {
/// The largest workgroup the heuristic uses (4 waves on CDNA).
constexpr int64_t kMaxThreads = 256;
/// Elements each thread handles along the innermost loop (one 64-bit or
/// 128-bit access for 16-bit or 32-bit data).
constexpr int64_t kVectorWidth = 4;
/// Smallest N and K extents worth an MMA intrinsic (and the M length from
/// which M is laid on the innermost M loop).
constexpr int64_t kMinMmaExtent = 16;
/// Smallest M extent worth one. An M loop shorter than the intrinsic's
/// tile (the output width of a 7x7 or 14x14 image at batch 1) leaves rows
/// of the tile idle, but with 4 of 16 rows busy the matrix cores still
/// outrun the FMA path (their peak is about 8x the f32 FMA peak on CDNA3).
constexpr int64_t kMinMmaRows = 4;
/// Fewest threads an MMA workgroup should have to stage its tiles.
constexpr int64_t kMinStagingThreads = 128;
/// Most f32 accumulator registers per lane in an MMA subgroup tile.
constexpr int64_t kMaxAccumulatorRegs = 64;
/// Largest workgroup tile along M or N.
constexpr int64_t kMaxMmaTile = 128;
/// Split-K: fewest reduction steps per split (they amortize the prologue
/// and the combine kernel), and the most splits.
constexpr int64_t kMinStepsPerSplit = 8;
constexpr int64_t kMaxSplitK = 64;

int64_t pow2Ceil(int64_t x) {
  return static_cast<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(x, 1)));
}

struct Tiles {
  explicit Tiles(int64_t n) : workgroup(n, 0), reduction(n, 0), thread(n, 0) {}
  SmallVector<int64_t> workgroup, reduction, thread, subgroup;
  SmallVector<int64_t> mmaLoops, promote;
  StringRef mma;
  int64_t threads = 0;
  int64_t pipelineDepth = 1;
  int64_t splitK = 1;

  LoweringConfigAttr build(MLIRContext *ctx, Location loc,
                           const ChipInfo &chip) const {
    auto emitError = [&] { return mlir::emitError(loc); };
    using I64s = ArrayRef<int64_t>;
    // An all-zero list is the same as an absent one; print it as absent.
    auto orEmpty = [](ArrayRef<int64_t> tiles) {
      return llvm::all_of(tiles, [](int64_t x) { return x == 0; }) ? I64s()
                                                                   : tiles;
    };
    return LoweringConfigAttr::getChecked(
        function_ref<InFlightDiagnostic()>(emitError), ctx, I64s(workgroup),
        orEmpty(reduction), I64s(thread), I64s(subgroup), I64s{threads, 1, 1},
        chip.waveSize, mma, I64s(mmaLoops), I64s(promote), pipelineDepth,
        splitK);
  }
};

//===----------------------------------------------------------------------===//
// Non-contractions: threads from the innermost loop outwards
//===----------------------------------------------------------------------===//

Tiles distributeInnermostOut(const KernelLoopNest &nest, const ChipInfo &chip) {
  int64_t n = nest.getNumLoops();
  Tiles t(n);
  t.threads = chip.waveSize;
  if (n == 0)
    return t;
  // Reductions are walked by each thread (the code generator has no
  // cross-thread combine yet): threads go to the parallel loops only.
  int64_t innermost = -1;
  for (int64_t i = n - 1; i >= 0 && innermost < 0; --i)
    if (!nest.loops[i].isReduction)
      innermost = i;
  if (innermost < 0) {
    // Only reductions (a layer norm of one row): one wave, whose first
    // lane walks them; boo-gpu-distribute gives rows long enough a
    // cooperative row kernel.
    return t;
  }
  int64_t vec = nest.loops[innermost].extent >= kVectorWidth ? kVectorWidth : 1;
  int64_t total = 1;
  for (const KernelLoop &l : nest.loops)
    if (!l.isReduction)
      total *= l.extent;
  int64_t budget = std::clamp(pow2Ceil(llvm::divideCeil(total, vec)),
                              chip.waveSize, kMaxThreads);
  int64_t left = budget;
  for (int64_t i = n - 1; i >= 0; --i) {
    const KernelLoop &l = nest.loops[i];
    if (l.isReduction) {
      // Each thread walks it one step at a time.
      t.reduction[i] = 1;
      continue;
    }
    int64_t per = i == innermost ? vec : 1;
    int64_t threads = std::min(left, pow2Ceil(llvm::divideCeil(l.extent, per)));
    left /= threads;
    t.workgroup[i] = threads * per;
    t.thread[i] = per;
  }
  // A problem smaller than one wave: the extra lanes idle (masked).
  t.workgroup[innermost] *= left;
  t.threads = budget;
  return t;
}

//===----------------------------------------------------------------------===//
// Contractions (convolutions): implicit GEMM
//===----------------------------------------------------------------------===//

/// The M, N and K loops the GEMM tiles (and an MMA intrinsic) are laid on.
struct GemmLoops {
  int64_t m = -1, n = -1, k = -1;
};

/// Among the loops with `role`: the innermost one when it is at least
/// kMinMmaExtent long, else the longest (the innermost on ties).
int64_t pickLoop(const KernelLoopNest &nest, LoopRole role) {
  int64_t best = -1;
  for (int64_t i = 0; i < nest.getNumLoops(); ++i) {
    if (nest.loops[i].role != role)
      continue;
    if (best < 0 || nest.loops[i].extent >= nest.loops[best].extent)
      best = i;
  }
  for (int64_t i = nest.getNumLoops() - 1; i >= 0; --i)
    if (nest.loops[i].role == role)
      return nest.loops[i].extent >= kMinMmaExtent ? i : best;
  return best;
}

GemmLoops pickGemmLoops(const KernelLoopNest &nest) {
  GemmLoops g;
  g.m = pickLoop(nest, LoopRole::M);
  g.k = pickLoop(nest, LoopRole::K);
  // N: the channel loop (the first N loop; bwd-weight's taps follow it).
  for (int64_t i = 0; i < nest.getNumLoops() && g.n < 0; ++i)
    if (nest.loops[i].role == LoopRole::N)
      g.n = i;
  return g;
}

bool matchesType(const MmaIntrinsic &intr, Type t) {
  return getElementTypeOf(t) == intr.inputType;
}

/// The intrinsic for this GEMM, or null for the FMA path.
const MmaIntrinsic *pickMma(const KernelLoopNest &nest, const GemmLoops &g,
                            const ChipInfo &chip) {
  int64_t m = nest.loops[g.m].extent, n = nest.loops[g.n].extent,
          k = nest.loops[g.k].extent;
  if (m < kMinMmaRows || n < kMinMmaExtent || k < kMinMmaExtent)
    return nullptr;
  Type elem = nest.inputs[0].elementType;
  // 32x32 tiles only pay off when both M and N fill several of them.
  int64_t wantM = (m >= 128 && n >= 128) ? 32 : 16;
  const MmaIntrinsic *best = nullptr;
  for (int64_t shape : {wantM, int64_t(16)}) {
    for (const MmaIntrinsic &intr : chip.mmaIntrinsics) {
      if (intr.m != shape || !matchesType(intr, elem) || intr.k > k)
        continue;
      if (!best || intr.k > best->k)
        best = &intr;
    }
    if (best)
      return best;
  }
  return nullptr;
}

/// Puts the intrinsic's M on the GEMM's N loop when the output is
/// contiguous along it (NHWC activations, KYXC filter gradients) and each
/// lane holds runs of accumulator rows: a run is then one vector store of
/// consecutive channels instead of scalars a channel count apart. Not when
/// the M loop is split by stride phase (only the intrinsic's M can be).
void orientAccumulatorRows(const KernelLoopNest &nest, const MmaIntrinsic &intr,
                           GemmLoops &g) {
  if (intr.accRowRun > 1 && nest.outputInnerLoop == g.n &&
      nest.loops[g.m].phases == 1)
    std::swap(g.m, g.n);
}

/// Positions of loop `l` one phase covers (all of them without phases).
int64_t phaseExtent(const KernelLoop &l) {
  return llvm::divideCeil(l.extent, l.phases);
}

/// Number of workgroups the parallel tiles of an MMA kernel make (its M
/// loop split by phase).
int64_t countWorkgroups(const KernelLoopNest &nest, const Tiles &t,
                        int64_t mLoop) {
  int64_t count = 1;
  for (auto [i, l] : llvm::enumerate(nest.loops)) {
    if (l.isReduction)
      continue;
    if (static_cast<int64_t>(i) == mLoop)
      count *= l.phases * llvm::divideCeil(phaseExtent(l), t.workgroup[i]);
    else
      count *= llvm::divideCeil(l.extent, t.workgroup[i]);
  }
  return count;
}

/// Stages both inputs through LDS, double-buffered, within half the chip's
/// LDS (so two workgroups fit on a CU), shrinking `shrink`'s tiles if
/// needed; drops the staging if even the smallest tiles do not fit.
void promoteInputs(MLIRContext *ctx, Location loc, const KernelLoopNest &nest,
                   const ChipInfo &chip, Tiles &t,
                   function_ref<bool(Tiles &)> shrink) {
  t.promote = {0, 1};
  t.pipelineDepth = 2;
  int64_t budget = chip.ldsBytes / 2;
  while (true) {
    LoweringConfigAttr config = t.build(ctx, loc, chip);
    if (config && estimateLDSBytes(nest, config) <= budget)
      return;
    if (t.pipelineDepth == 2) {
      t.pipelineDepth = 1;
      continue;
    }
    if (!shrink(t))
      break;
  }
  t.promote.clear();
  t.pipelineDepth = 1;
}

/// Split-K: when the output tiles leave compute units idle (weight
/// gradients: a small K x C x R x S output, a long N x H x W reduction),
/// the reduction steps are split over workgroups: the smallest power of
/// two that gives every CU a wave, as far as it divides the steps and keeps
/// at least kMinStepsPerSplit of them per split. Not with stride phases
/// (their taps per step vary by workgroup).
int64_t pickSplitK(const KernelLoopNest &nest, const Tiles &t,
                   const GemmLoops &g, const ChipInfo &chip) {
  int64_t steps = llvm::divideCeil(nest.loops[g.k].extent, t.reduction[g.k]);
  for (auto [i, l] : llvm::enumerate(nest.loops)) {
    if (l.phases > 1)
      return 1;
    if (l.isReduction && static_cast<int64_t>(i) != g.k)
      steps *= l.extent;
  }
  // Waves of the unsplit launch, against the chip's CUs: aiming at every
  // SIMD instead doubles the partial sums the combine moves for little
  // gain (the estimate of ResNet-50's weight gradients says so).
  int64_t waves = countWorkgroups(nest, t, g.m) * (t.threads / chip.waveSize);
  int64_t split = 1;
  while (waves * split < chip.computeUnits && split < kMaxSplitK &&
         steps % (2 * split) == 0 && steps / (2 * split) >= kMinStepsPerSplit)
    split *= 2;
  return split;
}

Tiles mmaConfig(MLIRContext *ctx, Location loc, const KernelLoopNest &nest,
                const GemmLoops &g, const MmaIntrinsic &intr,
                const ChipInfo &chip, int64_t shrink) {
  int64_t maxAccumulatorRegs =
      std::max<int64_t>(kMaxAccumulatorRegs >> shrink, 4);
  int64_t n = nest.getNumLoops();
  Tiles t(n);
  t.thread.clear();
  t.subgroup.assign(n, 0);
  t.mma = intr.name;
  t.mmaLoops = {g.m, g.n, g.k};
  for (auto [i, l] : llvm::enumerate(nest.loops)) {
    if (l.isReduction) {
      t.reduction[i] = 1;
    } else {
      t.workgroup[i] = 1;
      t.subgroup[i] = 1;
    }
  }
  int64_t mTile =
      std::clamp(pow2Ceil(phaseExtent(nest.loops[g.m])), intr.m, kMaxMmaTile);
  int64_t nTile =
      std::clamp(pow2Ceil(nest.loops[g.n].extent), intr.n, kMaxMmaTile);
  int64_t kExtent = nest.loops[g.k].extent;
  t.reduction[g.k] = kExtent >= 2 * intr.k && shrink == 0 ? 2 * intr.k : intr.k;

  auto apply = [&] {
    // Split a dim over 2 subgroups only if each keeps >= 2 intrinsic tiles
    // along it (reuse of the A and B fragments in registers).
    int64_t wavesM = mTile >= 4 * intr.m ? 2 : 1;
    int64_t wavesN = nTile >= 4 * intr.n ? 2 : 1;
    // At least kMinStagingThreads threads share the LDS staging (wave32
    // chips), splitting further where each subgroup keeps 2 tiles.
    // ... and few enough accumulator registers per lane (M x N / wave per
    // intrinsic tile) that fragments and staging fit besides.
    auto accumulatorRegs = [&] {
      return (mTile / wavesM) * (nTile / wavesN) / chip.waveSize;
    };
    while (wavesM * wavesN * chip.waveSize < kMinStagingThreads ||
           (accumulatorRegs() > maxAccumulatorRegs &&
            wavesM * wavesN * chip.waveSize * 2 <= kMaxThreads)) {
      if (nTile / wavesN >= 4 * intr.n)
        wavesN *= 2;
      else if (mTile / wavesM >= 4 * intr.m)
        wavesM *= 2;
      else
        break;
    }
    t.workgroup[g.m] = mTile;
    t.workgroup[g.n] = nTile;
    t.subgroup[g.m] = mTile / wavesM;
    t.subgroup[g.n] = nTile / wavesN;
    t.threads = wavesM * wavesN * chip.waveSize;
  };
  apply();
  // Enough workgroups to occupy every compute unit, if the problem allows:
  // halve the larger tile, down to 2x2 intrinsic tiles.
  while (countWorkgroups(nest, t, g.m) < chip.computeUnits) {
    if (mTile >= nTile && mTile > 2 * intr.m)
      mTile /= 2;
    else if (nTile > 2 * intr.n)
      nTile /= 2;
    else if (mTile > 2 * intr.m)
      mTile /= 2;
    else
      break;
    apply();
  }
  promoteInputs(ctx, loc, nest, chip, t, [&](Tiles &tiles) {
    if (tiles.reduction[g.k] > intr.k) {
      tiles.reduction[g.k] /= 2;
    } else if (mTile > intr.m && mTile >= nTile) {
      mTile /= 2;
    } else if (nTile > intr.n) {
      nTile /= 2;
    } else if (mTile > intr.m) {
      mTile /= 2;
    } else {
      return false;
    }
    apply();
    return true;
  });
  t.splitK = pickSplitK(nest, t, g, chip);
  return t;
}

/// The FMA path's vector loop: the one the output is contiguous along, if
/// it is parallel and at least 2 long (the thread tile along it is then
/// computed as vectors by boo-gpu-vectorize-thread-tiles); else N.
int64_t pickVectorLoop(const KernelLoopNest &nest, const GemmLoops &g) {
  int64_t v = nest.outputInnerLoop;
  // Channels of one per group (depthwise): the group loop is contiguous.
  if (v >= 0 && nest.loops[v].extent == 1 && nest.loops[v].role == LoopRole::N)
    for (auto [i, l] : llvm::enumerate(nest.loops))
      if (l.role == LoopRole::Group)
        v = i;
  if (v < 0 || nest.loops[v].isReduction || nest.loops[v].extent < 2)
    return g.n;
  return v;
}

/// The largest power of two at most `cap` that divides `extent` (full
/// thread tiles: partial ones are walked element by element).
int64_t dividingTile(int64_t extent, int64_t cap) {
  int64_t t = 1;
  while (t * 2 <= cap && extent % (t * 2) == 0)
    t *= 2;
  return t;
}

Tiles fmaConfig(MLIRContext *ctx, Location loc, const KernelLoopNest &nest,
                const GemmLoops &g, const ChipInfo &chip, int64_t shrink) {
  int64_t n = nest.getNumLoops();
  Tiles t(n);
  // The thread tile: a vector along the output's contiguous loop. Where
  // that loop indexes the first input (depthwise channels, NCHW columns),
  // its reads are vectors too: 16 bytes. Where it does not (NHWC output
  // channels, which index only the filter), each input value is one scalar
  // for the whole vector: 32 bytes of channels amortize it. One position
  // of every other loop: more (2 or 4 of the other GEMM loop) did not
  // lower the estimates of the ResNet-50 stem, MobileNetV2's depthwise
  // convs or VGG-16's first layer, and with 5x5 filters LLVM's hoisted
  // loads then overflowed the registers.
  int64_t v = pickVectorLoop(nest, g);
  // The other GEMM loop gets threads next: M for NHWC channels; N, or M
  // where N is a single channel (depthwise), for the others.
  int64_t other = g.n;
  if (other == v || nest.loops[other].extent == 1)
    other = g.m;
  if (other == v)
    other = g.n;
  bool vReadsInput = v != g.n;
  int64_t elemBytes = std::max<int64_t>(
      1, nest.inputs[0].elementType.getIntOrFloatBitWidth() / 8);
  int64_t perV =
      dividingTile(nest.loops[v].extent, (vReadsInput ? 16 : 32) / elemBytes);
  // Shrinking halves the vector.
  perV = std::max<int64_t>(1, perV >> shrink);
  // Threads: along the vector loop first where it indexes the first input
  // (coalesced vector reads); where it does not, one thread along it, so
  // that a wave shares its filter reads. Then the other GEMM loop, then the
  // other parallel loops from the innermost out.
  SmallVector<int64_t> order = {v, other};
  for (int64_t i = n - 1; i >= 0; --i)
    if (!nest.loops[i].isReduction && i != v && i != other)
      order.push_back(i);
  int64_t outputs = 1;
  for (const KernelLoop &l : nest.loops)
    if (!l.isReduction)
      outputs *= l.extent;
  int64_t budget = std::clamp(pow2Ceil(llvm::divideCeil(outputs, perV)),
                              chip.waveSize, kMaxThreads);
  int64_t left = budget;
  for (int64_t i : order) {
    int64_t per = i == v ? perV : 1;
    int64_t want = pow2Ceil(llvm::divideCeil(nest.loops[i].extent, per));
    // A register tile needs workgroup tiles that divide its loop: in a
    // partial one the thread tiles would have dynamic sizes and be walked
    // element by element (boo-gpu-distribute), not as vectors.
    if (i == v)
      want = vReadsInput ? dividingTile(nest.loops[i].extent / per, 16) : 1;
    int64_t threads = std::min(left, want);
    left /= threads;
    t.workgroup[i] = threads * per;
    t.thread[i] = per;
  }
  t.workgroup[other] *= left; // more lanes than outputs: masked
  t.threads = budget;
  for (auto [i, l] : llvm::enumerate(nest.loops))
    if (l.isReduction)
      t.reduction[i] = 1;
  t.reduction[g.k] = std::min<int64_t>(pow2Ceil(nest.loops[g.k].extent), 8);
  // No LDS staging: FMA kernels read their operands from global memory.
  return t;
}
} // namespace

LoweringConfigAttr mlir::boo::selectHeuristicConfig(MLIRContext *ctx,
                                                    Location loc,
                                                    const KernelLoopNest &nest,
                                                    const ChipInfo &chip,
                                                    int64_t shrink) {
  if (!nest.isContraction)
    return distributeInnermostOut(nest, chip).build(ctx, loc, chip);
  GemmLoops g = pickGemmLoops(nest);
  if (const MmaIntrinsic *intr = pickMma(nest, g, chip)) {
    orientAccumulatorRows(nest, *intr, g);
    return mmaConfig(ctx, loc, nest, g, *intr, chip, shrink)
        .build(ctx, loc, chip);
  }
  return fmaConfig(ctx, loc, nest, g, chip, shrink).build(ctx, loc, chip);
}
