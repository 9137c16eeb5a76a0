//===- GPUDistribute.cpp - Kernels as workgroup/thread scf.forall nests ---===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-gpu-distribute` decides, on linalg on tensors, what each GPU kernel
// computes and how its iterations are spread over workgroups and threads:
//
//   1. Reads through data movement (pads, zero-stuffing, the filter flip)
//      become guarded loads in the consumer's body (GPUInlineReads.cpp).
//   2. Kernel roots are found from the end of each function: a linalg op no
//      other top-level linalg op reads. Each root is tiled twice with
//      `scf::tileConsumerAndFuseProducersUsingSCF`: into a workgroup
//      `scf.forall` (`#gpu.block<linear_dim_*>`), then the workgroup tile
//      into a thread `scf.forall` (`#gpu.thread<linear_dim_*>`). Producers
//      read through parallel-only maps (the accumulation generic and its
//      fill, layer-norm statistics) are fused into both levels, so a fusion
//      computes its epilogue on the accumulator tile and stores once.
//      Producers read through maps with reduction loops are not fused; they
//      become kernels of their own.
//   3. A fused producer whose value is also returned (layer-norm mean/rstd)
//      is yielded from the loops rather than recomputed by another kernel.
//
// Linear mapping ids are assigned so that linear_dim_0 is the loop of the
// output's innermost dim: consecutive threads store consecutive elements.
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"
#include "StridePhases.h"

#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Target/ChipInfo.h"
#include "Boo/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPUDISTRIBUTE
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {

/// Tile sizes of one kernel, one entry per loop of its root.
struct KernelTiles {
  /// Workgroup tile; 0: the whole extent (not tiled).
  SmallVector<int64_t> workgroup;
  /// Thread tile within the workgroup tile; 0: not distributed over threads
  /// (each thread covers the whole workgroup tile of that loop).
  SmallVector<int64_t> thread;
};

bool isReductionLoop(linalg::LinalgOp op, unsigned d) {
  return op.getIteratorTypesArray()[d] == utils::IteratorType::reduction;
}

/// True if `operand` is indexed by parallel loops of its owner only: a tile
/// of the owner then needs a tile of the operand of the same extents.
bool isParallelOnlyRead(linalg::LinalgOp op, OpOperand *operand) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    if (isReductionLoop(op, d) && map.isFunctionOfDim(d))
      return false;
  return true;
}

/// True if fusing the producer of `value` brings a reduction into the tile.
bool fusesReduction(Value value) {
  auto producer = value.getDefiningOp<linalg::LinalgOp>();
  if (!producer)
    return false;
  if (producer.getNumReductionLoops() > 0)
    return true;
  return llvm::any_of(producer.getDpsInputOperands(), [&](OpOperand *input) {
    return isParallelOnlyRead(producer, input) && fusesReduction(input->get());
  });
}

/// The parallel loops of `root` ordered by the output dim they index,
/// innermost (fastest in memory) first.
SmallVector<int64_t> getLoopOrder(linalg::LinalgOp root) {
  AffineMap out = root.getMatchingIndexingMap(root.getDpsInitOperand(0));
  SmallVector<int64_t> order;
  for (AffineExpr expr : llvm::reverse(out.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      if (!isReductionLoop(root, dim.getPosition()) &&
          !llvm::is_contained(order, dim.getPosition()))
        order.push_back(dim.getPosition());
  for (int64_t d = 0, e = root.getNumLoops(); d < e; ++d)
    if (!isReductionLoop(root, d) && !llvm::is_contained(order, d))
      order.push_back(d);
  return order;
}

/// Built-in tiles: one output element per thread; up to `budget` threads
/// per workgroup, spread from the innermost output dim outwards. A loop
/// the root does not index a fused reduction by (the normalized dims of a
/// layer norm, for the row statistics) stays whole in every thread, so that
/// each statistic is computed once.
KernelTiles getDefaultTiles(linalg::LinalgOp root, int64_t budget) {
  int64_t numLoops = root.getNumLoops();
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  llvm::SmallDenseSet<int64_t> whole;
  for (OpOperand *input : root.getDpsInputOperands()) {
    if (!isParallelOnlyRead(root, input) || !fusesReduction(input->get()))
      continue;
    AffineMap map = root.getMatchingIndexingMap(input);
    for (int64_t d = 0; d < numLoops; ++d)
      if (!map.isFunctionOfDim(d))
        whole.insert(d);
  }
  KernelTiles tiles{SmallVector<int64_t>(numLoops, 0),
                    SmallVector<int64_t>(numLoops, 0)};
  SmallVector<int64_t> order = getLoopOrder(root);
  for (int64_t d : order) {
    if (whole.contains(d))
      continue;
    int64_t tile = std::max<int64_t>(1, std::min(ranges[d], budget));
    tiles.workgroup[d] = tile;
    tiles.thread[d] = 1;
    budget = std::max<int64_t>(1, budget / tile);
  }
  if (llvm::all_of(tiles.workgroup, [](int64_t t) { return t == 0; }) &&
      !order.empty()) {
    // Nothing may be split: one thread computes the whole kernel.
    int64_t d = order.front();
    tiles.workgroup[d] = tiles.thread[d] = ranges[d];
  }
  return tiles;
}

/// The tiles of a `#boo.lowering_config` on `carrier` (the root, or the
/// anchor generic it reads with its result dims), as tiles of `root`'s loops.
FailureOr<KernelTiles> getConfigTiles(linalg::LinalgOp root,
                                      linalg::LinalgOp carrier,
                                      boo::LoweringConfigAttr config) {
  int64_t numLoops = root.getNumLoops();
  if (config.getNumLoops() != carrier.getNumLoops())
    return root.emitError() << "boo-gpu-distribute: the lowering config has "
                            << config.getNumLoops() << " tiles for "
                            << carrier.getNumLoops() << " loops";
  ArrayRef<int64_t> wg = config.getWorkgroup(), th = config.getThread();
  auto tileOf = [&](ArrayRef<int64_t> list, int64_t loop) {
    return loop < (int64_t)list.size() ? list[loop] : 0;
  };
  // root loop -> carrier loop, through the operand that reads the carrier's
  // result: root loop d indexes result dim k, which the carrier's loop j
  // writes.
  SmallVector<int64_t> toCarrier(numLoops, -1);
  if (carrier == root) {
    for (int64_t d = 0; d < numLoops; ++d)
      toCarrier[d] = d;
  } else {
    for (OpOperand *input : root.getDpsInputOperands()) {
      auto result = dyn_cast<OpResult>(input->get());
      if (!result || result.getOwner() != carrier.getOperation())
        continue;
      AffineMap read = root.getMatchingIndexingMap(input);
      AffineMap written = carrier.getIndexingMapMatchingResult(result);
      for (auto [k, expr] : llvm::enumerate(read.getResults()))
        if (auto dim = dyn_cast<AffineDimExpr>(expr))
          if (auto carrierDim = dyn_cast<AffineDimExpr>(written.getResult(k)))
            toCarrier[dim.getPosition()] = carrierDim.getPosition();
    }
  }
  KernelTiles tiles{SmallVector<int64_t>(numLoops, 0),
                    SmallVector<int64_t>(numLoops, 0)};
  bool reductionThreads = false;
  for (int64_t j = 0; j < carrier.getNumLoops(); ++j)
    reductionThreads |= isReductionLoop(carrier, j) && tileOf(th, j) != 0;
  if (reductionThreads)
    carrier.emitWarning()
        << "boo-gpu-distribute: thread tiles on reduction loops (threads "
           "combining partial sums) are not implemented on the FMA path; "
           "each thread reduces its whole extent";
  for (int64_t d = 0; d < numLoops; ++d) {
    if (isReductionLoop(root, d) || toCarrier[d] < 0)
      continue;
    tiles.workgroup[d] = tileOf(wg, toCarrier[d]);
    tiles.thread[d] = tileOf(th, toCarrier[d]);
    int64_t range = root.getStaticLoopRanges()[d];
    if (tiles.workgroup[d] == 0 && tiles.thread[d] != 0)
      tiles.workgroup[d] = range;
    // A register tile must be static: where the last workgroup tile is
    // partial, a thread's tile could be too, and its temporaries would be
    // dynamically indexed scratch. Such a loop gets one element per thread
    // with the same number of threads (a smaller workgroup tile).
    if (tiles.thread[d] > 1 && !ShapedType::isDynamic(range) &&
        range % tiles.workgroup[d] != 0) {
      tiles.workgroup[d] = std::max<int64_t>(
          1, tiles.workgroup[d] / tiles.thread[d]);
      tiles.thread[d] = 1;
    }
  }
  return tiles;
}

/// Mapping attributes for the loops with a non-zero tile, in loop order;
/// linear_dim_0 goes to the first such loop of `order`.
SmallVector<Attribute> getMapping(MLIRContext *ctx, ArrayRef<int64_t> tiles,
                                  ArrayRef<int64_t> order, bool threads) {
  SmallVector<int64_t> rank(tiles.size(), -1);
  int64_t next = 0;
  for (int64_t d : order)
    if (tiles[d] != 0)
      rank[d] = next++;
  for (int64_t d = 0, e = tiles.size(); d < e; ++d)
    if (tiles[d] != 0 && rank[d] < 0)
      rank[d] = next++;
  SmallVector<Attribute> mapping;
  for (int64_t d = 0, e = tiles.size(); d < e; ++d) {
    if (tiles[d] == 0)
      continue;
    auto id = static_cast<gpu::MappingId>(
        static_cast<int64_t>(gpu::MappingId::LinearDim0) + rank[d]);
    mapping.push_back(threads
                          ? Attribute(gpu::GPUThreadMappingAttr::get(ctx, id))
                          : Attribute(gpu::GPUBlockMappingAttr::get(ctx, id)));
  }
  return mapping;
}

/// Erases the pure ops of `block` that became unused, last to first.
void eraseDeadOps(RewriterBase &rewriter, Block &block) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (op.use_empty() && isPure(&op) &&
          !op.hasTrait<OpTrait::IsTerminator>()) {
        rewriter.eraseOp(&op);
        changed = true;
      }
  }
}

/// A use of a fused producer that the tiled loops must serve with a yielded
/// value: not a linalg op (those fuse the producer themselves) and not a
/// shape query (tiling itself creates those for the loop bounds).
bool isEscapingUser(Operation *user) {
  return !isa<linalg::LinalgOp, tensor::DimOp>(user);
}

/// One level of tile-and-fuse. Returns the tiled root.
/// With a `mapping`, the loops are one scf.forall; without, scf.for loops.
FailureOr<linalg::LinalgOp> tileAndFuse(RewriterBase &rewriter,
                                        linalg::LinalgOp root,
                                        ArrayRef<int64_t> tiles,
                                        ArrayRef<Attribute> mapping) {
  scf::SCFTilingOptions tilingOptions;
  tilingOptions.setLoopType(mapping.empty()
                                ? scf::SCFTilingOptions::LoopType::ForOp
                                : scf::SCFTilingOptions::LoopType::ForallOp);
  tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), tiles));
  tilingOptions.setMapping(mapping);

  DenseSet<Value> yielded;
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tilingOptions);
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp slice, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!isa<linalg::LinalgOp>(producer.getOwner()))
          return std::nullopt;
        // A producer read through reduction loops would be recomputed by
        // every thread for the whole reduction: it is a kernel of its own.
        for (OpOperand &use : slice->getUses())
          if (auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner()))
            if (!isParallelOnlyRead(consumer, &use))
              return std::nullopt;
        // Yield the fused value when something that is not a linalg op
        // (a return, a reshape, the enclosing loop's terminator) uses it.
        Operation *loop = slice->getParentOfType<LoopLikeOpInterface>();
        bool escapes = llvm::any_of(producer.getUsers(), [&](Operation *user) {
          return user != root.getOperation() && isEscapingUser(user) &&
                 !(loop && loop->isAncestor(user));
        });
        scf::SCFTileAndFuseOptions::ControlFnResult result;
        result.yieldProducerReplacement =
            escapes && yielded.insert(producer).second;
        return result;
      });

  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(root.getOperation()), options);
  if (failed(result) || result->loops.empty())
    return root.emitError() << "boo-gpu-distribute: cannot tile the kernel "
                               "root onto workgroups and threads";
  Operation *loop = result->loops.front().getOperation();

  for (OpResult res : root->getResults())
    if (Value replacement = result->replacements.lookup(res))
      rewriter.replaceAllUsesWith(res, replacement);
  for (Operation *producer : result->fusedProducers)
    for (OpResult res : producer->getResults())
      if (Value replacement = result->replacements.lookup(res))
        rewriter.replaceUsesWithIf(res, replacement, [&](OpOperand &use) {
          Operation *user = use.getOwner();
          return isEscapingUser(user) && !loop->isAncestor(user);
        });
  return cast<linalg::LinalgOp>(result->tiledAndFusedOps.front());
}

/// `out + a * b` in the body of an accumulation (a generic with reduction
/// loops) becomes `math.fma a, b, out`: one rounding per step, as the CPU
/// path's vector FMAs, and one v_fma/v_fmac instruction on every chip.
void contractAccumulation(RewriterBase &rewriter, linalg::GenericOp generic) {
  if (generic.getNumReductionLoops() == 0)
    return;
  Block *body = generic.getBody();
  for (auto add : llvm::make_early_inc_range(body->getOps<arith::AddFOp>())) {
    for (int i = 0; i < 2; ++i) {
      auto acc = dyn_cast<BlockArgument>(add->getOperand(i));
      auto mul = add->getOperand(1 - i).getDefiningOp<arith::MulFOp>();
      if (!acc || acc.getOwner() != body ||
          acc.getArgNumber() < generic.getNumDpsInputs() || !mul ||
          !mul->hasOneUse())
        continue;
      rewriter.setInsertionPoint(add);
      rewriter.replaceOpWithNewOp<math::FmaOp>(add, mul.getLhs(), mul.getRhs(),
                                               acc);
      rewriter.eraseOp(mul);
      break;
    }
  }
}

struct BooGPUDistributePass
    : public boo::impl::BooGPUDistributeBase<BooGPUDistributePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const boo::ChipInfo *chipInfo = boo::lookupChip(chip);
    if (!chipInfo) {
      module.emitError() << "boo-gpu-distribute: "
                         << boo::getUnsupportedChipMessage(chip);
      return signalPassFailure();
    }
    budget = std::min<int64_t>(workgroupSize, chipInfo->maxWorkgroupSize);
    if (budget < 1) {
      module.emitError() << "boo-gpu-distribute: workgroup-size must be >= 1";
      return signalPassFailure();
    }
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(distribute(func)))
        return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }

  LogicalResult distribute(func::FuncOp func) {
    if (func.isExternal())
      return success();
    // Kernels never write their inputs: the caller's buffers stay intact.
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<TensorType>(type))
        func.setArgAttr(i, "bufferization.writable",
                        BoolAttr::get(func.getContext(), false));

    IRRewriter rewriter(func.getContext());
    Block &body = func.getBody().front();
    SmallVector<linalg::GenericOp> generics(body.getOps<linalg::GenericOp>());
    for (linalg::GenericOp generic : generics) {
      generic = boo::inlineDataMovementReads(rewriter, generic);
      // MMA kernels skip the stuffed taps per workgroup phase
      // (boo-gpu-mma-kernels); FMA kernels per iteration.
      if (!getMmaConfig(generic)) {
        generic = boo::skipStuffedTaps(rewriter, generic);
        contractAccumulation(rewriter, generic);
      }
    }
    eraseDeadOps(rewriter, body);

    // Row-reduction kernels first: their statistics' roundings to the
    // stored type (row ops that only feed results) come after the
    // element-wise root in the block, and as roots of their own they would
    // take the statistics out of the kernel.
    for (Operation &op : llvm::reverse(body)) {
      auto generic = dyn_cast<linalg::GenericOp>(&op);
      if (generic && generic.hasPureTensorSemantics() &&
          !mmaKernelOps.contains(generic) && !isReadByLinalg(generic, body))
        collectRowReductionKernel(generic);
    }

    // Roots, from the end: a top-level linalg op no top-level linalg op
    // reads. Tiling one leaves its unfused producers as new roots.
    while (true) {
      linalg::LinalgOp root;
      for (Operation &op : llvm::reverse(body)) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
        if (!linalgOp || !linalgOp.hasPureTensorSemantics())
          continue;
        if (mmaKernelOps.contains(&op) || isReadByLinalg(&op, body))
          continue;
        root = linalgOp;
        break;
      }
      if (!root)
        break;
      if (isMmaKernel(root)) {
        // Built after bufferization by boo-gpu-mma-kernels.
        collectMmaKernel(root);
        continue;
      }
      if (collectRowReductionKernel(root))
        continue; // built after bufferization by boo-gpu-row-reductions
      if (failed(distributeKernel(rewriter, root)))
        return failure();
      eraseDeadOps(rewriter, body);
    }

    // An empty tensor that only ops inside the kernels use (the loop-bounds
    // operand of an accumulation) belongs to each thread: left outside, it
    // would become a host allocation passed to the kernel.
    for (auto empty :
         llvm::make_early_inc_range(body.getOps<tensor::EmptyOp>())) {
      if (!empty.getType().hasStaticShape() ||
          llvm::any_of(empty->getUsers(), [&](Operation *user) {
            return user->getBlock() == &body;
          }))
        continue;
      for (OpOperand &use : llvm::make_early_inc_range(empty->getUses())) {
        rewriter.setInsertionPoint(use.getOwner());
        Operation *clone = rewriter.clone(*empty);
        rewriter.modifyOpInPlace(use.getOwner(),
                                 [&] { use.set(clone->getResult(0)); });
      }
      rewriter.eraseOp(empty);
    }
    return success();
  }

  /// A kernel without parallel loops (its results are scalars: an
  /// element-wise op on rank-0 tensors, a reduction of everything): one
  /// workgroup of one thread computes it, its producers being kernels of
  /// their own. Correct for any size; a large full reduction is serial.
  LogicalResult distributeScalarKernel(RewriterBase &rewriter,
                                       linalg::LinalgOp root) {
    MLIRContext *ctx = root.getContext();
    Location loc = root.getLoc();
    if (llvm::any_of(root->getResultTypes(), [](Type t) {
          return cast<RankedTensorType>(t).getRank() != 0;
        }))
      return root.emitError() << "boo-gpu-distribute: a kernel without "
                                 "parallel loops must have scalar results";
    // forall (1) { forall (1) { root } } with the results as shared outs.
    auto wrap = [&](ValueRange outs, Attribute mapping,
                    function_ref<SmallVector<Value>(ValueRange)> inner) {
      SmallVector<OpFoldResult> one = {rewriter.getIndexAttr(1)};
      auto loop = scf::ForallOp::create(rewriter, loc, one, outs,
                                        rewriter.getArrayAttr({mapping}));
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(loop.getTerminator());
      SmallVector<Value> results = inner(loop.getRegionIterArgs());
      rewriter.setInsertionPointToStart(loop.getTerminator().getBody());
      for (auto [result, dest] :
           llvm::zip(results, loop.getRegionIterArgs()))
        tensor::ParallelInsertSliceOp::create(
            rewriter, loc, result, dest, ArrayRef<OpFoldResult>(),
            ArrayRef<OpFoldResult>(), ArrayRef<OpFoldResult>());
      return loop;
    };
    rewriter.setInsertionPoint(root);
    scf::ForallOp workgroup = wrap(
        root.getDpsInits(),
        gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::LinearDim0),
        [&](ValueRange wgOuts) {
          scf::ForallOp thread = wrap(
              wgOuts,
              gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::LinearDim0),
              [&](ValueRange threadOuts) {
                IRMapping mapping;
                for (auto [init, out] :
                     llvm::zip(root.getDpsInits(), threadOuts))
                  mapping.map(init, out);
                return SmallVector<Value>(
                    rewriter.clone(*root, mapping)->getResults());
              });
          return SmallVector<Value>(thread.getResults());
        });
    rewriter.replaceOp(root, workgroup.getResults());
    return success();
  }

  LogicalResult distributeKernel(RewriterBase &rewriter,
                                 linalg::LinalgOp root) {
    if (root.getNumParallelLoops() == 0)
      return distributeScalarKernel(rewriter, root);
    FailureOr<KernelTiles> tiles = getTiles(root);
    if (failed(tiles))
      return failure();
    SmallVector<int64_t> order = getLoopOrder(root);
    MLIRContext *ctx = root.getContext();
    rewriter.setInsertionPoint(root);
    FailureOr<linalg::LinalgOp> workgroupTile =
        tileAndFuse(rewriter, root, tiles->workgroup,
                    getMapping(ctx, tiles->workgroup, order, false));
    if (failed(workgroupTile))
      return failure();
    auto workgroupLoop = (*workgroupTile)->getParentOfType<scf::ForallOp>();
    rewriter.setInsertionPoint(*workgroupTile);
    FailureOr<linalg::LinalgOp> threadTile =
        tileAndFuse(rewriter, *workgroupTile, tiles->thread,
                    getMapping(ctx, tiles->thread, order, true));
    if (failed(threadTile))
      return failure();
    // A thread tile of several elements is a register tile only when its
    // shape is static. In a partial workgroup tile it is not, and its
    // temporaries would be dynamically indexed private arrays (scratch):
    // there each thread loops over its elements one at a time.
    SmallVector<int64_t> elementTiles(tiles->thread.size(), 0);
    SmallVector<int64_t> threadRanges = threadTile->getStaticLoopRanges();
    for (auto [d, tile] : llvm::enumerate(tiles->thread))
      if (tile > 1 && ShapedType::isDynamic(threadRanges[d]))
        elementTiles[d] = 1;
    if (llvm::any_of(elementTiles, [](int64_t t) { return t != 0; })) {
      rewriter.setInsertionPoint(*threadTile);
      if (failed(tileAndFuse(rewriter, *threadTile, elementTiles, {})))
        return failure();
    }
    eraseDeadOps(rewriter, *workgroupLoop.getBody());

    // Reductions outermost in each thread's accumulation: the thread tile's
    // parallel loops become the innermost, small, static loops, which LLVM
    // unrolls, so the accumulator tile lives in registers. The order of the
    // reduction loops, hence each sum, is unchanged.
    SmallVector<linalg::GenericOp> accumulations;
    workgroupLoop.walk([&](linalg::GenericOp generic) {
      if (generic.getNumReductionLoops() != 0 &&
          generic.getNumParallelLoops() != 0)
        accumulations.push_back(generic);
    });
    for (linalg::GenericOp generic : accumulations) {
      SmallVector<unsigned> permutation;
      for (bool reduction : {true, false})
        for (unsigned d = 0; d < generic.getNumLoops(); ++d)
          if (isReductionLoop(generic, d) == reduction)
            permutation.push_back(d);
      rewriter.setInsertionPoint(generic);
      if (failed(linalg::interchangeGenericOp(rewriter, generic, permutation)))
        return generic.emitError() << "boo-gpu-distribute: cannot move the "
                                      "reduction loops outermost";
    }
    return success();
  }

  static boo::LoweringConfigAttr getMmaConfig(Operation *op) {
    auto config =
        op->getAttrOfType<boo::LoweringConfigAttr>(boo::kLoweringConfigAttrName);
    return config && config.hasMma() ? config : nullptr;
  }

  /// True if `root` or an op it reads carries an MMA config.
  /// True if a top-level linalg op of `body` outside the kernels left
  /// whole reads a result of `op`.
  bool isReadByLinalg(Operation *op, Block &body) {
    return llvm::any_of(op->getUsers(), [&](Operation *user) {
      return isa<linalg::LinalgOp>(user) && user->getBlock() == &body &&
             !mmaKernelOps.contains(user);
    });
  }

  static bool isMmaKernel(linalg::LinalgOp root) {
    return readsMmaResult(root);
  }

  /// True if `op` has an MMA config or reads, through parallel-only maps, a
  /// value computed from one.
  static bool readsMmaResult(linalg::LinalgOp op) {
    if (getMmaConfig(op))
      return true;
    return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
      auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
      return producer && isParallelOnlyRead(op, input) &&
             readsMmaResult(producer);
    });
  }

  /// Marks `root` and the linalg ops it reads through parallel-only maps
  /// (the accumulation, its fill, epilogue producers) as one MMA kernel,
  /// left whole for boo-gpu-mma-kernels.
  void collectMmaKernel(linalg::LinalgOp root) {
    SmallVector<linalg::LinalgOp> worklist = {root};
    while (!worklist.empty()) {
      linalg::LinalgOp op = worklist.pop_back_val();
      if (!mmaKernelOps.insert(op).second)
        continue;
      for (OpOperand &operand : op->getOpOperands()) {
        auto producer = operand.get().getDefiningOp<linalg::LinalgOp>();
        // The fill of an output, and the chain from the accumulation to
        // the root; other producers are kernels of their own.
        if (producer && (!op.isDpsInput(&operand) ||
                         (isParallelOnlyRead(op, &operand) &&
                          readsMmaResult(producer))))
          worklist.push_back(producer);
      }
    }
  }

  /// Row-reduction kernels (layer norm and its backward data): the root is
  /// an element-wise generic over (rows..., columns...) that reads row
  /// statistics — tensors over the leading `rows` loops — computed by
  /// reductions over the trailing column loops (and element-wise ops over
  /// rows). When the columns hold at least kMinCooperativeColumns elements,
  /// the root, the reductions, the row ops and their fills are marked as one
  /// kernel (kRowReductionKernelAttr, an id) and left whole: after
  /// bufferization, boo-gpu-row-reductions builds it with one workgroup per
  /// row whose threads share the columns and combine their partial sums with
  /// gpu.all_reduce (subgroup shuffles, then LDS across subgroups).
  static constexpr int64_t kMinCooperativeColumns = 64;

  /// True for a generic over `rows` leading parallel loops (and nothing
  /// else) whose inits and outputs are indexed by the identity.
  static bool isRowOp(linalg::GenericOp op, unsigned rows) {
    return op.getNumLoops() == rows &&
           op.getNumParallelLoops() == rows &&
           llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
             return op.getMatchingIndexingMap(&init).isIdentity();
           });
  }

  /// True for a generic over (rows, columns) whose trailing loops are the
  /// reductions and whose output is indexed by the leading `rows` loops.
  static bool isRowReduction(linalg::GenericOp op, unsigned rows,
                             ArrayRef<int64_t> columns) {
    unsigned numLoops = op.getNumLoops();
    if (numLoops != rows + columns.size() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != columns.size())
      return false;
    for (unsigned d = 0; d < numLoops; ++d)
      if (isReductionLoop(op, d) != (d >= rows))
        return false;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ArrayRef<int64_t>(ranges).drop_front(rows) != columns)
      return false;
    return isRowPrefix(op.getMatchingIndexingMap(op.getDpsInitOperand(0)),
                       rows);
  }

  /// True for (d0, ..., dn-1) -> (d0, ..., d(rows-1)).
  static bool isRowPrefix(AffineMap map, unsigned rows) {
    if (map.getNumResults() != rows || map.getNumSymbols() != 0)
      return false;
    return llvm::all_of(llvm::enumerate(map.getResults()), [](auto it) {
      auto dim = dyn_cast<AffineDimExpr>(it.value());
      return dim && dim.getPosition() == it.index();
    });
  }

  /// Adds to a row-reduction kernel the row ops that only turn its values
  /// into function results (the statistics rounded to their stored type),
  /// until none joins (one may read another).
  void addResultRowOps(linalg::GenericOp root, unsigned rows,
                       SmallVector<linalg::GenericOp> &kernel,
                       llvm::SmallPtrSet<Operation *, 8> &members) {
    auto isMemberResult = [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && members.contains(def);
    };
    // The kernel is built after its last op: nothing between the root and
    // a later row op may read what the kernel writes.
    auto readBetween = [&](Operation *rowOp) {
      if (!root->isBeforeInBlock(rowOp))
        return false;
      for (Operation *it = root->getNextNode(); it != rowOp;
           it = it->getNextNode())
        if (!members.contains(it) &&
            llvm::any_of(it->getOperands(), isMemberResult))
          return true;
      return false;
    };
    auto joins = [&](linalg::GenericOp rowOp) {
      return rowOp->getBlock() == root->getBlock() &&
             !members.contains(rowOp) && !mmaKernelOps.contains(rowOp) &&
             isRowOp(rowOp, rows) &&
             llvm::all_of(rowOp.getDpsInputs(),
                          [&](Value v) {
                            Operation *def = v.getDefiningOp();
                            return !def || members.contains(def) ||
                                   isa<arith::ConstantOp>(def);
                          }) &&
             llvm::none_of(rowOp.getDpsInitsMutable(),
                           [&](OpOperand &init) {
                             return rowOp.payloadUsesValueFromOperand(&init);
                           }) &&
             llvm::all_of(rowOp->getUsers(),
                          [](Operation *u) {
                            return isa<func::ReturnOp>(u);
                          }) &&
             !readBetween(rowOp);
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < kernel.size(); ++i)
        for (Operation *user : kernel[i]->getUsers())
          if (auto rowOp = dyn_cast<linalg::GenericOp>(user);
              rowOp && joins(rowOp)) {
            kernel.push_back(rowOp);
            members.insert(rowOp);
            changed = true;
          }
    }
  }

  bool collectRowReductionKernel(linalg::LinalgOp rootOp) {
    auto root = dyn_cast<linalg::GenericOp>(rootOp.getOperation());
    if (!root || root.getNumReductionLoops() != 0 || getMmaConfig(root))
      return false;
    // The rows: the loops that index the statistics the root reads.
    std::optional<unsigned> rows;
    for (OpOperand *input : root.getDpsInputOperands()) {
      auto producer = input->get().getDefiningOp<linalg::GenericOp>();
      AffineMap map = root.getMatchingIndexingMap(input);
      unsigned k = map.getNumResults();
      if (producer && k < root.getNumLoops() && isRowPrefix(map, k))
        rows = k;
    }
    if (!rows)
      return false;
    SmallVector<int64_t> ranges = root.getStaticLoopRanges();
    ArrayRef<int64_t> columns = ArrayRef<int64_t>(ranges).drop_front(*rows);
    int64_t numColumns = 1;
    for (int64_t c : columns)
      numColumns *= c;
    // Short rows are cheaper per thread, unless there is a single row: the
    // per-thread path has no parallel loop to distribute then.
    if (ShapedType::isDynamicShape(ranges) ||
        (numColumns < kMinCooperativeColumns && *rows != 0))
      return false;

    // The kernel: the root and, through its reads and inits, row ops,
    // row reductions and their fills. Any other producer is a kernel of its
    // own (it writes a buffer the kernel reads).
    SmallVector<linalg::GenericOp> kernel;
    llvm::SmallPtrSet<Operation *, 8> seen;
    SmallVector<linalg::GenericOp> worklist = {root};
    bool hasReduction = false;
    while (!worklist.empty()) {
      linalg::GenericOp op = worklist.pop_back_val();
      if (!seen.insert(op).second)
        continue;
      kernel.push_back(op);
      for (OpOperand &operand : op->getOpOperands()) {
        auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
        if (!producer || mmaKernelOps.contains(producer))
          continue;
        if (isRowReduction(producer, *rows, columns)) {
          hasReduction = true;
          worklist.push_back(producer);
        } else if (isRowOp(producer, *rows)) {
          worklist.push_back(producer);
        }
      }
    }
    if (!hasReduction)
      return false;
    llvm::SmallPtrSet<Operation *, 8> members(kernel.begin(), kernel.end());
    addResultRowOps(root, *rows, kernel, members);
    // The kernel runs where its last op was: a statistic may leave it only
    // as a function result (written back by the kernel), never to another
    // op, which might run before the kernel.
    for (linalg::GenericOp op : kernel)
      for (Operation *user : op->getUsers())
        if (op != root && !members.contains(user) &&
            !isa<func::ReturnOp>(user))
          return false;
    auto id = IntegerAttr::get(IntegerType::get(root.getContext(), 64),
                               nextRowReductionKernel++);
    for (linalg::GenericOp op : kernel) {
      op->setAttr(kRowReductionKernelAttrName, id);
      mmaKernelOps.insert(op); // left whole, like an MMA kernel
    }
    root->setAttr(kRowReductionRootAttrName,
                  UnitAttr::get(root.getContext()));
    return true;
  }

  int64_t nextRowReductionKernel = 0;

  /// The kernel's config (on the root or on a linalg op it reads), else the
  /// default tiles.
  FailureOr<KernelTiles> getTiles(linalg::LinalgOp root) {
    SmallVector<linalg::LinalgOp> carriers = {root};
    for (Value input : root.getDpsInputs())
      if (auto producer = input.getDefiningOp<linalg::LinalgOp>())
        carriers.push_back(producer);
    for (Value init : root.getDpsInits())
      if (auto producer = init.getDefiningOp<linalg::LinalgOp>())
        carriers.push_back(producer);
    for (linalg::LinalgOp carrier : carriers)
      if (auto config = carrier->getAttrOfType<boo::LoweringConfigAttr>(
              boo::kLoweringConfigAttrName)) {
        return getConfigTiles(root, carrier, config);
      }
    return getDefaultTiles(root, budget);
  }

  int64_t budget = 256;
  /// Ops of MMA kernels, left for boo-gpu-mma-kernels.
  llvm::SmallPtrSet<Operation *, 8> mmaKernelOps;
};

} // namespace
