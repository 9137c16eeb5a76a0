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
// Which ops form a kernel and which tiles it gets is decided in
// DistributionPlan.cpp; this file does the rewriting.
//
//===----------------------------------------------------------------------===//

#include "DistributionPlan.h"
#include "GPUUtils.h"
#include "StridePhases.h"

#include "Boo/Codegen/GPU/Passes.h"
#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Target/ChipInfo.h"

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
    : public mlir::boo::impl::BooGPUDistributeBase<BooGPUDistributePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const ChipInfo *chipInfo = resolveChip(module, getArgument());
    if (!chipInfo)
      return signalPassFailure();
    int64_t budget =
        std::min<int64_t>(workgroupSize, chipInfo->maxWorkgroupSize);
    planner.setBudget(budget);
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
      generic = mlir::boo::inlineDataMovementReads(rewriter, generic);
      // MMA kernels skip the stuffed taps per workgroup phase
      // (boo-gpu-mma-kernels); FMA kernels per iteration.
      if (!getMmaConfig(generic)) {
        generic = mlir::boo::skipStuffedTaps(rewriter, generic);
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
          !planner.isLeftWhole(generic) &&
          !planner.isReadByLinalg(generic, body))
        planner.collectRowReductionKernel(generic);
    }

    // Roots, from the end: a top-level linalg op no top-level linalg op
    // reads. Tiling one leaves its unfused producers as new roots.
    while (true) {
      linalg::LinalgOp root;
      for (Operation &op : llvm::reverse(body)) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
        if (!linalgOp || !linalgOp.hasPureTensorSemantics())
          continue;
        if (planner.isLeftWhole(&op) || planner.isReadByLinalg(&op, body))
          continue;
        root = linalgOp;
        break;
      }
      if (!root)
        break;
      if (planner.isMmaKernel(root)) {
        // Built after bufferization by boo-gpu-mma-kernels.
        planner.collectMmaKernel(root);
        continue;
      }
      if (planner.collectRowReductionKernel(root))
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
      for (auto [result, dest] : llvm::zip(results, loop.getRegionIterArgs()))
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
    FailureOr<KernelTiles> tiles = planner.getTiles(root);
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

  /// Kernels and their tiles; it lives as long as the pass (row-reduction
  /// kernel ids keep counting across runs).
  KernelPlanner planner;
};

} // namespace
