//===- GPUVectorizeThreadTiles.cpp - Thread tiles as vectors --------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-gpu-vectorize-thread-tiles`: a thread of an FMA kernel computes a
// small static tile of the output. Where that tile is a row of consecutive
// elements of a contiguous buffer row (channels of an NHWC output), the
// generic is rewritten as scalar loops over its other loops around its body
// replayed on vectors along the row (VectorReplay.cpp): loads along the row
// are one wide load, loads that do not depend on it are one scalar load,
// and the result is one wide store. convert-linalg-to-loops would emit one
// scalar load per element, which LLVM cannot merge across the guards of
// padded reads.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/GPU/Passes.h"

#include "GPUUtils.h"
#include "VectorReplay.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPUVECTORIZETHREADTILES
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {

/// Whether `op` is inside a thread-mapped scf.forall.
bool isThreadWork(Operation *op) {
  for (auto forall = op->getParentOfType<scf::ForallOp>(); forall;
       forall = forall->getParentOfType<scf::ForallOp>())
    if (isMappedTo(forall, /*threads=*/true))
      return true;
  return false;
}

/// The loop along which `op`'s output is a row of consecutive elements:
/// the loop of its innermost dim of size > 1, with stride 1 and only
/// size-1 dims after it. -1 if there is none.
int64_t findRowLoop(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 0)
    return -1;
  OpOperand *init = op.getDpsInitOperand(0);
  auto type = dyn_cast<MemRefType>(init->get().getType());
  if (!type || !type.hasStaticShape())
    return -1;
  AffineMap map = op.getMatchingIndexingMap(init);
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    if (type.getDimSize(d) == 1)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(d));
    if (!contiguousAlong(type, d) || !dim ||
        op.getIteratorTypesArray()[dim.getPosition()] !=
            utils::IteratorType::parallel)
      return -1;
    return dim.getPosition();
  }
  return -1;
}

/// `value` (a vector) stored at `indices` of `memref`, along dim `d`, with
/// only size-1 dims after it (collapsed into d, as vector.store needs).
void storeAlong(OpBuilder &b, Location loc, Value value, Value memref,
                ValueRange indices, int64_t d) {
  vector::StoreOp::create(b, loc, value,
                          collapseTrailingDims(b, loc, memref, d),
                          indices.take_front(d + 1));
}

/// The body ops of `op` and the value it yields.
std::pair<SmallVector<Operation *>, Value> getBody(linalg::GenericOp op) {
  Block *body = op.getBody();
  SmallVector<Operation *> ops;
  for (Operation &bodyOp : body->without_terminator())
    ops.push_back(&bodyOp);
  return {ops, body->getTerminator()->getOperand(0)};
}

/// The loop `op` can be computed as vectors along (see the file comment),
/// or -1.
int64_t findVectorLoop(linalg::GenericOp op, int64_t maxWidth) {
  int64_t row = findRowLoop(op);
  if (row < 0)
    return -1;
  int64_t width = op.getStaticLoopRanges()[row];
  if (width < 2 || width > maxWidth)
    return -1;
  auto [ops, value] = getBody(op);
  return canReplayAlong(op, ops, value, row, /*gather=*/true) ? row : -1;
}

/// Rewrites `op` as loops around its body replayed along `row`.
void vectorizeAlong(linalg::GenericOp op, unsigned row) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto [ops, value] = getBody(op);

  OpBuilder b(op);
  Location loc = op.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> coords;
  for (auto [d, extent] : llvm::enumerate(ranges)) {
    if (d == row || extent == 1) {
      coords.push_back(zero);
      continue;
    }
    auto loop = scf::ForOp::create(
        b, loc, zero, arith::ConstantIndexOp::create(b, loc, extent),
        arith::ConstantIndexOp::create(b, loc, 1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    coords.push_back(loop.getInductionVar());
  }
  Value vec = replayAlong(b, loc, op, ops, value, coords, row, ranges[row],
                          /*gather=*/true);

  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap map = op.getMatchingIndexingMap(init);
  SmallVector<Value> indices;
  int64_t rowDim = -1;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    if (e == getAffineDimExpr(row, op.getContext()))
      rowDim = i;
    indices.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, e), coords));
  }
  storeAlong(b, loc, vec, init->get(), indices, rowDim);
  op.erase();
}

struct BooGPUVectorizeThreadTilesPass
    : public mlir::boo::impl::BooGPUVectorizeThreadTilesBase<
          BooGPUVectorizeThreadTilesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op.hasPureBufferSemantics() && isThreadWork(op))
        generics.push_back(op);
    });
    DenseMap<Operation *, int64_t> rows;
    for (linalg::GenericOp op : generics)
      rows[op] = findVectorLoop(op, maxWidth);
    // A thread's private buffer (its accumulator tile) is accessed either
    // as vectors by all its generics or by none: mixed vector and scalar
    // accesses can keep LLVM's SROA from putting it in registers.
    llvm::SmallPtrSet<Value, 8> scalarBuffers;
    auto privateBuffers = [](linalg::GenericOp op) {
      SmallVector<Value> buffers;
      for (Value v : op->getOperands()) {
        while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
          v = view.getViewSource();
        Operation *def = v.getDefiningOp();
        if (isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(def) &&
            isThreadWork(def))
          buffers.push_back(v);
      }
      return buffers;
    };
    for (bool changed = true; changed;) {
      changed = false;
      for (linalg::GenericOp op : generics) {
        SmallVector<Value> buffers = privateBuffers(op);
        if (rows[op] >= 0 && llvm::any_of(buffers, [&](Value v) {
              return scalarBuffers.contains(v);
            }))
          rows[op] = -1;
        if (rows[op] < 0)
          for (Value v : buffers)
            changed |= scalarBuffers.insert(v).second;
      }
    }
    for (linalg::GenericOp op : generics)
      if (rows[op] >= 0)
        vectorizeAlong(op, rows[op]);
  }
};

} // namespace
