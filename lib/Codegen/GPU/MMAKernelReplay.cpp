//===- MMAKernelReplay.cpp - Linalg bodies replayed in registers ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// An MMA kernel computes the accumulation's factors and its epilogues from
// the generics' bodies, replayed at concrete loop coordinates: a block
// argument becomes a load through its indexing map (or a value the kernel
// already holds in registers), linalg.index the coordinate.
//
//===----------------------------------------------------------------------===//

#include "MMAKernel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

/// The indices into an operand with indexing map `map` at loop coordinates
/// `coords`.
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ValueRange coords) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults())
    indices.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, e), coords));
  return indices;
}

/// Values held in registers per buffer, with the indices they stand for.
using HeldValues = llvm::DenseMap<Value, std::pair<Value, SmallVector<Value>>>;

/// Indices into the result of `reshape` (a collapse or expand of a static
/// buffer) of the element at `indices` of its source.
SmallVector<Value> reshapeIndices(OpBuilder &b, Location loc,
                                  Operation *reshape, ArrayRef<Value> indices) {
  SmallVector<Value> result;
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape)) {
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    for (ReassociationIndices group : collapse.getReassociationIndices()) {
      Value linear = indices[group.front()];
      for (int64_t d : ArrayRef<int64_t>(group).drop_front())
        linear = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(
                b, loc, linear,
                arith::ConstantIndexOp::create(b, loc, shape[d])),
            indices[d]);
      result.push_back(linear);
    }
    return result;
  }
  auto expand = cast<memref::ExpandShapeOp>(reshape);
  ArrayRef<int64_t> shape = expand.getResultType().getShape();
  for (auto [src, group] : llvm::enumerate(expand.getReassociationIndices())) {
    Value rest = indices[src];
    SmallVector<Value> parts(group.size());
    for (int64_t i = group.size() - 1; i >= 0; --i) {
      Value size = arith::ConstantIndexOp::create(b, loc, shape[group[i]]);
      parts[i] = i == 0 ? rest : arith::RemUIOp::create(b, loc, rest, size);
      if (i != 0)
        rest = arith::DivUIOp::create(b, loc, rest, size);
    }
    result.append(parts);
  }
  return result;
}

/// Records `value` at `indices` of `buf` and of every reshape of it.
void hold(OpBuilder &b, Location loc, HeldValues &held, Value buf, Value value,
          SmallVector<Value> indices) {
  for (Operation *user : buf.getUsers())
    if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(user))
      hold(b, loc, held, user->getResult(0), value,
           reshapeIndices(b, loc, user, indices));
  held[buf] = {value, std::move(indices)};
}

} // namespace

LogicalResult mlir::boo::emitMMAEpilogue(OpBuilder &b, Location loc,
                                         MMAKernel &kernel, Value value,
                                         ArrayRef<Value> coords) {
  linalg::GenericOp acc = kernel.acc;
  OpOperand *accInit = acc.getDpsInitOperand(0);
  HeldValues held;
  Value accBuf = accInit->get();
  SmallVector<Value> accIdx =
      applyMap(b, loc, acc.getMatchingIndexingMap(accInit), coords);
  hold(b, loc, held, accBuf, value, accIdx);
  if (!llvm::is_contained(kernel.internalBuffers, accBuf))
    memref::StoreOp::create(b, loc, value, accBuf, accIdx);
  for (linalg::GenericOp e : kernel.epilogues) {
    // The epilogue's loop coordinates, from a held input's indices.
    SmallVector<Value> loops(e.getNumLoops());
    for (OpOperand *input : e.getDpsInputOperands()) {
      auto it = held.find(input->get());
      if (it == held.end())
        continue;
      AffineMap map = e.getMatchingIndexingMap(input);
      for (auto [r, expr] : llvm::enumerate(map.getResults()))
        loops[cast<AffineDimExpr>(expr).getPosition()] = it->second.second[r];
      break;
    }
    IRMapping mapping;
    Block *body = e.getBody();
    for (OpOperand &operand : e->getOpOperands()) {
      BlockArgument arg = body->getArgument(operand.getOperandNumber());
      if (arg.use_empty())
        continue;
      auto it = held.find(operand.get());
      if (e.isDpsInput(&operand) && it != held.end()) {
        mapping.map(arg, it->second.first);
        continue;
      }
      mapping.map(arg, memref::LoadOp::create(
                           b, loc, operand.get(),
                           applyMap(b, loc, e.getMatchingIndexingMap(&operand),
                                    loops)));
    }
    for (Operation &op : body->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        mapping.map(index.getResult(), loops[index.getDim()]);
        continue;
      }
      b.clone(op, mapping);
    }
    for (auto [init, yielded] : llvm::zip(
             e.getDpsInitsMutable(), body->getTerminator()->getOperands())) {
      Value result = mapping.lookupOrDefault(yielded);
      SmallVector<Value> idx =
          applyMap(b, loc, e.getMatchingIndexingMap(&init), loops);
      if (!llvm::is_contained(kernel.internalBuffers, init.get()))
        memref::StoreOp::create(b, loc, result, init.get(), idx);
      hold(b, loc, held, init.get(), result, std::move(idx));
    }
  }
  return success();
}

Value mlir::boo::materializeFactor(OpBuilder &b, Location loc,
                                   linalg::GenericOp op,
                                   const MMAKernel::Factor &f,
                                   ValueRange coords) {
  IRMapping mapping;
  Block *body = op.getBody();
  auto mapArg = [&](BlockArgument arg) {
    if (mapping.contains(arg))
      return;
    OpOperand &operand = op->getOpOperand(arg.getArgNumber());
    mapping.map(arg, memref::LoadOp::create(
                         b, loc, operand.get(),
                         applyMap(b, loc, op.getMatchingIndexingMap(&operand),
                                  coords)));
  };
  auto mapUses = [&](Operation *bodyOp) {
    for (Value v : bodyOp->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body)
        mapArg(arg);
    for (Region &region : bodyOp->getRegions()) {
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(region, above);
      for (Value v : above)
        if (auto arg = dyn_cast<BlockArgument>(v);
            arg && arg.getOwner() == body)
          mapArg(arg);
    }
  };
  for (Operation *bodyOp : f.ops) {
    if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
      mapping.map(index.getResult(), coords[index.getDim()]);
      continue;
    }
    mapUses(bodyOp);
    b.clone(*bodyOp, mapping);
  }
  if (auto arg = dyn_cast<BlockArgument>(f.value))
    mapArg(arg);
  return mapping.lookup(f.value);
}
