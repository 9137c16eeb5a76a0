//===- CPURowReductions.cpp - Row reductions for the CPU ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "CPURowReductions.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::boo;

/// Whether the reduction loops `reductions` of `op` reduce rows: some input
/// is indexed by every loop (each output element reduces its own elements
/// of it; a contraction has no such input, as each of its inputs is reused
/// across some output loop), and each input that uses a reduction loop has
/// them all as its innermost results, in loop order (the rows are
/// contiguous).
static bool reducesRows(linalg::GenericOp op, ArrayRef<unsigned> reductions) {
  bool anyFull = false;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!map.isProjectedPermutation())
      return false;
    anyFull |= map.isPermutation();
    if (llvm::none_of(reductions,
                      [&](unsigned d) { return map.isFunctionOfDim(d); }))
      continue;
    unsigned n = map.getNumResults();
    if (n < reductions.size())
      return false;
    for (auto [i, d] : llvm::enumerate(reductions))
      if (map.getDimPosition(n - reductions.size() + i) != d)
        return false;
  }
  return anyFull;
}

bool mlir::boo::splitRowReduction(RewriterBase &rewriter, linalg::GenericOp &op,
                                  int64_t lanes,
                                  SmallVectorImpl<linalg::GenericOp> &created,
                                  DenseSet<Operation *> &combines) {
  if (op.getNumDpsInits() != 1 || op.hasIndexSemantics() ||
      !op.hasPureTensorSemantics())
    return false;
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  if (reductions.empty() || !reducesRows(op, reductions))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t extent = 1;
  for (unsigned d : reductions) {
    if (ShapedType::isDynamic(ranges[d]))
      return false;
    extent *= ranges[d];
  }
  if (extent % lanes != 0 || extent < 2 * lanes)
    return false;
  // Up to four vectors of partials: independent additions, so the loop is
  // not bound by the latency of one vector's chain.
  int64_t ratio = lanes;
  while (ratio < 4 * lanes && extent % (2 * ratio) == 0 && extent >= 4 * ratio)
    ratio *= 2;
  for (auto [i, d] : llvm::enumerate(reductions))
    if (d != reductions.front() + i)
      return false; // not consecutive loops

  rewriter.setInsertionPoint(op);
  if (reductions.size() > 1) {
    ReassociationIndices folded(reductions.begin(), reductions.end());
    if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {folded}))
      return false;
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, {folded}, rewriter);
    if (failed(collapsed))
      return false;
    auto generic =
        dyn_cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
    if (!generic)
      return false;
    rewriter.replaceOp(op, collapsed->results);
    op = generic;
  }

  // The partials go to a new innermost dim of the intermediate result.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned index = outMap.getNumResults();
  FailureOr<linalg::SplitReductionResult> split =
      linalg::splitReduction(rewriter, op, [&](linalg::LinalgOp) {
        return linalg::SplitReductionOptions{ratio, index,
                                             /*innerParallel=*/true};
      });
  if (failed(split))
    return false;
  rewriter.setInsertionPoint(split->fillOp);
  FailureOr<linalg::GenericOp> fill =
      linalg::generalizeNamedOp(rewriter, split->fillOp);
  if (succeeded(fill))
    created.push_back(*fill);
  for (linalg::LinalgOp made :
       {split->splitLinalgOp, split->resultCombiningLinalgOp})
    if (auto generic = dyn_cast<linalg::GenericOp>(made.getOperation()))
      created.push_back(generic);
  combines.insert(split->resultCombiningLinalgOp);
  return true;
}

//===----------------------------------------------------------------------===//
// Row chains
//===----------------------------------------------------------------------===//

namespace {
/// Generics computed row by row: a root without reductions (a layer norm's
/// y) and the generics it reads, transitively, whose results are indexed by
/// the same leading row dims (the row sums, the mean, the fills).
struct RowChain {
  unsigned numRowDims = 0;
  /// In program order; the root is last.
  SmallVector<linalg::GenericOp> ops;
};
} // namespace

/// The output map of `op`'s one init.
static AffineMap outputMap(linalg::GenericOp op) {
  return op.getMatchingIndexingMap(op.getDpsInitOperand(0));
}

/// Whether `map` (of an operand of `op`) indexes its leading `k` dims with
/// the loops of `op`'s leading `k` output dims.
static bool sharesRowDims(linalg::GenericOp op, AffineMap map, unsigned k) {
  AffineMap out = outputMap(op);
  return map.getNumResults() >= k && out.getNumResults() >= k &&
         map.getResults().take_front(k) == out.getResults().take_front(k);
}

/// The row dims of a candidate root: the rank of its largest input (below
/// the output's) indexed by the output's leading loops, as a layer norm's
/// y reads its mean; 0 if none.
static unsigned rowDimsOf(linalg::GenericOp root) {
  unsigned rank = outputMap(root).getNumResults(), best = 0;
  for (OpOperand *operand : root.getDpsInputOperands()) {
    AffineMap map = root.getMatchingIndexingMap(operand);
    unsigned n = map.getNumResults();
    if (n > 0 && n < rank && sharesRowDims(root, map, n))
      best = std::max(best, n);
  }
  return best;
}

/// Whether `op` can be computed on row tiles of a chain with `k` row dims
/// of extents `rows`.
static bool isRowTileable(linalg::GenericOp op, unsigned k,
                          ArrayRef<int64_t> rows) {
  if (op.getNumDpsInits() != 1 || op.hasIndexSemantics() ||
      !op.hasPureTensorSemantics())
    return false;
  AffineMap out = outputMap(op);
  auto type = cast<RankedTensorType>(op.getDpsInits()[0].getType());
  if (!out.isProjectedPermutation() || type.getRank() < k ||
      type.getShape().take_front(k) != rows)
    return false;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned i = 0; i < k; ++i)
    if (iters[out.getDimPosition(i)] != utils::IteratorType::parallel)
      return false;
  return true;
}

/// The chain of `root`, or failure when it has no row reduction.
static FailureOr<RowChain> collectRowChain(linalg::GenericOp root) {
  RowChain chain;
  chain.numRowDims = rowDimsOf(root);
  unsigned k = chain.numRowDims;
  if (k == 0 || root.getNumReductionLoops() != 0)
    return failure();
  auto rootType = cast<RankedTensorType>(root.getDpsInits()[0].getType());
  ArrayRef<int64_t> rows = rootType.getShape().take_front(k);
  if (!isRowTileable(root, k, rows))
    return failure();
  llvm::SetVector<Operation *> members;
  members.insert(root);
  SmallVector<linalg::GenericOp> work = {root};
  bool reduces = false;
  while (!work.empty()) {
    linalg::GenericOp op = work.pop_back_val();
    for (OpOperand &operand : op->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::GenericOp>();
      if (!producer || members.contains(producer) ||
          producer->getBlock() != root->getBlock() ||
          !sharesRowDims(op, op.getMatchingIndexingMap(&operand), k) ||
          !isRowTileable(producer, k, rows))
        continue;
      members.insert(producer);
      work.push_back(producer);
      reduces |= producer.getNumReductionLoops() > 0;
    }
  }
  if (!reduces)
    return failure();
  for (Operation *op : members)
    chain.ops.push_back(cast<linalg::GenericOp>(op));
  llvm::sort(chain.ops, [](linalg::GenericOp a, linalg::GenericOp b) {
    return a->isBeforeInBlock(b);
  });
  return chain;
}

/// Tiles of the row dims: the innermost row dims take as many rows as fit
/// `budgetBytes` of the root's full-rank operands (at least one row).
static SmallVector<int64_t> chooseRowTiles(linalg::GenericOp root, unsigned k,
                                           int64_t budgetBytes) {
  auto type = cast<RankedTensorType>(root.getDpsInits()[0].getType());
  int64_t rowElements = 1;
  for (int64_t extent : type.getShape().drop_front(k))
    rowElements *= extent;
  int64_t rowBytes = 0;
  for (OpOperand &operand : root->getOpOperands()) {
    auto t = dyn_cast<RankedTensorType>(operand.get().getType());
    if (t && t.getRank() == type.getRank())
      rowBytes += rowElements * t.getElementTypeBitWidth() / 8;
  }
  int64_t fit =
      std::max<int64_t>(1, budgetBytes / std::max<int64_t>(1, rowBytes));
  SmallVector<int64_t> tiles(k, 1);
  for (int64_t d = k - 1; d >= 0 && fit > 1; --d) {
    int64_t extent = type.getDimSize(d);
    for (int64_t t = std::min(extent, fit); t >= 1; --t)
      if (extent % t == 0) {
        tiles[d] = t;
        break;
      }
    fit /= tiles[d];
  }
  return tiles;
}

/// Rewrites `chain` as one scf.forall over row tiles whose body computes
/// every op of the chain on its rows; the results used outside the chain
/// are the forall's.
static void tileRowChain(RewriterBase &rewriter, const RowChain &chain,
                         ArrayRef<int64_t> tiles) {
  linalg::GenericOp root = chain.ops.back();
  unsigned k = chain.numRowDims;
  Location loc = root.getLoc();
  DenseSet<Operation *> members;
  for (linalg::GenericOp op : chain.ops)
    members.insert(op);
  // The results used outside the chain, and the forall's shared outputs
  // (their inits).
  SmallVector<linalg::GenericOp> yielded;
  SmallVector<Value> sharedOuts;
  for (linalg::GenericOp op : chain.ops)
    if (llvm::any_of(op->getUsers(), [&](Operation *user) {
          return !members.contains(user);
        })) {
      yielded.push_back(op);
      sharedOuts.push_back(op.getDpsInits()[0]);
    }
  auto rootType = cast<RankedTensorType>(root.getDpsInits()[0].getType());
  SmallVector<OpFoldResult> lbs(k, rewriter.getIndexAttr(0)), ubs, steps;
  for (unsigned d = 0; d < k; ++d) {
    ubs.push_back(rewriter.getIndexAttr(rootType.getDimSize(d)));
    steps.push_back(rewriter.getIndexAttr(tiles[d]));
  }
  rewriter.setInsertionPoint(root);
  auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps,
                                      sharedOuts, std::nullopt);
  Block *body = forall.getBody();
  rewriter.setInsertionPoint(body->getTerminator());
  IRMapping tileOf;
  for (linalg::GenericOp op : chain.ops) {
    auto tileable = cast<TilingInterface>(op.getOperation());
    SmallVector<Range> domain = tileable.getIterationDomain(rewriter);
    SmallVector<OpFoldResult> offsets, sizes;
    for (const Range &r : domain) {
      offsets.push_back(r.offset);
      sizes.push_back(r.size);
    }
    AffineMap out = outputMap(op);
    for (unsigned i = 0; i < k; ++i) {
      offsets[out.getDimPosition(i)] = body->getArgument(i);
      sizes[out.getDimPosition(i)] = rewriter.getIndexAttr(tiles[i]);
    }
    FailureOr<TilingResult> tiled =
        tileable.getTiledImplementation(rewriter, offsets, sizes);
    assert(succeeded(tiled) && "linalg generics tile");
    Operation *tiledOp = tiled->tiledOps.front();
    // Operands that are chain results read the chain's tiles.
    for (OpOperand &operand : tiledOp->getOpOperands()) {
      auto slice = operand.get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || !tileOf.contains(slice.getSource()))
        continue;
      operand.set(tileOf.lookup(slice.getSource()));
      if (slice->use_empty())
        rewriter.eraseOp(slice);
    }
    auto *pos = llvm::find(yielded, op);
    if (pos != yielded.end()) {
      // Written in place: the init is the shared output's tile.
      BlockArgument out = body->getArgument(k + (pos - yielded.begin()));
      SmallVector<OpFoldResult> resultOffsets, resultSizes;
      (void)tileable.getResultTilePosition(rewriter, 0, offsets, sizes,
                                           resultOffsets, resultSizes);
      SmallVector<OpFoldResult> strides(resultOffsets.size(),
                                        rewriter.getIndexAttr(1));
      OpOperand &init =
          cast<linalg::GenericOp>(tiledOp).getDpsInitsMutable()[0];
      Value previous = init.get();
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(tiledOp);
        init.set(tensor::ExtractSliceOp::create(
            rewriter, loc, out, resultOffsets, resultSizes, strides));
      }
      if (Operation *def = previous.getDefiningOp();
          def && def->use_empty() && isPure(def))
        rewriter.eraseOp(def);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(forall.getTerminator().getBody());
      tensor::ParallelInsertSliceOp::create(
          rewriter, loc, tiled->tiledValues.front(), out, resultOffsets,
          resultSizes, strides);
    }
    tileOf.map(op->getResult(0), tiled->tiledValues.front());
  }
  for (auto [op, result] : llvm::zip(yielded, forall.getResults()))
    rewriter.replaceUsesWithIf(op->getResult(0), result, [&](OpOperand &use) {
      return !forall->isProperAncestor(use.getOwner());
    });
  for (linalg::GenericOp op : llvm::reverse(chain.ops))
    if (op->use_empty())
      rewriter.eraseOp(op);
}

void mlir::boo::tileRowChains(RewriterBase &rewriter, func::FuncOp func,
                              int64_t budgetBytes) {
  if (func.isExternal())
    return;
  // One chain at a time: tiling one erases ops another walk would visit.
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation &op : llvm::reverse(func.getBody().front())) {
      auto root = dyn_cast<linalg::GenericOp>(&op);
      if (!root)
        continue;
      FailureOr<RowChain> chain = collectRowChain(root);
      if (failed(chain))
        continue;
      tileRowChain(rewriter, *chain,
                   chooseRowTiles(root, chain->numRowDims, budgetBytes));
      changed = true;
      break;
    }
  }
}
