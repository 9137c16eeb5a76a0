//===- DistributionPlan.cpp - Kernels and tiles of boo-gpu-distribute -----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// What boo-gpu-distribute decides per kernel (see DistributionPlan.h):
// the tiles of a kernel come from a `#boo.lowering_config` on its root or
// an op the root reads, else from a built-in one-element-per-thread
// strategy; MMA and row-reduction kernels are recognized and marked to be
// left whole.
//
//===----------------------------------------------------------------------===//

#include "DistributionPlan.h"
#include "GPUUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::boo;

bool mlir::boo::isReductionLoop(linalg::LinalgOp op, unsigned d) {
  return op.getIteratorTypesArray()[d] == utils::IteratorType::reduction;
}

bool mlir::boo::isParallelOnlyRead(linalg::LinalgOp op, OpOperand *operand) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  for (unsigned d = 0; d < map.getNumDims(); ++d)
    if (isReductionLoop(op, d) && map.isFunctionOfDim(d))
      return false;
  return true;
}

SmallVector<int64_t> mlir::boo::getLoopOrder(linalg::LinalgOp root) {
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

SmallVector<Attribute> mlir::boo::getMapping(MLIRContext *ctx,
                                             ArrayRef<int64_t> tiles,
                                             ArrayRef<int64_t> order,
                                             bool threads) {
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

LoweringConfigAttr mlir::boo::getMmaConfig(Operation *op) {
  auto config = op->getAttrOfType<mlir::boo::LoweringConfigAttr>(
      mlir::boo::kLoweringConfigAttrName);
  return config && config.hasMma() ? config : nullptr;
}

namespace {

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
                                      mlir::boo::LoweringConfigAttr config) {
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
      tiles.workgroup[d] =
          std::max<int64_t>(1, tiles.workgroup[d] / tiles.thread[d]);
      tiles.thread[d] = 1;
    }
  }
  return tiles;
}

/// True if `op` has an MMA config or reads, through parallel-only maps, a
/// value computed from one.
bool readsMmaResult(linalg::LinalgOp op) {
  if (getMmaConfig(op))
    return true;
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
    return producer && isParallelOnlyRead(op, input) &&
           readsMmaResult(producer);
  });
}

/// Columns a row needs for a cooperative row-reduction kernel (see
/// KernelPlanner::collectRowReductionKernel).
constexpr int64_t kMinCooperativeColumns = 64;

/// True for a generic over `rows` leading parallel loops (and nothing
/// else) whose inits and outputs are indexed by the identity.
bool isRowOp(linalg::GenericOp op, unsigned rows) {
  return op.getNumLoops() == rows && op.getNumParallelLoops() == rows &&
         llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.getMatchingIndexingMap(&init).isIdentity();
         });
}

/// True for (d0, ..., dn-1) -> (d0, ..., d(rows-1)).
bool isRowPrefix(AffineMap map, unsigned rows) {
  if (map.getNumResults() != rows || map.getNumSymbols() != 0)
    return false;
  return llvm::all_of(llvm::enumerate(map.getResults()), [](auto it) {
    auto dim = dyn_cast<AffineDimExpr>(it.value());
    return dim && dim.getPosition() == it.index();
  });
}

/// True for a generic over (rows, columns) whose trailing loops are the
/// reductions and whose output is indexed by the leading `rows` loops.
bool isRowReduction(linalg::GenericOp op, unsigned rows,
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
  return isRowPrefix(op.getMatchingIndexingMap(op.getDpsInitOperand(0)), rows);
}

/// The loop order that makes the statistic `root` reads (an input produced
/// by a generic, indexed by some but not all of the loops, each once) be
/// indexed by the leading loops: its loops, then the others in order.
/// Empty if no statistic needs it.
SmallVector<unsigned> getStatisticsFirstOrder(linalg::GenericOp root) {
  unsigned numLoops = root.getNumLoops();
  for (OpOperand *input : root.getDpsInputOperands()) {
    AffineMap map = root.getMatchingIndexingMap(input);
    unsigned k = map.getNumResults();
    if (!input->get().getDefiningOp<linalg::GenericOp>() || k == 0 ||
        k >= numLoops || !map.isProjectedPermutation() || isRowPrefix(map, k))
      continue;
    SmallVector<unsigned> order;
    for (AffineExpr e : map.getResults())
      order.push_back(cast<AffineDimExpr>(e).getPosition());
    for (unsigned d = 0; d < numLoops; ++d)
      if (!llvm::is_contained(order, d))
        order.push_back(d);
    return order;
  }
  return {};
}

} // namespace

bool KernelPlanner::isReadByLinalg(Operation *op, Block &body) {
  return llvm::any_of(op->getUsers(), [&](Operation *user) {
    return isa<linalg::LinalgOp>(user) && user->getBlock() == &body &&
           !mmaKernelOps.contains(user);
  });
}

bool KernelPlanner::isMmaKernel(linalg::LinalgOp root) {
  return readsMmaResult(root);
}

void KernelPlanner::collectMmaKernel(linalg::LinalgOp root) {
  SmallVector<linalg::LinalgOp> worklist = {root};
  while (!worklist.empty()) {
    linalg::LinalgOp op = worklist.pop_back_val();
    if (!mmaKernelOps.insert(op).second)
      continue;
    for (OpOperand &operand : op->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::LinalgOp>();
      // The fill of an output, and the chain from the accumulation to
      // the root; other producers are kernels of their own.
      if (producer &&
          (!op.isDpsInput(&operand) ||
           (isParallelOnlyRead(op, &operand) && readsMmaResult(producer))))
        worklist.push_back(producer);
    }
  }
}

void KernelPlanner::addResultRowOps(
    linalg::GenericOp root, unsigned rows,
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
    return rowOp->getBlock() == root->getBlock() && !members.contains(rowOp) &&
           !mmaKernelOps.contains(rowOp) && isRowOp(rowOp, rows) &&
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
                        [](Operation *u) { return isa<func::ReturnOp>(u); }) &&
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
///
/// A root that reads its statistics through other loops than its leading
/// ones (a batch norm's y over NHWC reads per-channel statistics by its
/// last loop) has its loops interchanged first, the statistics' loops
/// leading and the others in their order, as the reductions' loops are;
/// if it is no kernel's root after all, the interchange is undone.
bool KernelPlanner::collectRowReductionKernel(linalg::LinalgOp rootOp) {
  auto root = dyn_cast<linalg::GenericOp>(rootOp.getOperation());
  if (!root || root.getNumReductionLoops() != 0 || getMmaConfig(root))
    return false;
  SmallVector<unsigned> order = getStatisticsFirstOrder(root);
  if (order.empty())
    return collectRowsOf(root);
  IRRewriter rewriter(root.getContext());
  if (failed(linalg::interchangeGenericOp(rewriter, root, order)))
    return false;
  if (collectRowsOf(root))
    return true;
  SmallVector<unsigned> inverse(order.size());
  for (auto [i, loop] : llvm::enumerate(order))
    inverse[loop] = i;
  (void)linalg::interchangeGenericOp(rewriter, root, inverse);
  return false;
}

bool KernelPlanner::collectRowsOf(linalg::GenericOp root) {
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
      if (op != root && !members.contains(user) && !isa<func::ReturnOp>(user))
        return false;
  auto id = IntegerAttr::get(IntegerType::get(root.getContext(), 64),
                             nextRowReductionKernel++);
  for (linalg::GenericOp op : kernel) {
    op->setAttr(kRowReductionKernelAttrName, id);
    mmaKernelOps.insert(op); // left whole, like an MMA kernel
  }
  root->setAttr(kRowReductionRootAttrName, UnitAttr::get(root.getContext()));
  return true;
}

FailureOr<KernelTiles> KernelPlanner::getTiles(linalg::LinalgOp root) {
  SmallVector<linalg::LinalgOp> carriers = {root};
  for (Value input : root.getDpsInputs())
    if (auto producer = input.getDefiningOp<linalg::LinalgOp>())
      carriers.push_back(producer);
  for (Value init : root.getDpsInits())
    if (auto producer = init.getDefiningOp<linalg::LinalgOp>())
      carriers.push_back(producer);
  for (linalg::LinalgOp carrier : carriers)
    if (auto config = carrier->getAttrOfType<mlir::boo::LoweringConfigAttr>(
            mlir::boo::kLoweringConfigAttrName)) {
      return getConfigTiles(root, carrier, config);
    }
  return getDefaultTiles(root, budget);
}
