//===- CPUTileAndVectorize.cpp - boo-cpu-tile-and-vectorize ---------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A generic CPU schedule for the linalg.generic ops Boo's lowering emits,
// in the spirit of upstream's tile -> decompose -> vectorize recipe but
// independent of named ops, so it serves every layout, group count, spatial
// rank and the backward convolutions alike:
//
//  1. Pick static tile sizes per loop (divisors of the loop extent, so every
//     tile is full and static):
//     - the parallel loop indexing the output's innermost dim is the vector
//       dim (up to 4 x vector-width lanes),
//     - a second parallel loop gives register rows (up to row-tile),
//     - the reduction loop indexing an input's innermost dim is tiled by
//       up to reduction-tile,
//     - every other loop, in particular every loop appearing in a windowed
//       access `a*d_i + b*d_j` other than its row loop, gets extent 1.
//  2. Tile the parallel loops with one scf.forall (its iterations are
//     independent: boo-cpu-outline-parallel runs them on threads), then the
//     reduction loops with scf.for inside it (reductions innermost).
//  3. In the tile, a windowed access whose other loops have extent 1 is a
//     strided slice: rewrite it as a strided tensor.extract_slice so every
//     indexing map becomes a projected permutation.
//  4. Vectorize (vector.contract for multiply-accumulate bodies).
//
// Ops for which this does not apply are left untouched for the scalar loop
// lowering; correctness never depends on this pass.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"
#include "CPUConvBorders.h"
#include "CPUDotTiles.h"
#include "CPUOperandLayouts.h"
#include "CPUPackedBlocks.h"
#include "CPUPaddedWindows.h"
#include "CPUPlaneConvs.h"
#include "CPUReversals.h"
#include "CPURowReductions.h"
#include "CPUTileOrder.h"
#include "CPUTileSizes.h"
#include "CPUVectorBodies.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPUTILEANDVECTORIZE
#include "Boo/Codegen/CPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {

/// Most input channels of a channels-first convolution computed plane by
/// plane (convolveChannelPlanes): a network's stem has 3.
constexpr int64_t kMaxPlaneChannels = 4;

/// Whether `op` has an input indexed by every loop (hasFullInput) and every
/// such input has the vector loop as its innermost dim: each element is
/// read once, in contiguous vectors (a row reduction's partial sums), so
/// an f16/bf16 input needs no promoted copy (and no transposes of f16/bf16
/// vectors come of extending it in place, which LLVM cannot lower).
static bool readsOnceContiguously(linalg::GenericOp op) {
  unsigned vecDim = vectorLoop(op);
  bool any = false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!map.isPermutation())
      continue;
    any = true;
    auto inner = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!inner || inner.getPosition() != vecDim)
      return false;
  }
  return any;
}

/// In a tiled op, rewrites windowed input accesses whose other loops have
/// extent 1 into strided slices, making every map a projected permutation.
static LogicalResult removeWindows(RewriterBase &rewriter,
                                   linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> newMaps = op.getIndexingMapsArray();
  SmallVector<Value> newInputs;
  bool changed = false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    Value source = operand->get();
    if (map.isProjectedPermutation()) {
      newInputs.push_back(source);
      continue;
    }
    auto type = cast<RankedTensorType>(source.getType());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<AffineExpr> results;
    SmallVector<int64_t> resultShape;
    for (auto [pos, e] : llvm::enumerate(map.getResults())) {
      FailureOr<LinearExpr> lin = decomposeLinear(e);
      if (failed(lin))
        return failure();
      int64_t offset = lin->constant;
      std::optional<std::pair<unsigned, int64_t>> live;
      for (auto [d, c] : lin->terms) {
        if (ranges[d] == 1)
          continue; // contributes 0 inside the tile
        if (live)
          return failure(); // two non-unit loops in one window
        live = {d, c};
      }
      offsets.push_back(rewriter.getIndexAttr(offset));
      if (!live) {
        // Unit extent: drop the dim (rank-reducing slice).
        sizes.push_back(rewriter.getIndexAttr(1));
        strides.push_back(rewriter.getIndexAttr(1));
        continue;
      }
      sizes.push_back(rewriter.getIndexAttr(ranges[live->first]));
      strides.push_back(rewriter.getIndexAttr(live->second));
      results.push_back(getAffineDimExpr(live->first, ctx));
      resultShape.push_back(ranges[live->first]);
    }
    (void)type;
    auto sliceType = RankedTensorType::get(resultShape, type.getElementType());
    Value slice = tensor::ExtractSliceOp::create(
        rewriter, op.getLoc(), sliceType, source, offsets, sizes, strides);
    newInputs.push_back(slice);
    newMaps[operand->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, results, ctx);
    changed = true;
  }
  if (!changed)
    return success();
  rewriter.modifyOpInPlace(op, [&]() {
    for (auto [i, v] : llvm::enumerate(newInputs))
      op.getDpsInputOperand(i)->set(v);
    op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(newMaps));
  });
  return success();
}

/// Reorders the loops of `op` so that the loops of operand `of`'s dims
/// come in its dim order (then the others), when its map is a projected
/// permutation.
static linalg::GenericOp orderLoopsLike(RewriterBase &rewriter,
                                        linalg::GenericOp op, OpOperand *of) {
  AffineMap outMap = op.getMatchingIndexingMap(of);
  if (!outMap.isProjectedPermutation())
    return op;
  SmallVector<unsigned> order;
  for (AffineExpr e : outMap.getResults())
    order.push_back(cast<AffineDimExpr>(e).getPosition());
  for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d)
    if (!llvm::is_contained(order, d))
      order.push_back(d);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return op;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> reordered =
      linalg::interchangeGenericOp(rewriter, op, order);
  return succeeded(reordered) ? *reordered : op;
}

/// orderLoopsLike for the output: an element-wise tile then vectorizes in
/// the output's layout, with no transposes around its body (contractions
/// fold theirs into vector.contract anyway).
static linalg::GenericOp orderLoopsLikeOutput(RewriterBase &rewriter,
                                              linalg::GenericOp op) {
  return orderLoopsLike(rewriter, op, op.getDpsInitOperand(0));
}

/// Whether every input of `op` is indexed by its vector loop (element-wise
/// ops, depthwise convolutions). The tiles of such an op share no input
/// along the vector loop, so they are best visited in the output's memory
/// order (a convolution's output-channel tiles, by contrast, share the
/// input and keep the generic's loop order: one filter tile stays in cache
/// while the input streams by).
static bool readsEveryInputAlongVectorLoop(linalg::GenericOp op) {
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation() || outMap.getNumResults() == 0)
    return false;
  return everyInputIndexedBy(op, vectorLoop(op));
}

/// One level of tiling: the tile size of each loop (0: not tiled at this
/// level), the loops made, whether a fill that makes the op's initial
/// value is fused into them, and whether they are the reduction loops.
struct TileLevel {
  SmallVector<OpFoldResult> sizes;
  scf::SCFTilingOptions::LoopType loopType;
  bool fuseFills = false;
  bool reductions = false;
};

/// Tiles `op` level by level, each level tiling the tile of the previous
/// one: normally one scf.forall over the parallel loops' tiles (the
/// iterations boo-cpu-outline-parallel distributes across threads), then
/// scf.for loops over the reduction loops' tiles inside it, so reductions
/// are innermost and the accumulator is a loop-carried value that
/// loop-invariant-subset-hoisting can keep in registers. A fill that makes
/// the initial value of a contraction is fused into the parallel levels:
/// each tile then starts from zeros in registers instead of reading back a
/// pass of zeros over the whole output. Its tiles are appended to
/// `fusedFills`, the loops over the reduction tiles to `reductionLoops`.
/// Returns the innermost tiled op.
static FailureOr<linalg::GenericOp>
tile(RewriterBase &rewriter, linalg::GenericOp op, ArrayRef<TileLevel> levels,
     SmallVectorImpl<linalg::GenericOp> &fusedFills,
     SmallVectorImpl<scf::ForOp> &reductionLoops) {
  auto tileLevel = [&](linalg::GenericOp target,
                       const TileLevel &level) -> FailureOr<linalg::GenericOp> {
    scf::SCFTilingOptions tilingOptions;
    tilingOptions.setLoopType(level.loopType);
    tilingOptions.setTileSizes(level.sizes);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tilingOptions);
    options.setFusionControlFn(
        [&](tensor::ExtractSliceOp, OpResult producer, bool isDestination)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          auto generic = dyn_cast<linalg::GenericOp>(producer.getOwner());
          if (level.fuseFills && isDestination && generic && isFill(generic))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          return std::nullopt;
        });
    rewriter.setInsertionPoint(target);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(target.getOperation()), options);
    if (failed(result) || result->tiledAndFusedOps.empty())
      return failure();
    auto tiledOp =
        dyn_cast<linalg::GenericOp>(result->tiledAndFusedOps.front());
    if (!tiledOp)
      return failure();
    for (Operation *fused : llvm::drop_begin(result->tiledAndFusedOps))
      if (auto generic = dyn_cast<linalg::GenericOp>(fused))
        fusedFills.push_back(generic);
    if (level.reductions)
      for (LoopLikeOpInterface loop : result->loops)
        if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
          reductionLoops.push_back(forOp);
    for (OpResult res : target->getResults())
      if (Value replacement = result->replacements.lookup(res))
        rewriter.replaceAllUsesWith(res, replacement);
    rewriter.eraseOp(target);
    return tiledOp;
  };
  for (const TileLevel &level : levels) {
    if (llvm::all_of(level.sizes, isZeroInteger))
      continue;
    FailureOr<linalg::GenericOp> tiledOp = tileLevel(op, level);
    if (failed(tiledOp))
      return failure();
    op = *tiledOp;
  }
  return op;
}

/// The levels `op` is tiled by, from one tile size per loop (a size equal
/// to the loop's extent: not tiled): a forall over the parallel loops, or,
/// with `pack`, a forall over the parallel loops that index the packed
/// input and a for over the others; then a for over the reductions. With
/// `nested` (a copy fused into another op's forall), the parallel loops
/// are scf.for loops.
static SmallVector<TileLevel> tileLevels(RewriterBase &rewriter,
                                         linalg::GenericOp op,
                                         ArrayRef<int64_t> tiles,
                                         const std::optional<PackPlan> &pack,
                                         bool nested) {
  using LoopType = scf::SCFTilingOptions::LoopType;
  bool contraction = op.getNumReductionLoops() > 0;
  TileLevel outer{
      {}, nested ? LoopType::ForOp : LoopType::ForallOp, contraction},
      inner{{}, LoopType::ForOp, contraction},
      reduction{{}, LoopType::ForOp, false, /*reductions=*/true};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  OpFoldResult zero = rewriter.getIndexAttr(0);
  for (auto [d, t, r, it] : llvm::enumerate(tiles, ranges, iters)) {
    OpFoldResult size = rewriter.getIndexAttr(t == r ? 0 : t);
    bool isParallel = it == utils::IteratorType::parallel;
    bool isOuter = isParallel && (!pack || pack->outer[d]);
    outer.sizes.push_back(isOuter ? size : zero);
    inner.sizes.push_back(isParallel && !isOuter ? size : zero);
    reduction.sizes.push_back(isParallel ? zero : size);
  }
  return {outer, inner, reduction};
}

struct BooCPUTileAndVectorizePass
    : public mlir::boo::impl::BooCPUTileAndVectorizeBase<
          BooCPUTileAndVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> chainForalls;
    if (vectorize) {
      tileRowChains(rewriter, func, rowChainBytes, streamMinBytes,
                    chainForalls);
      // Channels-first depthwise convolutions are computed in their own
      // layout, plane by plane; channels-last ones with short rows, row by
      // row.
      SmallVector<linalg::GenericOp> depthwise;
      func.walk([&](linalg::GenericOp op) {
        if (op.getNumReductionLoops() > 0)
          depthwise.push_back(op);
      });
      // Images that large have their borders peeled (below) rather than
      // long rows computed directly.
      for (linalg::GenericOp op : depthwise)
        if (!(planeConvs && (convolvePlanes(rewriter, op, vectorWidth,
                                            accumulatorLanes) ||
                             convolveChannelPlanes(rewriter, op, vectorWidth,
                                                   accumulatorLanes,
                                                   kMaxPlaneChannels))) &&
            depthwiseRows)
          (void)convolveDepthwiseRows(rewriter, op, vectorWidth,
                                      peelMinInputBytes);
      // Contractions with the reduction innermost in both inputs and few
      // positions per column: dot products, no transposed copy (they need
      // the register budget).
      if (dotMaxRows > 0 && registerLanes > 0 && accumulatorLanes > 0) {
        SmallVector<linalg::GenericOp> dots;
        func.walk([&](linalg::GenericOp op) {
          if (op.getNumReductionLoops() > 0)
            dots.push_back(op);
        });
        DotOptions options;
        options.lanes = registerLanes;
        options.registers = accumulatorLanes * 4 / 3 / registerLanes;
        options.accumulatorLanes = accumulatorLanes;
        options.maxRows = dotMaxRows;
        options.maxColBytes = packMinBytes;
        options.positionTile = 2 * vectorWidth;
        for (linalg::GenericOp op : dots)
          (void)computeDotTiles(rewriter, op, options);
      }
      // Convolutions with small filters read their input unpadded, but
      // at the borders (the pieces are collected again below).
      SmallVector<linalg::GenericOp> convs, pieces;
      if (peelFilterBytes > 0)
        func.walk([&](linalg::GenericOp op) {
          if (op.getNumReductionLoops() > 0)
            convs.push_back(op);
        });
      for (linalg::GenericOp op : convs)
        (void)peelPaddedBorders(rewriter, op, peelFilterBytes,
                                peelMinInputBytes, pieces);
    }
    // The combinations of split row reductions (splitRowReduction, below)
    // reduce each row's partials in registers: one row per tile, the
    // partials whole, no operand copies.
    DenseSet<Operation *> combines;
    SmallVector<linalg::GenericOp> candidates;
    func.walk([&](linalg::GenericOp op) { candidates.push_back(op); });

    TileTargets targets{vectorWidth, 4 * vectorWidth, rowTile, reductionTile,
                        accumulatorLanes};
    SmallVector<linalg::GenericOp> tiled;
    // The copies the contractions' operands are prepared by (promotions to
    // f32, transposes), tiled after them.
    SmallVector<linalg::GenericOp> copies;
    // The second pieces of contractions split by mergeInnerOutputLoops,
    // tiled after their first.
    SmallVector<linalg::GenericOp> tails;
    // Whether each tile of `op` writes whole 64-byte lines of its output
    // (its vector tile, along the output's innermost dim).
    auto writesWholeLines = [&](linalg::GenericOp op) {
      FailureOr<SmallVector<int64_t>> tiles = chooseTileSizes(op, targets);
      auto type = cast<ShapedType>(op.getDpsInits()[0].getType());
      return succeeded(tiles) &&
             (*tiles)[vectorLoop(op)] * type.getElementTypeBitWidth() >= 64 * 8;
    };
    // The contractions' tiles whose positions along a padded dim read
    // padding in some iterations of a window loop (splitPaddedRows).
    // (An index into paddedRows.)
    DenseMap<Operation *, unsigned> paddedTiles;
    SmallVector<PaddedTileRows> paddedRows;
    // The contractions' tiles that read an input packed per block, and
    // which input.
    SmallVector<std::pair<linalg::GenericOp, unsigned>> packs;
    auto tileOne = [&](linalg::GenericOp op, bool prepare,
                       bool nested = false) {
      // A transposing copy whose tiles write whole cache lines walks its
      // tiles in the input's order: each tile reads a square's rows far
      // apart, and the next tile continues those same rows (16 read
      // streams, where the output's order would alternate between sets of
      // rows). A reordered 3x3 512->512 filter took a third of the
      // convolution's time; the convolution at 7x7 went from about 3.9 ms
      // to 3.2 ms on cpu:1. Tiles that write less than a line (a 3x3
      // weight gradient copied back to KCYX, 3 floats per row) keep the
      // output's order, so that the next tile completes the lines: in the
      // input's order, that copy made the gradient 15% slower.
      if (transposedLoop(op, vectorLoop(op)) && writesWholeLines(op))
        op = orderLoopsLike(rewriter, op, op.getDpsInputOperand(0));
      else if (readsEveryInputAlongVectorLoop(op))
        op = orderLoopsLikeOutput(rewriter, op);
      bool combine = combines.contains(op);
      auto choose = [&]() -> FailureOr<SmallVector<int64_t>> {
        if (combine)
          return rowCombineTileSizes(op);
        return chooseTileSizes(op, targets);
      };
      FailureOr<SmallVector<int64_t>> tiles = choose();
      if (failed(tiles))
        return;
      if (prepare && vectorize && op.getNumReductionLoops() > 0 && !combine) {
        // Inputs read once, along their contiguous dim, are extended
        // where they are read.
        if (!readsOnceContiguously(op))
          promoteInputsToF32(rewriter, op, copies);
        op = mergeInnerOutputLoops(rewriter, op, 2 * vectorWidth,
                                   overlapMergedTails, copies, tails);
        if (splitVectorLoops)
          op = splitVectorLoop(rewriter, op, 2 * vectorWidth, copies, tails);
        op = repackWindowedVectorLoop(rewriter, op, vectorLoop(op), copies);
        if (readsEveryInputAlongVectorLoop(op))
          op = orderLoopsLikeOutput(rewriter, op);
        tiles = choose();
        if (failed(tiles))
          return;
        op = blockVectorLoop(rewriter, op, vectorLoop(op),
                             (*tiles)[vectorLoop(op)], packMinBytes, copies);
        makeVectorDimContiguous(rewriter, op, vectorLoop(op), copies);
        makeReductionDimContiguous(rewriter, op, vectorLoop(op), copies);
        // Register tiles whose rows do not divide the row loop: its last
        // rows are a piece of their own, tiled after this one.
        if (splitRowLoops)
          op = splitRowLoop(rewriter, op, targets, copies, tails);
        tiles = choose();
        if (failed(tiles))
          return;
      }
      // The tiles that re-read a large image in place go first.
      if (prepare && vectorize)
        op = visitVectorTilesFirst(rewriter, op, vectorLoop(op), *tiles,
                                   l2CacheBytes, copies);
      // With a large operand copy read by groups of tiles, each group is
      // one iteration of the forall, which packs its block of the copy
      // (fused below, once the copies are final).
      std::optional<PackPlan> pack;
      if (prepare && vectorize && !nested)
        pack = planPackedBlocks(op, *tiles, packMinBytes, copies);
      SmallVector<scf::ForOp> reductionLoops;
      FailureOr<linalg::GenericOp> tiledOp =
          tile(rewriter, op, tileLevels(rewriter, op, *tiles, pack, nested),
               tiled, reductionLoops);
      if (failed(tiledOp))
        return;
      tiled.push_back(*tiledOp);
      // Window rows and columns that read only padding are skipped; tiles
      // with only some positions in the padding are split once vectorized.
      SmallVector<PaddedTileRows> partial;
      if (prepare && vectorize && clipPaddedWindows)
        (void)clipPaddedWindowLoops(rewriter, *tiledOp, reductionLoops,
                                    partial);
      if (partial.size() == 1) {
        paddedTiles.try_emplace(*tiledOp, paddedRows.size());
        paddedRows.push_back(partial.front());
      }
      if (pack)
        packs.push_back({*tiledOp, pack->input});
    };
    // Row reductions are split into partial sums along the rows first.
    if (vectorize) {
      SmallVector<linalg::GenericOp> prepared;
      for (linalg::GenericOp op : candidates)
        if (!splitRowReduction(rewriter, op, vectorWidth, prepared, combines))
          prepared.push_back(op);
      candidates = std::move(prepared);
    }
    // Contractions first: repacking one may replace its initial value (a
    // fill), which is then dead.
    std::stable_partition(
        candidates.begin(), candidates.end(),
        [](linalg::GenericOp op) { return op.getNumReductionLoops() > 0; });
    auto firstNonContraction =
        llvm::find_if(candidates, [](linalg::GenericOp op) {
          return op.getNumReductionLoops() == 0;
        });
    auto tileCandidates = [&](ArrayRef<linalg::GenericOp> ops) {
      for (linalg::GenericOp op : ops) {
        if (op->use_empty() && isPure(op)) {
          rewriter.eraseOp(op);
          continue;
        }
        tileOne(op, /*prepare=*/true);
        while (!tails.empty())
          tileOne(tails.pop_back_val(), /*prepare=*/true);
      }
    };
    tileCandidates(ArrayRef(candidates.begin(), firstNonContraction));
    // The tiles read a reversed filter (backward data) in place.
    if (vectorize)
      foldReversals(func);
    tileCandidates(ArrayRef(firstNonContraction, candidates.end()));
    // Pads (the convolutions' inputs, some made by the repacking above)
    // become fills and copies, tiled like the other copies.
    if (vectorize) {
      fuseCopyChains(rewriter, copies);
      SmallVector<tensor::PadOp> pads;
      func.walk([&](tensor::PadOp pad) { pads.push_back(pad); });
      for (tensor::PadOp pad : pads)
        decomposePad(rewriter, pad, copies);
      // Each iteration of such a contraction's forall packs its block.
      for (auto [packTile, input] : packs) {
        FailureOr<linalg::GenericOp> block =
            fusePackedBlock(rewriter, packTile, input);
        if (succeeded(block))
          tileOne(*block, /*prepare=*/false, /*nested=*/true);
      }
    }
    for (linalg::GenericOp op : copies) {
      // A fill fused into the tiles of its contraction is left dead.
      if (op->use_empty() && isPure(op)) {
        rewriter.eraseOp(op);
        continue;
      }
      tileOne(op, /*prepare=*/false);
    }
    flattenNestedPieces(rewriter, func);
    if (!vectorize)
      return;

    for (linalg::GenericOp op : tiled) {
      rewriter.setInsertionPoint(op);
      auto padded = paddedTiles.find(op);
      if (failed(removeWindows(rewriter, op)))
        continue;
      // Drop the unit loops of the tile (batch, window, group...) so the
      // contraction has a single reduction dim and lowers to FMAs.
      linalg::ControlDropUnitDims dropOptions;
      dropOptions.rankReductionStrategy = linalg::ControlDropUnitDims::
          RankReductionStrategy::ExtractInsertSlice;
      FailureOr<linalg::DropUnitDimsResult> dropped =
          linalg::dropUnitDims(rewriter, op, dropOptions);
      if (succeeded(dropped)) {
        rewriter.replaceOp(op, dropped->replacements);
        op = cast<linalg::GenericOp>(dropped->resultOp.getOperation());
      }
      op = orderLoopsLikeOutput(rewriter, op);
      if (failed(linalg::vectorizeOpPrecondition(op)))
        continue;
      // The vector sizes are the tile's static extents, given explicitly:
      // with none given, upstream's vectorizer built some vector types of
      // a blocked convolution's tiles with uninitialized scalable-dim flags
      // (printed as plain vectors, translated to LLVM as <vscale x ...>,
      // which the x86 backend rejects).
      SmallVector<int64_t> vectorSizes = op.getStaticLoopRanges();
      SmallVector<bool> scalableDims(vectorSizes.size(), false);
      FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
          rewriter, op, vectorSizes, scalableDims,
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/true);
      if (failed(result))
        continue;
      rewriter.replaceOp(op, result->replacements);
      // The write of such a tile is marked: its contraction is split once
      // the cleanup below has made it a vector.contract.
      if (padded != paddedTiles.end() && result->replacements.size() == 1)
        if (auto write = result->replacements.front()
                             .getDefiningOp<vector::TransferWriteOp>())
          markPaddedRows(write, padded->second);
    }

    // The passes of a row chain's tiles that do not depend on each other
    // are fused (two row sums; dx and the column sums).
    fuseChainPasses(rewriter, chainForalls);
    // Clean up the vector IR in two bounded phases (the pattern sets fight
    // each other when mixed):
    //  1. permutation maps of transfers become explicit broadcasts and
    //     transposes, which fold into vector.contract operands;
    //  2. unit dims are dropped so contractions and transfers are low-rank.
    // The bounds guarantee termination; not converging is harmless here.
    GreedyRewriteConfig config;
    config.setMaxIterations(4);
    config.setMaxNumRewrites(20000);
    auto foldIntoContractions = [&]() {
      RewritePatternSet patterns(&getContext());
      vector::populateVectorReductionToContractPatterns(patterns);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      MLIRContext *ctx = &getContext();
      vector::BroadcastOp::getCanonicalizationPatterns(patterns, ctx);
      vector::ContractionOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
      vector::TransposeOp::getCanonicalizationPatterns(patterns, ctx);
      vector::ExtractOp::getCanonicalizationPatterns(patterns, ctx);
      vector::ShapeCastOp::getCanonicalizationPatterns(patterns, ctx);
      (void)applyPatternsGreedily(func, std::move(patterns), config);
    };
    foldIntoContractions();
    {
      RewritePatternSet patterns(&getContext());
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      vector::populateVectorTransferDropUnitDimsPatterns(patterns);
      populateCPUVectorBodyPatterns(patterns);
      (void)applyPatternsGreedily(func, std::move(patterns), config);
    }
    // Dropping unit dims re-exposes broadcasts; fold them again.
    foldIntoContractions();
    // Tiles with some positions in the padding (marked above) skip them.
    splitMarkedPaddedRows(rewriter, func, paddedRows);
  }
};
} // namespace
