//===- VectorReplay.cpp - A generic's value as a vector along one loop ----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Replays ops of a generic's body at `width` consecutive iterations of one
// of its loops, as vector ops, so that reads of consecutive elements become
// one vector load. Two users:
//
// - MMA staging reads a factor along K, or along the M/N loop of an
//   operand whose rows are contiguous along it (MMAStaging.cpp);
// - boo-gpu-vectorize-thread-tiles computes an FMA kernel's thread tile
//   along the loop its output is contiguous along
//   (GPUVectorizeThreadTiles.cpp).
//
// Each value of the body is classified along the loop:
//
//   Uniform  the same for every iteration of the vector (index arithmetic
//            on other loops, padding guards, constants);
//   Unit     an index equal to the loop's value plus a Uniform one;
//   Lanes    data whose element i is iteration i's value: a load with one
//            Unit index, on a dim of stride 1 followed only by dims of
//            size 1 (its other indices Uniform), an scf.if on a Uniform
//            condition yielding one, or an element-wise op on them. With
//            `gather`, also a load with one Unit index on any dim, or an
//            operand read through a map that is not unit in the loop: it
//            is replayed as `width` scalar loads (the filter of a
//            depthwise conv along its channels, the input of a weight
//            gradient along a dilated filter tap).
//
//   Bound    a condition that holds on an interval of the loop: a signed
//            (or unsigned lower-than) comparison of a Unit value with a
//            Uniform one, or a conjunction of such and Uniform conditions
//            (the padding guard along the loop of an NCHW input).
//
// Anything else (a guard or an index that depends on the loop in another
// way) keeps the scalar replay. The vector replay clones the Uniform and
// Unit ops as scalars at the vector's first iteration and rebuilds the
// Lanes ops on vectors, so guards stay at vector granularity. An scf.if on
// a Bound condition becomes a vector read where the condition holds at the
// vector's first and last iteration (so at all of them), and element by
// element reads, each under its own condition, where it does not (the
// vectors across the padding).
//
//===----------------------------------------------------------------------===//

#include "VectorReplay.h"

#include "GPUUtils.h"
#include "MMAKernel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

enum class Kind { Uniform, Unit, Lanes, Bound };

/// A vector load of `type` from `memref` at `indices`, along the last dim
/// whose index is not a trailing 0 of a size-1 dim (contiguousAlong).
Value loadAlong(OpBuilder &b, Location loc, VectorType type, Value memref,
                ValueRange indices, int64_t d) {
  return vector::LoadOp::create(b, loc, type,
                                collapseTrailingDims(b, loc, memref, d),
                                indices.take_front(d + 1));
}

class VectorReplay {
public:
  VectorReplay(linalg::GenericOp op, ArrayRef<Operation *> ops, Value value,
               unsigned loop, bool gather)
      : op(op), ops(ops), value(value), loop(loop), gather(gather),
        body(op.getBody()) {}

  /// Classifies the factor's ops; false if it cannot be read as a vector.
  bool analyze();
  Value replay(OpBuilder &b, Location loc, ValueRange coords, int64_t width);

private:
  std::optional<Kind> kindOf(Value v);
  std::optional<Kind> classify(Operation *bodyOp);
  bool classifyBlock(Block &block);
  std::optional<Kind> classifyLoad(Value load, MemRefType type,
                                   ArrayRef<Kind> indices);
  /// The dim a Lanes load reads along.
  int64_t unitDim(Value lanesLoad) const { return loadDims.lookup(lanesLoad); }
  /// A Lanes load at `indices` (its Unit index at the vector's first
  /// iteration): one vector load, or `width` scalar ones for a gather.
  Value loadLanes(OpBuilder &b, Location loc, Value load, Value memref,
                  ValueRange indices);

  Value scalar(Value v) { return mapping.lookupOrDefault(v); }
  Value vector(OpBuilder &b, Location loc, Value v);
  void mapArg(OpBuilder &b, Location loc, BlockArgument arg);
  void mapArgsUsedBy(OpBuilder &b, Location loc, Operation *bodyOp);
  void replayOp(OpBuilder &b, Location loc, Operation *bodyOp);
  void replayIf(OpBuilder &b, Location loc, scf::IfOp ifOp);
  void replayBoundIf(OpBuilder &b, Location loc, scf::IfOp ifOp);
  void fillVectorBranch(OpBuilder &b, Location loc, Block *from, Block *to,
                        scf::IfOp ifOp);
  Value atOffset(OpBuilder &b, Location loc, Value v, int64_t offset);
  std::optional<Kind> classifyBound(Operation *bodyOp, ArrayRef<Kind> operands);

  linalg::GenericOp op;
  ArrayRef<Operation *> ops;
  Value value;
  unsigned loop;
  bool gather;
  Block *body;
  DenseMap<Value, Kind> kinds;
  DenseMap<Value, int64_t> loadDims;
  /// Lanes loads read one element at a time: memref.loads along a strided
  /// dim, block arguments along a strided dim or through a map that is not
  /// unit in the loop (each element read through the map at its iteration).
  llvm::SmallPtrSet<Value, 4> gathers;

  // Replay state.
  ValueRange coords;
  int64_t width = 1;
  IRMapping mapping;              // Uniform and Unit values
  DenseMap<Value, Value> vectors; // Lanes values
};

/// Classifies `load` (a memref.load or a block argument) of `type` from its
/// indices' kinds, and records the dim a Lanes load reads along.
std::optional<Kind> VectorReplay::classifyLoad(Value load, MemRefType type,
                                               ArrayRef<Kind> indices) {
  if (llvm::count(indices, Kind::Uniform) ==
      static_cast<int64_t>(indices.size()))
    return Kind::Uniform;
  if (llvm::count(indices, Kind::Unit) != 1 ||
      llvm::is_contained(indices, Kind::Lanes))
    return std::nullopt;
  int64_t d = llvm::find(indices, Kind::Unit) - indices.begin();
  if (!contiguousAlong(type, d)) {
    if (!gather)
      return std::nullopt;
    gathers.insert(load);
  }
  loadDims[load] = d;
  return Kind::Lanes;
}

std::optional<Kind> VectorReplay::kindOf(Value v) {
  if (auto it = kinds.find(v); it != kinds.end())
    return it->second;
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != body) {
    // Defined above the generic (constants) is Uniform. Inside it, ops are
    // classified before their users (body order): a value not classified
    // is not supported.
    if (!op->isAncestor(v.getParentRegion()->getParentOp()))
      return Kind::Uniform;
    return std::nullopt;
  }
  // A block argument is a load through its operand's indexing map.
  OpOperand &operand = op->getOpOperand(arg.getArgNumber());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  SmallVector<Kind> indices;
  bool strided = false;
  for (AffineExpr e : map.getResults()) {
    if (!e.isFunctionOfDim(loop)) {
      indices.push_back(Kind::Uniform);
      continue;
    }
    strided |= !isUnitIn(e, getAffineDimExpr(loop, op.getContext()),
                         map.getNumDims(), map.getNumSymbols());
    indices.push_back(Kind::Unit);
  }
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  if (strided || llvm::count(indices, Kind::Unit) > 1) {
    // Read through its map at each iteration (a gather), if allowed.
    if (!gather || !type)
      return std::nullopt;
    gathers.insert(v);
    return kinds[v] = Kind::Lanes;
  }
  std::optional<Kind> kind =
      type ? classifyLoad(v, type, indices) : std::optional<Kind>();
  if (kind)
    kinds[v] = *kind;
  return kind;
}

bool VectorReplay::classifyBlock(Block &block) {
  for (Operation &nested : block)
    if (!isa<scf::YieldOp>(nested) && !classify(&nested))
      return false;
  return true;
}

std::optional<Kind> VectorReplay::classify(Operation *bodyOp) {
  auto set = [&](Kind k) -> std::optional<Kind> {
    for (Value r : bodyOp->getResults())
      kinds[r] = k;
    return k;
  };
  if (auto index = dyn_cast<linalg::IndexOp>(bodyOp))
    return set(index.getDim() == loop ? Kind::Unit : Kind::Uniform);
  SmallVector<Kind> operands;
  for (Value v : bodyOp->getOperands()) {
    std::optional<Kind> k = kindOf(v);
    if (!k)
      return std::nullopt;
    operands.push_back(*k);
  }
  auto count = [&](Kind k) { return llvm::count(operands, k); };
  if (std::optional<Kind> bound = classifyBound(bodyOp, operands))
    return set(*bound);
  if (count(Kind::Bound) && !isa<scf::IfOp>(bodyOp))
    return std::nullopt;
  if (auto ifOp = dyn_cast<scf::IfOp>(bodyOp)) {
    if (operands[0] == Kind::Bound) {
      // Each element is read on its own where the condition does not hold
      // for the whole vector: nothing in the branches may be a vector.
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(ifOp->getRegions(), above);
      for (Value v : above) {
        std::optional<Kind> k = kindOf(v);
        auto arg = dyn_cast<BlockArgument>(v);
        if (!k || *k == Kind::Lanes || (arg && arg.getOwner() == body))
          return std::nullopt;
      }
    } else if (operands[0] != Kind::Uniform) {
      return std::nullopt;
    }
    if (!classifyBlock(*ifOp.thenBlock()) ||
        (ifOp.elseBlock() && !classifyBlock(*ifOp.elseBlock())))
      return std::nullopt;
    for (auto [i, r] : llvm::enumerate(ifOp.getResults())) {
      // Under a Bound condition even values Uniform in both branches
      // differ between iterations.
      Kind k = operands[0] == Kind::Bound ? Kind::Lanes : Kind::Uniform;
      if (k == Kind::Lanes && !r.getType().isIntOrFloat())
        return std::nullopt;
      for (Block *blk : {ifOp.thenBlock(), ifOp.elseBlock()}) {
        std::optional<Kind> y = kindOf(blk->getTerminator()->getOperand(i));
        if (!y || *y == Kind::Unit)
          return std::nullopt;
        if (*y == Kind::Lanes)
          k = Kind::Lanes;
      }
      kinds[r] = k;
    }
    return Kind::Uniform; // per result, above
  }
  if (bodyOp->getNumRegions() != 0) {
    // Any other op with regions: only if nothing in it sees the loop.
    llvm::SetVector<Value> above;
    for (Region &region : bodyOp->getRegions())
      getUsedValuesDefinedAbove(region, above);
    for (Value v : above) {
      std::optional<Kind> k = kindOf(v);
      if (!k || *k != Kind::Uniform)
        return std::nullopt;
    }
  }
  if (count(Kind::Uniform) == static_cast<int64_t>(operands.size()))
    return set(Kind::Uniform);
  if (auto load = dyn_cast<memref::LoadOp>(bodyOp)) {
    std::optional<Kind> k = classifyLoad(load.getResult(), load.getMemRefType(),
                                         ArrayRef(operands).drop_front());
    return k ? set(*k) : k;
  }
  if (isa<arith::AddIOp>(bodyOp) && count(Kind::Unit) == 1 &&
      count(Kind::Lanes) == 0)
    return set(Kind::Unit);
  if (isa<arith::SubIOp>(bodyOp) && operands[0] == Kind::Unit &&
      operands[1] == Kind::Uniform)
    return set(Kind::Unit);
  if (auto apply = dyn_cast<affine::AffineApplyOp>(bodyOp)) {
    if (count(Kind::Unit) != 1 || count(Kind::Lanes) != 0)
      return std::nullopt;
    AffineMap map = apply.getAffineMap();
    unsigned pos = llvm::find(operands, Kind::Unit) - operands.begin();
    AffineExpr e =
        pos < map.getNumDims()
            ? getAffineDimExpr(pos, op.getContext())
            : getAffineSymbolExpr(pos - map.getNumDims(), op.getContext());
    if (!isUnitIn(map.getResult(0), e, map.getNumDims(), map.getNumSymbols()))
      return std::nullopt;
    return set(Kind::Unit);
  }
  // Element-wise arithmetic on Lanes (and Uniform) values.
  if (bodyOp->hasTrait<OpTrait::Elementwise>() && count(Kind::Unit) == 0 &&
      bodyOp->getNumResults() == 1 && bodyOp->getNumRegions() == 0 &&
      bodyOp->getResult(0).getType().isIntOrFloat())
    return set(Kind::Lanes);
  return std::nullopt;
}

/// Bound conditions: a comparison that holds on an interval of the loop
/// (`x < c`, `x >= c`, ... with x Unit and c Uniform; not unsigned `>`,
/// which wraps at 0), or a conjunction of Bound and Uniform conditions.
std::optional<Kind> VectorReplay::classifyBound(Operation *bodyOp,
                                                ArrayRef<Kind> operands) {
  if (isa<arith::AndIOp>(bodyOp) && llvm::is_contained(operands, Kind::Bound) &&
      llvm::all_of(operands, [](Kind k) {
        return k == Kind::Bound || k == Kind::Uniform;
      }))
    return Kind::Bound;
  auto cmp = dyn_cast<arith::CmpIOp>(bodyOp);
  if (!cmp || !llvm::is_contained(operands, Kind::Unit) ||
      !llvm::is_contained(operands, Kind::Uniform))
    return std::nullopt;
  using P = arith::CmpIPredicate;
  switch (cmp.getPredicate()) {
  case P::slt:
  case P::sle:
  case P::sgt:
  case P::sge:
  case P::ult:
  case P::ule:
    return Kind::Bound;
  default:
    return std::nullopt;
  }
}

bool VectorReplay::analyze() {
  for (Operation *bodyOp : ops)
    if (!classify(bodyOp))
      return false;
  std::optional<Kind> k = kindOf(value);
  return k && *k != Kind::Unit;
}

Value VectorReplay::loadLanes(OpBuilder &b, Location loc, Value load,
                              Value memref, ValueRange indices) {
  auto type = VectorType::get({width}, load.getType());
  int64_t d = unitDim(load);
  if (!gathers.contains(load))
    return loadAlong(b, loc, type, memref, indices, d);
  SmallVector<Value> elements;
  SmallVector<Value> at(indices);
  for (int64_t i = 0; i < width; ++i) {
    at[d] =
        i == 0
            ? indices[d]
            : arith::AddIOp::create(b, loc, indices[d],
                                    arith::ConstantIndexOp::create(b, loc, i));
    elements.push_back(memref::LoadOp::create(b, loc, memref, at));
  }
  return vector::FromElementsOp::create(b, loc, type, elements);
}

Value VectorReplay::vector(OpBuilder &b, Location loc, Value v) {
  if (auto it = vectors.find(v); it != vectors.end())
    return it->second;
  Value s = scalar(v);
  return vector::BroadcastOp::create(b, loc,
                                     VectorType::get({width}, s.getType()), s);
}

void VectorReplay::mapArg(OpBuilder &b, Location loc, BlockArgument arg) {
  if (mapping.contains(arg) || vectors.count(arg))
    return;
  OpOperand &operand = op->getOpOperand(arg.getArgNumber());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  auto indicesAt = [&](ValueRange at) {
    SmallVector<Value> indices;
    for (AffineExpr e : map.getResults())
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, e), at));
    return indices;
  };
  if (gathers.contains(arg)) {
    SmallVector<Value> elements, at(coords);
    for (int64_t i = 0; i < width; ++i) {
      if (i != 0)
        at[loop] = arith::AddIOp::create(
            b, loc, coords[loop], arith::ConstantIndexOp::create(b, loc, i));
      elements.push_back(
          memref::LoadOp::create(b, loc, operand.get(), indicesAt(at)));
    }
    vectors[arg] = vector::FromElementsOp::create(
        b, loc, VectorType::get({width}, arg.getType()), elements);
    return;
  }
  SmallVector<Value> indices = indicesAt(coords);
  if (kinds.lookup(arg) == Kind::Lanes) {
    vectors[arg] = loadLanes(b, loc, arg, operand.get(), indices);
    return;
  }
  mapping.map(arg, memref::LoadOp::create(b, loc, operand.get(), indices));
}

void VectorReplay::mapArgsUsedBy(OpBuilder &b, Location loc,
                                 Operation *bodyOp) {
  auto visit = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body)
      mapArg(b, loc, arg);
  };
  for (Value v : bodyOp->getOperands())
    visit(v);
  llvm::SetVector<Value> above;
  for (Region &region : bodyOp->getRegions())
    getUsedValuesDefinedAbove(region, above);
  for (Value v : above)
    visit(v);
}

/// The value of Unit or Bound `v` at the vector's iteration `offset`
/// (Uniform values are the same at every iteration).
Value VectorReplay::atOffset(OpBuilder &b, Location loc, Value v,
                             int64_t offset) {
  Kind k = kinds.lookup(v);
  if (offset == 0 || k == Kind::Uniform)
    return scalar(v);
  if (k == Kind::Unit)
    return arith::AddIOp::create(
        b, loc, scalar(v), arith::ConstantIndexOp::create(b, loc, offset));
  Operation *def = v.getDefiningOp();
  IRMapping at;
  for (Value operand : def->getOperands())
    at.map(operand, atOffset(b, loc, operand, offset));
  return b.clone(*def, at)->getResult(0);
}

/// The branch `from` of `ifOp` into `to`, its Lanes values as vectors.
void VectorReplay::fillVectorBranch(OpBuilder &b, Location loc, Block *from,
                                    Block *to, scf::IfOp ifOp) {
  OpBuilder ib = OpBuilder::atBlockEnd(to);
  for (Operation &nested : *from) {
    if (auto yield = dyn_cast<scf::YieldOp>(nested)) {
      SmallVector<Value> values;
      for (auto [v, r] : llvm::zip(yield.getOperands(), ifOp.getResults()))
        values.push_back(kinds.lookup(r) == Kind::Lanes ? vector(ib, loc, v)
                                                        : scalar(v));
      scf::YieldOp::create(ib, loc, values);
      continue;
    }
    replayOp(ib, loc, &nested);
  }
}

/// An scf.if on a Bound condition: where it holds at the vector's first
/// and last iteration, it holds at all of them and the then branch is read
/// as vectors; elsewhere each iteration runs the original scf.if at its
/// own position, and the Lanes results are gathered into vectors.
void VectorReplay::replayBoundIf(OpBuilder &b, Location loc, scf::IfOp ifOp) {
  Value cond = ifOp.getCondition();
  Value whole = arith::AndIOp::create(b, loc, atOffset(b, loc, cond, 0),
                                      atOffset(b, loc, cond, width - 1));
  SmallVector<Type> types;
  for (Value r : ifOp.getResults())
    types.push_back(kinds.lookup(r) == Kind::Lanes
                        ? VectorType::get({width}, r.getType())
                        : r.getType());
  auto newIf = scf::IfOp::create(b, loc, types, whole, /*withElseRegion=*/true);
  for (Block *blk : {newIf.thenBlock(), newIf.elseBlock()})
    if (!blk->empty())
      blk->getTerminator()->erase();
  fillVectorBranch(b, loc, ifOp.thenBlock(), newIf.thenBlock(), ifOp);

  OpBuilder eb = OpBuilder::atBlockEnd(newIf.elseBlock());
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(ifOp->getRegions(), above);
  SmallVector<SmallVector<Value>> elements(ifOp.getNumResults());
  for (int64_t i = 0; i < width; ++i) {
    IRMapping at;
    for (Value v : above)
      at.map(v, atOffset(eb, loc, v, i));
    at.map(cond, atOffset(eb, loc, cond, i));
    Operation *one = eb.clone(*ifOp, at);
    for (auto [r, e] : llvm::zip(one->getResults(), elements))
      e.push_back(r);
  }
  SmallVector<Value> yielded;
  for (auto [r, e, t] : llvm::zip(ifOp.getResults(), elements, types))
    yielded.push_back(
        kinds.lookup(r) == Kind::Lanes
            ? vector::FromElementsOp::create(eb, loc, cast<VectorType>(t), e)
                  .getResult()
            : e.front());
  scf::YieldOp::create(eb, loc, yielded);
  for (auto [r, n] : llvm::zip(ifOp.getResults(), newIf.getResults())) {
    if (kinds.lookup(r) == Kind::Lanes)
      vectors[r] = n;
    else
      mapping.map(r, n);
  }
}

void VectorReplay::replayIf(OpBuilder &b, Location loc, scf::IfOp ifOp) {
  if (kinds.lookup(ifOp.getCondition()) == Kind::Bound)
    return replayBoundIf(b, loc, ifOp);
  SmallVector<Type> types;
  for (Value r : ifOp.getResults())
    types.push_back(kinds.lookup(r) == Kind::Lanes
                        ? VectorType::get({width}, r.getType())
                        : r.getType());
  auto newIf = scf::IfOp::create(b, loc, types, scalar(ifOp.getCondition()),
                                 /*withElseRegion=*/ifOp.elseBlock());
  // scf.if's builder adds empty yields to results-less regions only.
  for (Block *blk : {newIf.thenBlock(), newIf.elseBlock()})
    if (blk && !blk->empty())
      blk->getTerminator()->erase();
  fillVectorBranch(b, loc, ifOp.thenBlock(), newIf.thenBlock(), ifOp);
  if (ifOp.elseBlock())
    fillVectorBranch(b, loc, ifOp.elseBlock(), newIf.elseBlock(), ifOp);
  for (auto [r, n] : llvm::zip(ifOp.getResults(), newIf.getResults())) {
    if (kinds.lookup(r) == Kind::Lanes)
      vectors[r] = n;
    else
      mapping.map(r, n);
  }
}

void VectorReplay::replayOp(OpBuilder &b, Location loc, Operation *bodyOp) {
  if (auto index = dyn_cast<linalg::IndexOp>(bodyOp)) {
    mapping.map(index.getResult(), coords[index.getDim()]);
    return;
  }
  mapArgsUsedBy(b, loc, bodyOp);
  bool lanes = llvm::any_of(bodyOp->getResults(), [&](Value r) {
    return kinds.lookup(r) == Kind::Lanes;
  });
  if (!lanes) {
    b.clone(*bodyOp, mapping);
    return;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(bodyOp))
    return replayIf(b, loc, ifOp);
  Type elem = bodyOp->getResult(0).getType();
  VectorType type = VectorType::get({width}, elem);
  if (auto load = dyn_cast<memref::LoadOp>(bodyOp)) {
    SmallVector<Value> indices;
    for (Value i : load.getIndices())
      indices.push_back(scalar(i));
    vectors[load.getResult()] =
        loadLanes(b, loc, load.getResult(), scalar(load.getMemRef()), indices);
    return;
  }
  OperationState state(loc, bodyOp->getName());
  for (Value v : bodyOp->getOperands())
    state.addOperands(vector(b, loc, v));
  state.addTypes(type);
  state.addAttributes(bodyOp->getAttrs());
  vectors[bodyOp->getResult(0)] = b.create(state)->getResult(0);
}

Value VectorReplay::replay(OpBuilder &b, Location loc, ValueRange at,
                           int64_t w) {
  coords = at;
  width = w;
  for (Operation *bodyOp : ops)
    replayOp(b, loc, bodyOp);
  if (auto arg = dyn_cast<BlockArgument>(value))
    mapArg(b, loc, arg);
  return vector(b, loc, value);
}

} // namespace

bool mlir::boo::canReplayAlong(linalg::GenericOp op, ArrayRef<Operation *> ops,
                               Value value, unsigned loop, bool gather) {
  return VectorReplay(op, ops, value, loop, gather).analyze();
}

Value mlir::boo::replayAlong(OpBuilder &b, Location loc, linalg::GenericOp op,
                             ArrayRef<Operation *> ops, Value value,
                             ValueRange coords, unsigned loop, int64_t width,
                             bool gather) {
  VectorReplay replay(op, ops, value, loop, gather);
  bool ok = replay.analyze();
  assert(ok && "check canReplayAlong first");
  (void)ok;
  return replay.replay(b, loc, coords, width);
}

bool mlir::boo::canMaterializeFactorVector(linalg::GenericOp op,
                                           const MMAKernel::Factor &f,
                                           unsigned loop) {
  return canReplayAlong(op, f.ops.getArrayRef(), f.value, loop,
                        /*gather=*/false);
}

Value mlir::boo::materializeFactorVector(OpBuilder &b, Location loc,
                                         linalg::GenericOp op,
                                         const MMAKernel::Factor &f,
                                         ValueRange coords, unsigned loop,
                                         int64_t width) {
  return replayAlong(b, loc, op, f.ops.getArrayRef(), f.value, coords, loop,
                     width, /*gather=*/false);
}
