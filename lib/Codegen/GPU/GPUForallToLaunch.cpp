//===- GPUForallToLaunch.cpp - Mapped scf.forall nests to gpu.launch ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-gpu-forall-to-launch` runs on the bufferized output of
// boo-gpu-distribute. Each `#gpu.block`-mapped scf.forall becomes one
// gpu.launch:
//
//   - the workgroup loop's iterations are linearized onto the grid's x dim
//     (no 65535 limit on y/z to worry about, any number of tiled loops);
//     `#gpu.block<linear_dim_0>` varies fastest;
//   - each `#gpu.thread`-mapped loop inside becomes straight-line code on
//     `gpu.thread_id x`, delinearized the same way; the workgroup has as
//     many threads as the largest thread loop can have iterations (a static
//     bound, also for partial tiles), and an `scf.if` skips the threads
//     whose iteration is outside the (possibly partial) tile;
//   - a temporary allocated inside the kernel becomes a `memref.alloca` in
//     private memory (LLVM's SROA turns the small static ones into
//     registers);
//   - view ops of host buffers are sunk into the launch, so the kernel's
//     arguments are whole buffers (one pointer each, see the kernel ABI).
//
// On the host, the allocations for values passed between kernels become
// `gpu.alloc`/`gpu.dealloc`, and the copy bufferization inserts when a
// result is a reshaped temporary is elided by writing the out-param
// directly. Any other copy (a result that is an argument) becomes a kernel
// of its own.
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"

#include "Boo/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPUFORALLTOLAUNCH
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// A constant upper bound (exclusive) of `value`: itself if constant, the
/// smallest constant of an `affine.min` (a partial tile's size), else what
/// the value-bounds analysis proves.
FailureOr<int64_t> getUpperBound(OpFoldResult value) {
  if (std::optional<int64_t> c = getConstantIntValue(value))
    return *c;
  if (auto min = dyn_cast<Value>(value).getDefiningOp<affine::AffineMinOp>()) {
    std::optional<int64_t> bound;
    for (AffineExpr expr : min.getAffineMap().getResults())
      if (auto c = dyn_cast<AffineConstantExpr>(expr))
        bound = std::min(bound.value_or(c.getValue()), c.getValue());
    if (bound)
      return *bound;
  }
  return ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(value),
      /*stopCondition=*/nullptr, /*closedUB=*/false);
}

/// The largest number of iterations of each dim of `loop`.
FailureOr<SmallVector<int64_t>> getMaxTripCounts(scf::ForallOp loop) {
  SmallVector<int64_t> counts;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getMixedLowerBound(), loop.getMixedUpperBound(),
                 loop.getMixedStep())) {
    std::optional<int64_t> lbC = getConstantIntValue(lb);
    std::optional<int64_t> stepC = getConstantIntValue(step);
    FailureOr<int64_t> ubC = getUpperBound(ub);
    if (!lbC || !stepC || *stepC <= 0 || failed(ubC))
      return loop.emitError() << "boo-gpu-forall-to-launch: the loop needs a "
                                 "static lower bound and step and a bounded "
                                 "upper bound";
    counts.push_back(
        std::max<int64_t>(0, llvm::divideCeil(*ubC - *lbC, *stepC)));
  }
  return counts;
}

/// Splits `linear` into one index per dim of `loop`; the dim mapped to
/// linear_dim_0 varies fastest.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               scf::ForallOp loop, ArrayRef<int64_t> counts) {
  int64_t rank = counts.size();
  SmallVector<int64_t> dims(rank);
  std::iota(dims.begin(), dims.end(), 0);
  ArrayAttr mapping = *loop.getMapping();
  llvm::stable_sort(dims, [&](int64_t a, int64_t b) {
    return mlir::boo::getLinearMappingId(mapping[a]).value_or(a) <
           mlir::boo::getLinearMappingId(mapping[b]).value_or(b);
  });
  SmallVector<Value> index(rank);
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (i + 1 == dims.size()) {
      index[d] = linear;
      break;
    }
    Value count = arith::ConstantIndexOp::create(b, loc, counts[d]);
    index[d] = arith::RemUIOp::create(b, loc, linear, count);
    linear = arith::DivUIOp::create(b, loc, linear, count);
  }
  return index;
}

/// The induction variables for iteration `index` of `loop`, and the
/// condition that they are inside the loop's (dynamic) bounds.
std::pair<SmallVector<Value>, Value> getInductionVars(OpBuilder &b,
                                                      Location loc,
                                                      scf::ForallOp loop,
                                                      ArrayRef<Value> index) {
  SmallVector<Value> ivs;
  Value inBounds;
  for (auto [idx, lb, ub, step] :
       llvm::zip(index, loop.getMixedLowerBound(), loop.getMixedUpperBound(),
                 loop.getMixedStep())) {
    AffineExpr i, l, s;
    bindDims(b.getContext(), i);
    bindSymbols(b.getContext(), l, s);
    OpFoldResult iv = affine::makeComposedFoldedAffineApply(b, loc, i * s + l,
                                                            {idx, lb, step});
    Value ivValue = getValueOrCreateConstantIndexOp(b, loc, iv);
    ivs.push_back(ivValue);
    Value ubValue = getValueOrCreateConstantIndexOp(b, loc, ub);
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, ivValue,
                                     ubValue);
    inBounds =
        inBounds ? arith::AndIOp::create(b, loc, inBounds, lt).getResult() : lt;
  }
  return {ivs, inBounds};
}

/// Whether every thread id below `blockSize` is an iteration of `loop`:
/// static bounds from 0 with step 1 whose iterations number `blockSize`.
bool coversWorkgroup(scf::ForallOp loop, int64_t blockSize) {
  int64_t iterations = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getMixedLowerBound(), loop.getMixedUpperBound(),
                 loop.getMixedStep())) {
    std::optional<int64_t> upper = getConstantIntValue(ub);
    if (!isConstantIntValue(lb, 0) || !isConstantIntValue(step, 1) || !upper)
      return false;
    iterations *= *upper;
  }
  return iterations == blockSize;
}

/// Replaces a thread-mapped loop by its body, executed by the thread whose
/// linear id is its iteration.
LogicalResult lowerThreadLoop(RewriterBase &rewriter, scf::ForallOp loop,
                              Value threadId, ArrayRef<int64_t> counts,
                              int64_t blockSize) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> index = delinearize(rewriter, loc, threadId, loop, counts);
  auto [ivs, inBounds] = getInductionVars(rewriter, loc, loop, index);
  Block *body = loop.getBody();
  rewriter.eraseOp(body->getTerminator());
  if (coversWorkgroup(loop, blockSize)) {
    // Every thread runs the body: no guard, so workgroup-wide operations in
    // it (barriers, gpu.all_reduce) are reached by all threads.
    rewriter.inlineBlockBefore(body, loop, ivs);
  } else {
    // Threads past the loop's iterations (a partial tile, or a smaller loop
    // than the workgroup) do nothing.
    auto guard = scf::IfOp::create(rewriter, loc, inBounds,
                                   /*withElseRegion=*/false);
    rewriter.inlineBlockBefore(body, guard.thenBlock()->getTerminator(), ivs);
  }
  rewriter.eraseOp(loop);
  return success();
}

/// Moves `value`'s buffer (and the views of it) to private memory.
void setPrivateMemorySpace(Value value, Attribute space) {
  auto type = cast<MemRefType>(value.getType());
  value.setType(MemRefType::get(type.getShape(), type.getElementType(),
                                type.getLayout(), space));
  for (Operation *user : value.getUsers()) {
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    if (!view || view.getViewSource() != value)
      continue;
    for (Value result : user->getResults())
      if (isa<MemRefType>(result.getType()))
        setPrivateMemorySpace(result, space);
  }
}

struct BooGPUForallToLaunchPass
    : public mlir::boo::impl::BooGPUForallToLaunchBase<
          BooGPUForallToLaunchPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(convertFunction(func)))
        return signalPassFailure();
  }

  LogicalResult convertFunction(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    mlir::boo::elideResultCopies(rewriter, func);
    copiesToLoops(rewriter, func);

    SmallVector<scf::ForallOp> workgroupLoops;
    for (auto loop : func.getBody().getOps<scf::ForallOp>())
      if (boo::isMappedTo(loop, /*threads=*/false))
        workgroupLoops.push_back(loop);
    for (auto [i, loop] : llvm::enumerate(workgroupLoops)) {
      std::string name = (func.getSymName() + "_k" + Twine(i)).str();
      if (failed(convertWorkgroupLoop(rewriter, loop, name)))
        return failure();
    }

    // The host code is now launches, allocations and views.
    bool bad = false;
    SmallVector<memref::AllocOp> allocs;
    for (Operation &op : func.getBody().front()) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        allocs.push_back(alloc);
        continue;
      }
      if (isa<gpu::LaunchOp, func::ReturnOp, arith::ConstantOp,
              memref::ExpandShapeOp, memref::CollapseShapeOp, memref::SubViewOp,
              memref::CastOp, memref::DeallocOp>(op))
        continue;
      op.emitOpError() << "boo-gpu-forall-to-launch: is left on the host "
                          "outside any kernel";
      bad = true;
    }
    if (bad)
      return failure();
    for (memref::AllocOp alloc : allocs) {
      rewriter.setInsertionPoint(alloc);
      auto deviceAlloc = gpu::AllocOp::create(
          rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), /*hostShared=*/false);
      rewriter.replaceAllUsesWith(alloc.getResult(), deviceAlloc.getMemref());
      rewriter.eraseOp(alloc);
      for (Operation *user :
           llvm::make_early_inc_range(deviceAlloc.getMemref().getUsers()))
        if (isa<memref::DeallocOp>(user))
          rewriter.eraseOp(user);
      func.walk([&](func::ReturnOp ret) {
        rewriter.setInsertionPoint(ret);
        gpu::DeallocOp::create(rewriter, ret.getLoc(), /*asyncToken=*/Type(),
                               ValueRange(), deviceAlloc.getMemref());
      });
    }
    return success();
  }

  /// The copies left on the host (a result that is an argument, e.g. a
  /// function returning its input unchanged) become mapped loops, so a
  /// kernel of their own: a workgroup per 256 elements, a thread each.
  static void copiesToLoops(RewriterBase &rewriter, func::FuncOp func) {
    constexpr int64_t kThreads = 256;
    MLIRContext *ctx = func.getContext();
    for (auto copy : llvm::make_early_inc_range(
             func.getBody().front().getOps<memref::CopyOp>())) {
      auto type = cast<MemRefType>(copy.getSource().getType());
      if (!type.hasStaticShape())
        continue;
      Location loc = copy.getLoc();
      int64_t n = type.getNumElements();
      rewriter.setInsertionPoint(copy);
      auto blocks = scf::ForallOp::create(
          rewriter, loc,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(
              llvm::divideCeil(n, kThreads))},
          ValueRange(),
          rewriter.getArrayAttr({gpu::GPUBlockMappingAttr::get(
              ctx, gpu::MappingId::LinearDim0)}));
      rewriter.setInsertionPointToStart(blocks.getBody());
      auto threads = scf::ForallOp::create(
          rewriter, loc,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(kThreads)},
          ValueRange(),
          rewriter.getArrayAttr({gpu::GPUThreadMappingAttr::get(
              ctx, gpu::MappingId::LinearDim0)}));
      rewriter.setInsertionPointToStart(threads.getBody());
      Value linear = affine::AffineApplyOp::create(
          rewriter, loc,
          AffineMap::get(2, 0,
                         rewriter.getAffineDimExpr(0) * kThreads +
                             rewriter.getAffineDimExpr(1)),
          ValueRange{blocks.getInductionVar(0), threads.getInductionVar(0)});
      Value inBounds = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, linear,
          arith::ConstantIndexOp::create(rewriter, loc, n));
      auto guard = scf::IfOp::create(rewriter, loc, inBounds);
      rewriter.setInsertionPointToStart(&guard.getThenRegion().front());
      SmallVector<Value> indices;
      if (type.getRank() > 0)
        indices = affine::AffineDelinearizeIndexOp::create(
                      rewriter, loc, linear, type.getShape())
                      .getResults();
      Value v = memref::LoadOp::create(rewriter, loc, copy.getSource(),
                                       indices);
      memref::StoreOp::create(rewriter, loc, v, copy.getTarget(), indices);
      rewriter.eraseOp(copy);
    }
  }

  LogicalResult convertWorkgroupLoop(RewriterBase &rewriter, scf::ForallOp loop,
                                     StringRef name) {
    Location loc = loop.getLoc();
    if (loop.getNumResults() != 0)
      return loop.emitError() << "boo-gpu-forall-to-launch: expected a "
                                 "bufferized loop (no results)";
    FailureOr<SmallVector<int64_t>> gridCounts = getMaxTripCounts(loop);
    if (failed(gridCounts))
      return failure();
    int64_t gridSize = 1;
    for (int64_t c : *gridCounts)
      gridSize *= c;

    SmallVector<scf::ForallOp> threadLoops;
    loop.getBody()->walk([&](scf::ForallOp inner) {
      if (boo::isMappedTo(inner, /*threads=*/true))
        threadLoops.push_back(inner);
    });
    SmallVector<SmallVector<int64_t>> threadCounts;
    int64_t blockSize = 1;
    for (scf::ForallOp inner : threadLoops) {
      FailureOr<SmallVector<int64_t>> counts = getMaxTripCounts(inner);
      if (failed(counts))
        return failure();
      int64_t size = 1;
      for (int64_t c : *counts)
        size *= c;
      blockSize = std::max(blockSize, size);
      threadCounts.push_back(*counts);
    }
    if (blockSize > 1024)
      return loop.emitError() << "boo-gpu-forall-to-launch: " << blockSize
                              << " threads per workgroup (at most 1024)";
    // Work outside the thread loops would run once per thread.
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (isa<scf::ForallOp>(op) || isPure(&op) ||
          isa<memref::AllocOp, memref::AllocaOp>(op))
        continue;
      return op.emitOpError() << "boo-gpu-forall-to-launch: side effects "
                                 "outside the thread loops of a kernel";
    }

    rewriter.setInsertionPoint(loop);
    auto constant = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value one = constant(1);
    auto launch = gpu::LaunchOp::create(
        rewriter, loc, constant(gridSize), one, one, constant(blockSize), one,
        one, /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        /*asyncDependencies=*/{}, /*workgroupAttributions=*/{},
        /*privateAttributions=*/{}, nullptr, nullptr, nullptr,
        FlatSymbolRefAttr::get(rewriter.getContext(), name),
        FlatSymbolRefAttr::get(rewriter.getContext(), name));
    Block &launchBody = launch.getBody().front();
    rewriter.setInsertionPointToStart(&launchBody);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    rewriter.setInsertionPoint(terminator);
    SmallVector<Value> index =
        delinearize(rewriter, loc, launch.getBlockIds().x, loop, *gridCounts);
    SmallVector<Value> ivs = getInductionVars(rewriter, loc, loop, index).first;
    Block *body = loop.getBody();
    rewriter.eraseOp(body->getTerminator());
    rewriter.inlineBlockBefore(body, terminator, ivs);
    rewriter.eraseOp(loop);

    Value threadId = launch.getThreadIds().x;
    for (auto [inner, counts] : llvm::zip(threadLoops, threadCounts))
      if (failed(lowerThreadLoop(rewriter, inner, threadId, counts, blockSize)))
        return failure();

    moveWorkgroupBuffersToAttributions(rewriter, launch);
    if (failed(privatizeTemporaries(rewriter, launch)))
      return failure();
    // A copy between a register tile and a strided view would be a call to
    // the host runtime's memrefCopy: make it loops.
    SmallVector<memref::CopyOp> copies;
    launch.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
    sinkViews(rewriter, launch);
    return success();
  }

  /// Clones the view ops (and constants) the kernel uses from the host into
  /// the kernel, so that its arguments are the underlying whole buffers.
  /// (Upstream's sinkOperationsIntoLaunchOp only sinks ops whose operands
  /// the kernel already captures.)
  void sinkViews(RewriterBase &rewriter, gpu::LaunchOp launch) {
    auto isSinkable = [](Operation *op) {
      return isa_and_nonnull<arith::ConstantOp, memref::ExpandShapeOp,
                             memref::CollapseShapeOp, memref::SubViewOp,
                             memref::CastOp, memref::ReinterpretCastOp>(op);
    };
    Region &body = launch.getBody();
    IRMapping mapping;
    // Clones go to the start of the kernel, each after the previous one.
    Operation *lastClone = nullptr;
    // Clones `value`'s view chain at the start of the kernel (operands
    // first) and returns the kernel-side value.
    std::function<Value(Value)> sink = [&](Value value) -> Value {
      if (Value mapped = mapping.lookupOrNull(value))
        return mapped;
      Operation *def = value.getDefiningOp();
      if (!isSinkable(def) || body.isAncestor(def->getParentRegion()))
        return value;
      for (Value operand : def->getOperands())
        sink(operand);
      if (lastClone)
        rewriter.setInsertionPointAfter(lastClone);
      else
        rewriter.setInsertionPointToStart(&body.front());
      lastClone = rewriter.clone(*def, mapping);
      return mapping.lookup(value);
    };
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(body, captured);
    for (Value value : captured) {
      if (!isSinkable(value.getDefiningOp()))
        continue;
      Value inside = sink(value);
      rewriter.replaceUsesWithIf(value, inside, [&](OpOperand &use) {
        return body.isAncestor(use.getOwner()->getParentRegion());
      });
    }
    // Host-side views nothing uses any more go now: left in place, CSE
    // (which looks into the launch: it is not isolated from above) would
    // replace the kernel's clones with them again, making them arguments.
    SetVector<Operation *> chain;
    for (Value value : captured)
      if (isSinkable(value.getDefiningOp()))
        chain.insert(value.getDefiningOp());
    for (size_t i = 0; i < chain.size(); ++i) {
      Operation *op = chain[i];
      if (op->getNumOperands() > 0 &&
          isSinkable(op->getOperand(0).getDefiningOp()))
        chain.insert(op->getOperand(0).getDefiningOp());
    }
    SmallVector<Operation *> dead(chain.begin(), chain.end());
    for (bool erased = true; erased;) {
      erased = false;
      for (Operation *&op : dead) {
        if (op && op->use_empty()) {
          rewriter.eraseOp(op);
          op = nullptr;
          erased = true;
        }
      }
    }
  }

  /// Buffers allocated in workgroup memory (LDS) become workgroup
  /// attributions of the launch: one per workgroup, the kernel's static LDS.
  void moveWorkgroupBuffersToAttributions(RewriterBase &rewriter,
                                          gpu::LaunchOp launch) {
    SmallVector<memref::AllocOp> allocs;
    launch.walk([&](memref::AllocOp alloc) {
      if (auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(
              alloc.getType().getMemorySpace());
          space && space.getValue() == gpu::AddressSpace::Workgroup)
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          rewriter.eraseOp(user);
      BlockArgument buffer =
          launch.addWorkgroupAttribution(alloc.getType(), alloc.getLoc());
      rewriter.replaceAllUsesWith(alloc.getResult(), buffer);
      rewriter.eraseOp(alloc);
    }
  }

  /// Buffers allocated inside a kernel are per-thread temporaries.
  LogicalResult privatizeTemporaries(RewriterBase &rewriter,
                                     gpu::LaunchOp launch) {
    Attribute privateSpace = gpu::AddressSpaceAttr::get(
        launch.getContext(), gpu::AddressSpace::Private);
    SmallVector<memref::AllocOp> allocs;
    launch.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      Location loc = alloc.getLoc();
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          rewriter.eraseOp(user);
      rewriter.setInsertionPoint(alloc);
      Value replacement;
      if (type.hasStaticShape()) {
        replacement = memref::AllocaOp::create(rewriter, loc, type,
                                               alloc.getAlignmentAttr());
      } else {
        // A partial tile's temporary: the bytes of its largest size, viewed
        // with the actual (dynamic) sizes and the same dense layout.
        int64_t elements = 1;
        auto dynamicSizes = alloc.getDynamicSizes().begin();
        for (int64_t dim : type.getShape()) {
          if (!ShapedType::isDynamic(dim)) {
            elements *= dim;
            continue;
          }
          FailureOr<int64_t> bound = getUpperBound(*dynamicSizes++);
          if (failed(bound))
            return alloc.emitOpError()
                   << "boo-gpu-forall-to-launch: a temporary inside a "
                      "kernel has a size without a static upper bound";
          elements *= *bound;
        }
        int64_t bytes =
            elements * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
        auto bytesType =
            MemRefType::get({bytes}, rewriter.getI8Type(),
                            MemRefLayoutAttrInterface(), Attribute());
        Value buffer = memref::AllocaOp::create(rewriter, loc, bytesType,
                                                rewriter.getI64IntegerAttr(16));
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        replacement = memref::ViewOp::create(rewriter, loc, type, buffer, zero,
                                             alloc.getDynamicSizes());
        setPrivateMemorySpace(buffer, privateSpace);
      }
      rewriter.replaceAllUsesWith(alloc.getResult(), replacement);
      rewriter.eraseOp(alloc);
      setPrivateMemorySpace(replacement, privateSpace);
    }
    return success();
  }
};

} // namespace

void mlir::boo::elideResultCopies(RewriterBase &rewriter, func::FuncOp func) {
  for (auto copy : llvm::make_early_inc_range(
           func.getBody().front().getOps<memref::CopyOp>())) {
    auto out = dyn_cast<BlockArgument>(copy.getTarget());
    if (!out || !out.hasOneUse())
      continue;
    Value source = copy.getSource();
    Operation *view = source.getDefiningOp();
    memref::AllocOp alloc;
    if (isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(view))
      alloc = view->getOperand(0).getDefiningOp<memref::AllocOp>();
    else
      alloc = source.getDefiningOp<memref::AllocOp>(), view = nullptr;
    if (!alloc || !alloc.getType().getLayout().isIdentity() ||
        !alloc.getType().hasStaticShape() ||
        !cast<MemRefType>(out.getType()).getLayout().isIdentity())
      continue;
    rewriter.setInsertionPointToStart(&func.getBody().front());
    Value replacement = out;
    if (auto collapse = dyn_cast_or_null<memref::CollapseShapeOp>(view))
      replacement = memref::ExpandShapeOp::create(
          rewriter, copy.getLoc(), alloc.getType().getShape(), out,
          collapse.getReassociationIndices());
    else if (auto expand = dyn_cast_or_null<memref::ExpandShapeOp>(view))
      replacement = memref::CollapseShapeOp::create(
          rewriter, copy.getLoc(), out, expand.getReassociationIndices());
    if (replacement.getType() != alloc.getType())
      continue;
    rewriter.eraseOp(copy);
    rewriter.replaceAllUsesWith(alloc.getResult(), replacement);
    rewriter.eraseOp(alloc);
    if (view && view->use_empty())
      rewriter.eraseOp(view);
  }
}
