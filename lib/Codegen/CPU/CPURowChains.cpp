//===- CPURowChains.cpp - Row chains computed a tile of rows at a time ----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A layer norm's generics, computed one tile of rows at a time (see
// tileRowChains in CPURowReductions.h), with the sums over its rows (the
// backward's weight and bias gradients) computed in the same pass.
//
//===----------------------------------------------------------------------===//

#include "CPURowReductions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::boo;

namespace {
/// Generics computed row by row: a root without reductions (a layer norm's
/// y) and the generics it reads, transitively, whose results are indexed by
/// the same leading row dims (the row sums, the mean, the fills).
struct RowChain {
  unsigned numRowDims = 0;
  /// The extents of the row dims.
  SmallVector<int64_t> rows;
  /// In program order; the root is last.
  SmallVector<linalg::GenericOp> ops;
  /// Sums over all the rows that read what the chain reads (a layer norm's
  /// weight and bias gradients), after the root in program order: computed
  /// in the same pass, as partial sums per chunk of rows.
  SmallVector<linalg::GenericOp> columnSums;
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

/// The loops of `op` that index the leading `k` dims of its inputs that
/// use a reduction loop, when `op` sums over `k` rows of extents `rows`:
/// its reduction loops are exactly those, each input either reads no
/// reduction loop or reads them as its leading dims, in one order, and
/// nowhere else, and each output is a sum (`out + v`, where neither the
/// output nor the sum has another use). Empty otherwise.
static SmallVector<unsigned> columnSumLoops(linalg::GenericOp op, unsigned k,
                                            ArrayRef<int64_t> rows) {
  if (!op.hasPureTensorSemantics() || op.hasIndexSemantics() ||
      op.getNumReductionLoops() != k)
    return {};
  SmallVector<unsigned> reductions;
  op.getReductionDims(reductions);
  auto isReduction = [&](AffineExpr e) {
    return llvm::any_of(reductions,
                        [&](unsigned d) { return e.isFunctionOfDim(d); });
  };
  SmallVector<unsigned> loops;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (llvm::none_of(map.getResults(), isReduction))
      continue;
    if (map.getNumResults() < k ||
        llvm::any_of(map.getResults().drop_front(k), isReduction))
      return {};
    SmallVector<unsigned> leading;
    for (AffineExpr e : map.getResults().take_front(k)) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || !llvm::is_contained(reductions, dim.getPosition()))
        return {};
      leading.push_back(dim.getPosition());
    }
    if (!loops.empty() && loops != leading)
      return {};
    loops = leading;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [i, d] : llvm::enumerate(loops))
    if (ranges[d] != rows[i] || llvm::count(loops, d) != 1)
      return {};
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument out = op.getMatchingBlockArgument(&init);
    Value yielded =
        yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs());
    auto add = yielded.getDefiningOp<arith::AddFOp>();
    if (!add || !add->hasOneUse() || !out.hasOneUse() ||
        (add.getLhs() != out && add.getRhs() != out))
      return {};
  }
  return loops;
}

/// Whether `v` is available where the chain's loop is built (before its
/// root), or is the result of one of its members.
static bool availableToChain(Value v, linalg::GenericOp root,
                             const llvm::SetVector<Operation *> &members) {
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != root->getBlock())
    return true;
  return members.contains(def) || def->isBeforeInBlock(root);
}

/// Appends to `chain` the sums over its rows that read a full-rank input
/// of one of its members (so that computing them in the chain's pass saves
/// a pass over that input), whose inputs are available to the chain and
/// whose outputs all have one shape. A sum before the root (the bf16
/// backward's, whose results are truncated after `dx`) qualifies when its
/// results are used only after the root, where the chain's loop is built.
static void collectColumnSums(RowChain &chain,
                              const llvm::SetVector<Operation *> &members) {
  linalg::GenericOp root = chain.ops.back();
  unsigned k = chain.numRowDims;
  DenseSet<Value> chainInputs;
  for (linalg::GenericOp op : chain.ops)
    for (Value v : op.getDpsInputs())
      if (cast<ShapedType>(v.getType()).getRank() > k)
        chainInputs.insert(v);
  auto usedAfterRoot = [&](Operation *op) {
    return llvm::all_of(op->getUsers(), [&](Operation *user) {
      return user->getBlock() == root->getBlock() &&
             root->isBeforeInBlock(user);
    });
  };
  for (Operation &next : *root->getBlock()) {
    auto op = dyn_cast<linalg::GenericOp>(&next);
    if (!op || members.contains(op) ||
        (op->isBeforeInBlock(root) && !usedAfterRoot(op)) ||
        columnSumLoops(op, k, chain.rows).empty())
      continue;
    if (llvm::none_of(op.getDpsInputs(),
                      [&](Value v) { return chainInputs.contains(v); }) ||
        llvm::any_of(op.getDpsInputs(), [&](Value v) {
          return !availableToChain(v, root, members);
        }))
      continue;
    Type type = op.getDpsInits()[0].getType();
    if (llvm::any_of(op.getDpsInits(),
                     [&](Value v) { return v.getType() != type; }))
      continue;
    chain.columnSums.push_back(op);
  }
}

/// The chain of `root`, or failure when it has no row reduction.
static FailureOr<RowChain> collectRowChain(linalg::GenericOp root) {
  RowChain chain;
  chain.numRowDims = rowDimsOf(root);
  unsigned k = chain.numRowDims;
  if (k == 0 || root.getNumReductionLoops() != 0)
    return failure();
  auto rootType = cast<RankedTensorType>(root.getDpsInits()[0].getType());
  chain.rows = llvm::to_vector(rootType.getShape().take_front(k));
  if (!isRowTileable(root, k, chain.rows))
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
          !isRowTileable(producer, k, chain.rows))
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
  collectColumnSums(chain, members);
  return chain;
}

/// Chunks of rows for a chain with column sums: each chunk sums its rows
/// into its own partial sums, which are then added up. The chunks depend
/// on the shape alone (not on the cache or the threads), so the sums do
/// too: at most 64 chunks, of at least 4 rows (the partials are then at
/// most a fourth of the rows), the innermost row dims taken whole first.
/// Fails when this gives fewer than 4 chunks, too few to share among
/// threads (197 rows: one chunk, as 197 is prime).
static FailureOr<SmallVector<int64_t>> chooseRowChunks(ArrayRef<int64_t> rows) {
  int64_t total = 1;
  for (int64_t extent : rows)
    total *= extent;
  int64_t needed = std::max<int64_t>(4, llvm::divideCeil(total, 64));
  SmallVector<int64_t> chunks(rows.size(), 1);
  int64_t inChunk = 1;
  for (int64_t d = rows.size() - 1; d >= 0 && inChunk < needed; --d) {
    int64_t c = 1;
    while (c < rows[d] && (rows[d] % c != 0 || c * inChunk < needed))
      ++c;
    chunks[d] = c;
    inChunk *= c;
  }
  if (total / inChunk < 4)
    return failure();
  return chunks;
}

/// Tiles of row dims of extents `extents`: one row for a chain with column
/// sums, else as many rows of the innermost dims as fit `budgetBytes` of
/// the root's full-rank operands. A tile of several rows vectorizes each
/// pass as `rows x 32` vectors, with each row's statistics broadcast
/// across its vector; one row keeps them 1-D. ConvNeXt's 8x56x56x96
/// layer-norm backward (14 rows a tile before) went from 9 to 28-32 GB/s
/// at 1 thread, 0.21x to 0.67-0.96x of memcpy's bandwidth
/// (`boo-bench-layernorm.py`, three runs each), and backwards of rows of
/// 32 and 64 elements from 0.20-0.22 to 0.13 ms (`boo-run-module
/// --benchmark`). Forwards keep the budget: f32 ones moved within the
/// noise with one row a tile (ConvNeXt's 25-36 GB/s against 18-34 with
/// the budget), and bf16 ones lost (ConvNeXt's 8 against 15 GB/s).
static SmallVector<int64_t> chooseRowTiles(linalg::GenericOp root,
                                           ArrayRef<int64_t> extents,
                                           int64_t budgetBytes,
                                           bool hasColumnSums) {
  unsigned k = extents.size();
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
  if (hasColumnSums)
    fit = 1;
  SmallVector<int64_t> tiles(k, 1);
  for (int64_t d = k - 1; d >= 0 && fit > 1; --d) {
    int64_t extent = extents[d];
    for (int64_t t = std::min(extent, fit); t >= 1; --t)
      if (extent % t == 0) {
        tiles[d] = t;
        break;
      }
    fit /= tiles[d];
  }
  return tiles;
}

namespace {
/// Builds the body of a chain's scf.forall: the chain's ops and its column
/// sums on one tile of rows.
struct ChainTiler {
  RewriterBase &rewriter;
  const RowChain &chain;
  ArrayRef<int64_t> tiles;
  /// The members whose results are used outside the chain, in order.
  SmallVector<linalg::GenericOp> yielded;

  /// Tiles `op` on rows `rowOffsets` (the tile's sizes: `tiles`) of its
  /// loops `rowLoops`, its other loops whole. Operands that are chain
  /// results read their tiles (`tileOf`).
  TilingResult tileOn(linalg::GenericOp op, ArrayRef<unsigned> rowLoops,
                      ValueRange rowOffsets, IRMapping &tileOf,
                      SmallVectorImpl<OpFoldResult> &offsets,
                      SmallVectorImpl<OpFoldResult> &sizes) {
    auto tileable = cast<TilingInterface>(op.getOperation());
    for (const Range &r : tileable.getIterationDomain(rewriter)) {
      offsets.push_back(r.offset);
      sizes.push_back(r.size);
    }
    for (auto [i, d] : llvm::enumerate(rowLoops)) {
      offsets[d] = rowOffsets[i];
      sizes[d] = rewriter.getIndexAttr(tiles[i]);
    }
    FailureOr<TilingResult> tiled =
        tileable.getTiledImplementation(rewriter, offsets, sizes);
    assert(succeeded(tiled) && "linalg generics tile");
    for (OpOperand &operand : tiled->tiledOps.front()->getOpOperands()) {
      auto slice = operand.get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || !tileOf.contains(slice.getSource()))
        continue;
      operand.set(tileOf.lookup(slice.getSource()));
      if (slice->use_empty())
        rewriter.eraseOp(slice);
    }
    return *tiled;
  }

  /// Computes the chain on the rows at `rowOffsets`. The tiles of the
  /// yielded results are written into `dests` at `destOffsets` (the same
  /// rows, relative to `dests`): by tensor.parallel_insert_slice into the
  /// forall's shared outputs when `forall` is given, else by
  /// tensor.insert_slice, whose results replace `dests`. The column sums
  /// add their rows to `sums`, which they replace.
  void build(Location loc, ValueRange rowOffsets, ValueRange destOffsets,
             SmallVectorImpl<Value> &dests, SmallVectorImpl<Value> &sums,
             scf::ForallOp forall) {
    unsigned k = chain.numRowDims;
    IRMapping tileOf;
    for (linalg::GenericOp op : chain.ops) {
      AffineMap out = outputMap(op);
      SmallVector<unsigned> rowLoops;
      for (unsigned i = 0; i < k; ++i)
        rowLoops.push_back(out.getDimPosition(i));
      SmallVector<OpFoldResult> offsets, sizes;
      TilingResult tiled =
          tileOn(op, rowLoops, rowOffsets, tileOf, offsets, sizes);
      tileOf.map(op->getResult(0), tiled.tiledValues.front());
      auto *pos = llvm::find(yielded, op);
      if (pos != yielded.end())
        writeTile(loc, op, tiled, offsets, sizes, destOffsets,
                  dests[pos - yielded.begin()], forall);
    }
    unsigned next = 0;
    for (linalg::GenericOp op : chain.columnSums) {
      SmallVector<OpFoldResult> offsets, sizes;
      TilingResult tiled = tileOn(op, columnSumLoops(op, k, chain.rows),
                                  rowOffsets, tileOf, offsets, sizes);
      auto tiledOp = cast<linalg::GenericOp>(tiled.tiledOps.front());
      for (OpOperand &init : tiledOp.getDpsInitsMutable()) {
        Value previous = init.get();
        init.set(sums[next]);
        if (Operation *def = previous.getDefiningOp();
            def && def->use_empty() && isPure(def))
          rewriter.eraseOp(def);
        sums[next] = tiledOp->getResult(init.getOperandNumber() -
                                        tiledOp.getNumDpsInputs());
        ++next;
      }
    }
  }

  /// Writes the tile `tiled` of `op` (tiled at `offsets`, `sizes`) in
  /// place into `dest`, at its rows' `destOffsets`.
  void writeTile(Location loc, linalg::GenericOp op, TilingResult &tiled,
                 ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                 ValueRange destOffsets, Value &dest, scf::ForallOp forall) {
    auto tileable = cast<TilingInterface>(op.getOperation());
    SmallVector<OpFoldResult> resultOffsets, resultSizes;
    (void)tileable.getResultTilePosition(rewriter, 0, offsets, sizes,
                                         resultOffsets, resultSizes);
    for (unsigned i = 0; i < chain.numRowDims; ++i)
      resultOffsets[i] = destOffsets[i];
    SmallVector<OpFoldResult> strides(resultOffsets.size(),
                                      rewriter.getIndexAttr(1));
    Operation *tiledOp = tiled.tiledOps.front();
    OpOperand &init = cast<linalg::GenericOp>(tiledOp).getDpsInitsMutable()[0];
    Value previous = init.get();
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(tiledOp);
      init.set(tensor::ExtractSliceOp::create(
          rewriter, loc, dest, resultOffsets, resultSizes, strides));
    }
    if (Operation *def = previous.getDefiningOp();
        def && def->use_empty() && isPure(def))
      rewriter.eraseOp(def);
    Value tile = tiled.tiledValues.front();
    if (!forall) {
      dest = tensor::InsertSliceOp::create(rewriter, loc, tile, dest,
                                           resultOffsets, resultSizes, strides);
      return;
    }
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, tile, dest,
                                          resultOffsets, resultSizes, strides);
  }
};
} // namespace

/// The shape of `chain`'s partial sums for chunks `chunks` of rows: the
/// number of chunks along each row dim, then a column sum's result shape.
static RankedTensorType partialsType(const RowChain &chain,
                                     ArrayRef<int64_t> chunks) {
  auto result =
      cast<RankedTensorType>(chain.columnSums.front()->getResult(0).getType());
  SmallVector<int64_t> shape;
  for (auto [extent, chunk] : llvm::zip(chain.rows, chunks))
    shape.push_back(extent / chunk);
  llvm::append_range(shape, result.getShape());
  return RankedTensorType::get(shape, result.getElementType());
}

/// Replaces each column sum of `chain` by the sum of its partials
/// (`partials`, in the order of the column sums' results) and its initial
/// values: a generic reducing the leading chunk dims.
static void addUpPartials(RewriterBase &rewriter, const RowChain &chain,
                          ValueRange partials) {
  unsigned k = chain.numRowDims, next = 0;
  for (linalg::GenericOp op : chain.columnSums) {
    unsigned n = op.getNumDpsInits();
    ValueRange ins = partials.slice(next, n);
    next += n;
    auto type = cast<RankedTensorType>(ins.front().getType());
    unsigned rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    AffineMap in = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap out = in.dropResults(llvm::to_vector(llvm::seq<int64_t>(0, k)));
    SmallVector<AffineMap> maps(n, in);
    maps.append(n, out);
    SmallVector<utils::IteratorType> iters(k, utils::IteratorType::reduction);
    iters.append(rank - k, utils::IteratorType::parallel);
    // After the chain's loop, also for a sum that came before it.
    Operation *loop = ins.front().getDefiningOp();
    if (op->isBeforeInBlock(loop))
      rewriter.setInsertionPointAfter(loop);
    else
      rewriter.setInsertionPoint(op);
    auto sum = linalg::GenericOp::create(
        rewriter, op.getLoc(), op->getResultTypes(), ins, op.getDpsInits(),
        maps, iters, [&](OpBuilder &b, Location loc, ValueRange args) {
          SmallVector<Value> sums;
          for (unsigned i = 0; i < n; ++i)
            sums.push_back(arith::AddFOp::create(b, loc, args[n + i], args[i]));
          linalg::YieldOp::create(b, loc, sums);
        });
    rewriter.replaceOp(op, sum->getResults());
  }
}

/// The offsets and sizes of the slice of `v` at `leadingOffsets` of sizes
/// `leadingSizes` in its leading dims, whole in the others.
static std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>
sliceOf(RewriterBase &rewriter, Value v, ArrayRef<OpFoldResult> leadingOffsets,
        ArrayRef<int64_t> leadingSizes) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> offsets(leadingOffsets), sizes;
  offsets.resize(type.getRank(), rewriter.getIndexAttr(0));
  for (auto [d, extent] : llvm::enumerate(type.getShape()))
    sizes.push_back(rewriter.getIndexAttr(
        d < leadingSizes.size() ? leadingSizes[d] : extent));
  return {offsets, sizes};
}

/// Zeros this chunk's slices (at `ivs`, chunks `chunks`) of the partial
/// sums `sumOuts` (of type `partials`), appended to `zeroed`; the chunk's
/// index along each row dim goes to `chunkIndex`.
static void zeroPartials(RewriterBase &rewriter, Location loc, ValueRange ivs,
                         ArrayRef<int64_t> chunks, RankedTensorType partials,
                         ArrayRef<Value> sumOuts,
                         SmallVectorImpl<OpFoldResult> &chunkIndex,
                         SmallVectorImpl<Value> &zeroed) {
  unsigned k = chunks.size();
  OpFoldResult one = rewriter.getIndexAttr(1);
  SmallVector<int64_t> units(k, 1);
  for (unsigned d = 0; d < k; ++d)
    chunkIndex.push_back(arith::DivUIOp::create(rewriter, loc, ivs[d],
                                                arith::ConstantIndexOp::create(
                                                    rewriter, loc, chunks[d]))
                             .getResult());
  auto sliceType = RankedTensorType::get(partials.getShape().drop_front(k),
                                         partials.getElementType());
  Value zeroValue = arith::ConstantOp::create(
      rewriter, loc, rewriter.getZeroAttr(partials.getElementType()));
  AffineMap identity = rewriter.getMultiDimIdentityMap(sliceType.getRank());
  SmallVector<utils::IteratorType> parallel(sliceType.getRank(),
                                            utils::IteratorType::parallel);
  for (Value out : sumOuts) {
    auto [offsets, sizes] = sliceOf(rewriter, out, chunkIndex, units);
    SmallVector<OpFoldResult> strides(offsets.size(), one);
    Value slice = tensor::ExtractSliceOp::create(rewriter, loc, sliceType, out,
                                                 offsets, sizes, strides);
    zeroed.push_back(
        linalg::GenericOp::create(rewriter, loc, sliceType, ValueRange(), slice,
                                  identity, parallel,
                                  [&](OpBuilder &b, Location l, ValueRange) {
                                    linalg::YieldOp::create(b, l, zeroValue);
                                  })
            ->getResult(0));
  }
}

/// Builds the body of `forall`, over chunks of rows `chunks` of `chain`:
/// the chunk's slices of the shared outputs `outs`, zeros in its slices
/// of the partial sums `sumOuts` (of type `partials`), then an scf.for nest
/// over the chunk's row dims that are split into tiles (`tiles`), whose
/// body computes the chain and its column sums on one tile, with these
/// slices as its iteration arguments.
static void buildChunk(RewriterBase &rewriter, Location loc,
                       const RowChain &chain, ArrayRef<int64_t> chunks,
                       ArrayRef<int64_t> tiles, ChainTiler &tiler,
                       scf::ForallOp forall, RankedTensorType partials,
                       ArrayRef<Value> outs, ArrayRef<Value> sumOuts) {
  unsigned k = chain.numRowDims;
  ValueRange ivs = forall.getBody()->getArguments().take_front(k);
  OpFoldResult one = rewriter.getIndexAttr(1);
  SmallVector<Value> iterArgs;
  SmallVector<OpFoldResult> chunkOffsets(ivs);
  for (Value out : outs) {
    auto [offsets, sizes] = sliceOf(rewriter, out, chunkOffsets, chunks);
    SmallVector<OpFoldResult> strides(offsets.size(), one);
    iterArgs.push_back(tensor::ExtractSliceOp::create(rewriter, loc, out,
                                                      offsets, sizes, strides));
  }
  // The chunk's partial sums, a slice of each shared output's, start at
  // zero.
  SmallVector<OpFoldResult> chunkIndex;
  SmallVector<int64_t> units(k, 1);
  if (!sumOuts.empty())
    zeroPartials(rewriter, loc, ivs, chunks, partials, sumOuts, chunkIndex,
                 iterArgs);
  // The loops over the tiles of the chunk's split row dims.
  SmallVector<unsigned> looped;
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned d = 0; d < k; ++d) {
    if (chunks[d] == tiles[d])
      continue;
    looped.push_back(d);
    lbs.push_back(arith::ConstantIndexOp::create(rewriter, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, chunks[d]));
    steps.push_back(arith::ConstantIndexOp::create(rewriter, loc, tiles[d]));
  }
  unsigned numOuts = outs.size();
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps, iterArgs,
      [&](OpBuilder &b, Location l, ValueRange loopIvs,
          ValueRange args) -> scf::ValueVector {
        rewriter.setInsertionPoint(b.getInsertionBlock(),
                                   b.getInsertionPoint());
        SmallVector<Value> rowOffsets, relOffsets;
        Value c0 = arith::ConstantIndexOp::create(rewriter, l, 0);
        for (unsigned d = 0; d < k; ++d) {
          auto *pos = llvm::find(looped, d);
          if (pos == looped.end()) {
            rowOffsets.push_back(ivs[d]);
            relOffsets.push_back(c0);
            continue;
          }
          Value rel = loopIvs[pos - looped.begin()];
          relOffsets.push_back(rel);
          rowOffsets.push_back(arith::AddIOp::create(rewriter, l, ivs[d], rel));
        }
        SmallVector<Value> dests(args.take_front(numOuts));
        SmallVector<Value> sums(args.drop_front(numOuts));
        tiler.build(l, rowOffsets, relOffsets, dests, sums, nullptr);
        scf::ValueVector yielded(dests);
        llvm::append_range(yielded, sums);
        return yielded;
      });
  // The chunk's results go to the shared outputs.
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(forall.getTerminator().getBody());
  for (auto [i, dest] : llvm::enumerate(llvm::concat<Value>(
           SmallVector<Value>(outs), SmallVector<Value>(sumOuts)))) {
    bool isSum = i >= numOuts;
    auto [offsets, sizes] = isSum
                                ? sliceOf(rewriter, dest, chunkIndex, units)
                                : sliceOf(rewriter, dest, chunkOffsets, chunks);
    SmallVector<OpFoldResult> strides(offsets.size(), one);
    tensor::ParallelInsertSliceOp::create(rewriter, loc, nest.results[i], dest,
                                          offsets, sizes, strides);
  }
}

/// Rewrites `chain` as one scf.forall over chunks of rows `chunks` (each
/// a whole number of tiles `tiles`), whose body computes every op of the
/// chain on its rows, one tile at a time (an scf.for nest over the tiles
/// of a chunk, where a chunk has more than one); the results used outside
/// the chain are the forall's. The column sums add each chunk's rows into
/// its own slice of partial sums, also the forall's, which are added up
/// after it. With `stream`, the forall is marked kStreamStoresAttr.
static scf::ForallOp tileRowChain(RewriterBase &rewriter, const RowChain &chain,
                                  ArrayRef<int64_t> chunks,
                                  ArrayRef<int64_t> tiles, bool stream) {
  linalg::GenericOp root = chain.ops.back();
  unsigned k = chain.numRowDims;
  Location loc = root.getLoc();
  DenseSet<Operation *> members;
  for (linalg::GenericOp op : chain.ops)
    members.insert(op);
  ChainTiler tiler{rewriter, chain, tiles, {}};
  // The results used outside the chain, and the forall's shared outputs
  // (their inits, then the partial sums).
  SmallVector<Value> sharedOuts;
  for (linalg::GenericOp op : chain.ops)
    if (llvm::any_of(op->getUsers(), [&](Operation *user) {
          return !members.contains(user);
        })) {
      tiler.yielded.push_back(op);
      sharedOuts.push_back(op.getDpsInits()[0]);
    }
  unsigned numYielded = sharedOuts.size(), numSums = 0;
  rewriter.setInsertionPoint(root);
  RankedTensorType partials;
  if (!chain.columnSums.empty()) {
    partials = partialsType(chain, chunks);
    for (linalg::GenericOp op : chain.columnSums)
      for (unsigned i = 0; i < op.getNumDpsInits(); ++i, ++numSums)
        sharedOuts.push_back(tensor::EmptyOp::create(
            rewriter, loc, partials.getShape(), partials.getElementType()));
  }
  SmallVector<OpFoldResult> lbs(k, rewriter.getIndexAttr(0)), ubs, steps;
  for (unsigned d = 0; d < k; ++d) {
    ubs.push_back(rewriter.getIndexAttr(chain.rows[d]));
    steps.push_back(rewriter.getIndexAttr(chunks[d]));
  }
  auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps,
                                      sharedOuts, std::nullopt);
  if (stream)
    forall->setAttr(kStreamStoresAttr, rewriter.getUnitAttr());
  Block *body = forall.getBody();
  rewriter.setInsertionPoint(body->getTerminator());
  ValueRange ivs = body->getArguments().take_front(k);
  SmallVector<Value> outs(body->getArguments().slice(k, numYielded));
  SmallVector<Value> sumOuts(
      body->getArguments().slice(k + numYielded, numSums));

  if (chunks == tiles && chain.columnSums.empty()) {
    SmallVector<Value> none;
    tiler.build(loc, ivs, ivs, outs, none, forall);
  } else {
    buildChunk(rewriter, loc, chain, chunks, tiles, tiler, forall, partials,
               outs, sumOuts);
  }
  SmallVector<Value> results(forall.getResults());
  for (auto [op, result] : llvm::zip(tiler.yielded, results))
    rewriter.replaceUsesWithIf(op->getResult(0), result, [&](OpOperand &use) {
      return !forall->isProperAncestor(use.getOwner());
    });
  for (linalg::GenericOp op : llvm::reverse(chain.ops))
    if (op->use_empty())
      rewriter.eraseOp(op);
  addUpPartials(rewriter, chain, ValueRange(results).drop_front(numYielded));
  return forall;
}

void mlir::boo::tileRowChains(RewriterBase &rewriter, func::FuncOp func,
                              int64_t budgetBytes, int64_t streamMinBytes,
                              SmallVectorImpl<Operation *> &foralls) {
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
      // Column sums that would leave too few chunks are computed on their
      // own; without column sums, a chunk is one tile.
      FailureOr<SmallVector<int64_t>> chunks = failure();
      if (!chain->columnSums.empty())
        chunks = chooseRowChunks(chain->rows);
      if (failed(chunks)) {
        chain->columnSums.clear();
        chunks = chooseRowTiles(root, chain->rows, budgetBytes,
                                /*hasColumnSums=*/false);
      }
      auto type = cast<RankedTensorType>(root->getResult(0).getType());
      bool stream = streamMinBytes > 0 &&
                    type.getNumElements() * type.getElementTypeBitWidth() / 8 >=
                        streamMinBytes;
      foralls.push_back(tileRowChain(rewriter, *chain, *chunks,
                                     chooseRowTiles(root, *chunks, budgetBytes,
                                                    !chain->columnSums.empty()),
                                     stream));
      changed = true;
      break;
    }
  }
}
