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

#include "GPUUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// A value held in registers for a buffer element: the indices it stands
/// for and, where affine, their map from the accumulation's loops.
struct Held {
  Value value;
  SmallVector<Value> indices;
  AffineMap map; // null when not an affine function of the loops
};
using HeldValues = llvm::DenseMap<Value, Held>;

/// The map of the collapsed indices of `collapse` from `map`, the map of
/// its source's indices.
AffineMap collapseMap(memref::CollapseShapeOp collapse, AffineMap map) {
  if (!map)
    return map;
  ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
  SmallVector<AffineExpr> results;
  for (ReassociationIndices group : collapse.getReassociationIndices()) {
    AffineExpr linear = map.getResult(group.front());
    for (int64_t d : ArrayRef<int64_t>(group).drop_front())
      linear = linear * shape[d] + map.getResult(d);
    results.push_back(linear);
  }
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

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

/// Records `value` at `indices` (with map `map`) of `buf` and of every
/// reshape of it. An expansion's indices are not affine (div/rem).
void hold(OpBuilder &b, Location loc, HeldValues &held, Value buf, Value value,
          SmallVector<Value> indices, AffineMap map) {
  for (Operation *user : buf.getUsers()) {
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(user))
      continue;
    auto collapse = dyn_cast<memref::CollapseShapeOp>(user);
    hold(b, loc, held, user->getResult(0), value,
         reshapeIndices(b, loc, user, indices),
         collapse ? collapseMap(collapse, map) : AffineMap());
  }
  held[buf] = {value, std::move(indices), map};
}

} // namespace

LogicalResult mlir::boo::emitMMAEpilogue(OpBuilder &b, Location loc,
                                         MMAKernel &kernel, Value value,
                                         ArrayRef<Value> coords,
                                         SmallVectorImpl<ResultStore> *deferred,
                                         RunReads *run) {
  linalg::GenericOp acc = kernel.acc;
  OpOperand *accInit = acc.getDpsInitOperand(0);
  auto store = [&](Value buf, Value v, ArrayRef<Value> idx, AffineMap map) {
    if (llvm::is_contained(kernel.internalBuffers, buf))
      return;
    ResultStore s{buf, SmallVector<Value>(idx), v, map};
    if (deferred)
      deferred->push_back(std::move(s));
    else
      memref::StoreOp::create(b, loc, s.value, s.buffer, s.indices);
  };
  HeldValues held;
  Value accBuf = accInit->get();
  AffineMap accMap = acc.getMatchingIndexingMap(accInit);
  SmallVector<Value> accIdx = applyMap(b, loc, accMap, coords);
  hold(b, loc, held, accBuf, value, accIdx, accMap);
  store(accBuf, value, accIdx, accMap);
  for (linalg::GenericOp e : kernel.epilogues) {
    // The epilogue's loop coordinates (and their map from the
    // accumulation's loops), from a held input's indices.
    SmallVector<Value> loops(e.getNumLoops());
    AffineMap loopsMap;
    for (OpOperand *input : e.getDpsInputOperands()) {
      auto it = held.find(input->get());
      if (it == held.end())
        continue;
      AffineMap map = e.getMatchingIndexingMap(input);
      SmallVector<AffineExpr> exprs(e.getNumLoops());
      for (auto [r, expr] : llvm::enumerate(map.getResults())) {
        unsigned pos = cast<AffineDimExpr>(expr).getPosition();
        loops[pos] = it->second.indices[r];
        if (it->second.map)
          exprs[pos] = it->second.map.getResult(r);
      }
      if (it->second.map && llvm::all_of(exprs, [](AffineExpr x) {
            return static_cast<bool>(x);
          }))
        loopsMap = AffineMap::get(acc.getNumLoops(), 0, exprs, b.getContext());
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
        mapping.map(arg, it->second.value);
        continue;
      }
      AffineMap map = e.getMatchingIndexingMap(&operand);
      SmallVector<Value> idx = applyMap(b, loc, map, loops);
      if (run && e.isDpsInput(&operand) && loopsMap &&
          isUnitStrideAlong(operand.get(), map.compose(loopsMap), run->loop)) {
        // Read once for the run (at its first row), as one vector.
        Value &vec = run->vectors[&operand];
        if (!vec)
          vec = vector::LoadOp::create(
              b, loc, VectorType::get({run->length}, arg.getType()),
              operand.get(), idx);
        mapping.map(arg, vector::ExtractOp::create(b, loc, vec, run->position));
        continue;
      }
      mapping.map(arg, memref::LoadOp::create(b, loc, operand.get(), idx));
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
      AffineMap initMap = e.getMatchingIndexingMap(&init);
      SmallVector<Value> idx = applyMap(b, loc, initMap, loops);
      AffineMap map = loopsMap ? initMap.compose(loopsMap) : AffineMap();
      store(init.get(), result, idx, map);
      hold(b, loc, held, init.get(), result, std::move(idx), map);
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
