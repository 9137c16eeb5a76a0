//===- GPUInlineReads.cpp - Reads through data movement as guarded loads --===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-convert-to-linalg expresses padding, zero-stuffing (backward data),
// group reshapes and the filter flip as tensor ops and small generics that
// feed the convolution generic. On the CPU they are materialized. On the GPU
// a kernel must not materialize them: a padded input copied per thread tile
// would live in scratch memory, and one materialized on the host would be
// host code touching device memory. So every read through such a chain is
// rewritten into index arithmetic on the chain's source plus a bounds check:
//
//   %v = tensor.extract %padded[%i]          (conceptually)
// becomes
//   %j = %i - low
//   %v = scf.if (0 <= %j < size) { tensor.extract %x[%j] } else { pad value }
//
// inside the consuming generic's body, at the point of use.
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {

bool allStatic(ArrayRef<int64_t> values) {
  return llvm::none_of(values, ShapedType::isDynamic);
}

/// An all-parallel generic whose result element at `i` depends only on
/// input elements at indices computed from `i`: a copy with a permuted or
/// flipped map, a cast, or a fill written as a generic.
bool isIndexGeneric(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0)
    return false;
  OpOperand *init = generic.getDpsInitOperand(0);
  if (!generic.getMatchingIndexingMap(init).isPermutation() ||
      generic.payloadUsesValueFromOperand(init))
    return false;
  return llvm::all_of(
      generic.getBody()->without_terminator(), [](Operation &bodyOp) {
        return bodyOp.getNumRegions() == 0 &&
               (isPure(&bodyOp) || isa<linalg::IndexOp>(bodyOp));
      });
}

bool isInlinablePad(tensor::PadOp pad) {
  return pad.getConstantPaddingValue() && allStatic(pad.getStaticLow()) &&
         allStatic(pad.getStaticHigh()) && pad.getSourceType().hasStaticShape();
}

bool isInlinableInsert(tensor::InsertSliceOp insert) {
  return allStatic(insert.getStaticOffsets()) &&
         allStatic(insert.getStaticSizes()) &&
         allStatic(insert.getStaticStrides());
}

/// True if reading `value` would materialize a pad or insert_slice.
bool chainMaterializes(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (auto pad = dyn_cast<tensor::PadOp>(def))
    return isInlinablePad(pad);
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(def))
    return isInlinableInsert(insert);
  if (isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
          tensor::CollapseShapeOp>(def))
    return chainMaterializes(def->getOperand(0));
  if (isIndexGeneric(def))
    return llvm::any_of(cast<linalg::GenericOp>(def).getDpsInputs(),
                        chainMaterializes);
  return false;
}

/// The producer of `value` after looking through reshapes and slices.
Operation *producerThroughViews(Value value) {
  Operation *def = value.getDefiningOp();
  while (isa_and_nonnull<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
                         tensor::CollapseShapeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  return def;
}

/// Builds the element of a tensor at an index through its producer chain.
class ReadBuilder {
public:
  ReadBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  Value read(Value tensor, ArrayRef<Value> index) {
    Operation *def = tensor.getDefiningOp();
    if (auto pad = dyn_cast_or_null<tensor::PadOp>(def);
        pad && isInlinablePad(pad))
      return readPad(pad, index);
    if (auto insert = dyn_cast_or_null<tensor::InsertSliceOp>(def);
        insert && isInlinableInsert(insert))
      return readInsert(insert, index);
    if (auto extract = dyn_cast_or_null<tensor::ExtractSliceOp>(def);
        extract && allStatic(extract.getStaticOffsets()) &&
        allStatic(extract.getStaticStrides()))
      return readExtract(extract, index);
    if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def);
        expand && expand.getResultType().hasStaticShape())
      return readExpand(expand, index);
    if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def);
        collapse && collapse.getSrcType().hasStaticShape())
      return readCollapse(collapse, index);
    if (auto fill = dyn_cast_or_null<linalg::FillOp>(def);
        fill && fill.value().getType() == getElementTypeOrSelf(tensor))
      return fill.value();
    if (isIndexGeneric(def))
      return readGeneric(cast<linalg::GenericOp>(def),
                         cast<OpResult>(tensor).getResultNumber(), index);
    return tensor::ExtractOp::create(b, loc, tensor, index);
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  Value andAll(ArrayRef<Value> conditions) {
    Value all;
    for (Value c : conditions)
      all = all ? arith::AndIOp::create(b, loc, all, c).getResult() : c;
    return all;
  }

  /// `0 <= v < size`.
  Value inRange(Value v, int64_t size) {
    Value lo =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v, cst(0));
    Value hi =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, cst(size));
    return arith::AndIOp::create(b, loc, lo, hi);
  }

  /// `cond ? thenFn() : elseFn()`, with the reads under the branch so that
  /// no load is out of bounds.
  Value select(Value cond, function_ref<Value()> thenFn,
               function_ref<Value()> elseFn) {
    if (!cond)
      return thenFn();
    auto ifOp = scf::IfOp::create(
        b, loc, cond,
        [&](OpBuilder &, Location) { scf::YieldOp::create(b, loc, thenFn()); },
        [&](OpBuilder &, Location) { scf::YieldOp::create(b, loc, elseFn()); });
    b.setInsertionPointAfter(ifOp);
    return ifOp.getResult(0);
  }

  Value readPad(tensor::PadOp pad, ArrayRef<Value> index) {
    ArrayRef<int64_t> shape = pad.getSourceType().getShape();
    SmallVector<Value> sourceIndex, conditions;
    for (auto [i, idx] : llvm::enumerate(index)) {
      int64_t low = pad.getStaticLow()[i], high = pad.getStaticHigh()[i];
      Value j =
          low ? arith::SubIOp::create(b, loc, idx, cst(low)).getResult() : idx;
      sourceIndex.push_back(j);
      if (low != 0 || high != 0)
        conditions.push_back(inRange(j, shape[i]));
    }
    Value padValue = pad.getConstantPaddingValue();
    return select(
        andAll(conditions), [&] { return read(pad.getSource(), sourceIndex); },
        [&] { return padValue; });
  }

  Value readInsert(tensor::InsertSliceOp insert, ArrayRef<Value> index) {
    ArrayRef<int64_t> offsets = insert.getStaticOffsets();
    ArrayRef<int64_t> sizes = insert.getStaticSizes();
    ArrayRef<int64_t> strides = insert.getStaticStrides();
    std::optional<llvm::SmallDenseSet<unsigned>> dropped =
        computeRankReductionMask(sizes, insert.getSourceType().getShape());
    SmallVector<Value> sourceIndex, conditions;
    for (auto [i, idx] : llvm::enumerate(index)) {
      Value rel =
          offsets[i]
              ? arith::SubIOp::create(b, loc, idx, cst(offsets[i])).getResult()
              : idx;
      // Inside the slice: 0 <= rel <= (size-1)*stride, rel % stride == 0.
      if (offsets[i] != 0 || sizes[i] != insert.getDestType().getDimSize(i) ||
          strides[i] != 1)
        conditions.push_back(inRange(rel, (sizes[i] - 1) * strides[i] + 1));
      Value sourceIdx = rel;
      if (strides[i] != 1) {
        Value rem = arith::RemSIOp::create(b, loc, rel, cst(strides[i]));
        conditions.push_back(arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq, rem, cst(0)));
        sourceIdx = arith::DivSIOp::create(b, loc, rel, cst(strides[i]));
      }
      if (!dropped || !dropped->contains(i))
        sourceIndex.push_back(sourceIdx);
    }
    return select(
        andAll(conditions),
        [&] { return read(insert.getSource(), sourceIndex); },
        [&] { return read(insert.getDest(), index); });
  }

  Value readExtract(tensor::ExtractSliceOp extract, ArrayRef<Value> index) {
    ArrayRef<int64_t> offsets = extract.getStaticOffsets();
    ArrayRef<int64_t> strides = extract.getStaticStrides();
    llvm::SmallBitVector dropped = extract.getDroppedDims();
    SmallVector<Value> sourceIndex;
    size_t next = 0;
    for (size_t i = 0, e = offsets.size(); i < e; ++i) {
      if (dropped.test(i)) {
        sourceIndex.push_back(cst(offsets[i]));
        continue;
      }
      Value idx = index[next++];
      if (strides[i] != 1)
        idx = arith::MulIOp::create(b, loc, idx, cst(strides[i]));
      if (offsets[i] != 0)
        idx = arith::AddIOp::create(b, loc, idx, cst(offsets[i]));
      sourceIndex.push_back(idx);
    }
    return read(extract.getSource(), sourceIndex);
  }

  Value readExpand(tensor::ExpandShapeOp expand, ArrayRef<Value> index) {
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    SmallVector<Value> sourceIndex;
    for (ReassociationIndices group : expand.getReassociationIndices()) {
      Value linear = index[group.front()];
      for (int64_t d : ArrayRef<int64_t>(group).drop_front()) {
        linear = arith::MulIOp::create(b, loc, linear, cst(shape[d]));
        linear = arith::AddIOp::create(b, loc, linear, index[d]);
      }
      sourceIndex.push_back(linear);
    }
    return read(expand.getSrc(), sourceIndex);
  }

  Value readCollapse(tensor::CollapseShapeOp collapse, ArrayRef<Value> index) {
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    SmallVector<Value> sourceIndex(shape.size());
    for (auto [g, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      Value linear = index[g];
      for (int64_t d : llvm::reverse(ArrayRef<int64_t>(group).drop_front())) {
        sourceIndex[d] = arith::RemUIOp::create(b, loc, linear, cst(shape[d]));
        linear = arith::DivUIOp::create(b, loc, linear, cst(shape[d]));
      }
      sourceIndex[group.front()] = linear;
    }
    return read(collapse.getSrc(), sourceIndex);
  }

  /// Evaluates the generic's body for the loop point whose output index is
  /// `index`, reading its inputs through their own chains.
  Value readGeneric(linalg::GenericOp generic, unsigned resultNumber,
                    ArrayRef<Value> index) {
    AffineMap outputMap =
        generic.getIndexingMapMatchingResult(generic->getResult(resultNumber));
    SmallVector<Value> loops(generic.getNumLoops());
    for (auto [pos, expr] : llvm::enumerate(outputMap.getResults()))
      loops[cast<AffineDimExpr>(expr).getPosition()] = index[pos];

    IRMapping mapping;
    Block *body = generic.getBody();
    for (OpOperand *input : generic.getDpsInputOperands()) {
      AffineMap map = generic.getMatchingIndexingMap(input);
      SmallVector<Value> inputIndex;
      for (AffineExpr expr : map.getResults()) {
        OpFoldResult v = affine::makeComposedFoldedAffineApply(
            b, loc, AffineMap::get(map.getNumDims(), 0, expr),
            getAsOpFoldResult(ValueRange(loops)));
        inputIndex.push_back(getValueOrCreateConstantIndexOp(b, loc, v));
      }
      Value element = generic.payloadUsesValueFromOperand(input)
                          ? read(input->get(), inputIndex)
                          : Value();
      mapping.map(body->getArgument(input->getOperandNumber()), element);
    }
    for (Operation &bodyOp : body->without_terminator()) {
      if (auto indexOp = dyn_cast<linalg::IndexOp>(bodyOp)) {
        mapping.map(indexOp.getResult(), loops[indexOp.getDim()]);
        continue;
      }
      b.clone(bodyOp, mapping);
    }
    return mapping.lookupOrDefault(
        body->getTerminator()->getOperand(resultNumber));
  }

  OpBuilder &b;
  Location loc;
};

} // namespace

linalg::GenericOp
mlir::boo::inlineDataMovementReads(RewriterBase &rewriter,
                                   linalg::GenericOp consumer) {
  SmallVector<OpOperand *> toInline;
  for (OpOperand *input : consumer.getDpsInputOperands()) {
    if (!isa<RankedTensorType>(input->get().getType()))
      continue;
    bool inline_ = chainMaterializes(input->get());
    if (!inline_ && isIndexGeneric(producerThroughViews(input->get()))) {
      // A fused index generic would be computed per thread for the whole
      // reduction extent (e.g. the flipped filter of backward data).
      AffineMap map = consumer.getMatchingIndexingMap(input);
      SmallVector<utils::IteratorType> iterators =
          consumer.getIteratorTypesArray();
      inline_ = llvm::any_of(map.getResults(), [&](AffineExpr expr) {
        for (unsigned d = 0; d < map.getNumDims(); ++d)
          if (expr.isFunctionOfDim(d) &&
              iterators[d] == utils::IteratorType::reduction)
            return true;
        return false;
      });
    }
    if (inline_)
      toInline.push_back(input);
  }
  if (toInline.empty())
    return consumer;

  Block *body = consumer.getBody();
  Location loc = consumer.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(body);
  SmallVector<Value> loops;
  for (int64_t d = 0, e = consumer.getNumLoops(); d < e; ++d)
    loops.push_back(linalg::IndexOp::create(rewriter, loc, d));

  SmallVector<int64_t> ranges = consumer.getStaticLoopRanges();
  llvm::SmallDenseSet<unsigned> inlined;
  for (OpOperand *input : toInline) {
    inlined.insert(input->getOperandNumber());
    BlockArgument arg = body->getArgument(input->getOperandNumber());
    if (arg.use_empty())
      continue;
    AffineMap map = consumer.getMatchingIndexingMap(input);
    SmallVector<Value> index;
    for (AffineExpr expr : map.getResults())
      index.push_back(affine::AffineApplyOp::create(
          rewriter, loc, AffineMap::get(map.getNumDims(), 0, expr), loops));
    ReadBuilder reads(rewriter, loc);
    rewriter.replaceAllUsesWith(arg, reads.read(input->get(), index));
  }

  // The new generic: the operands that remain, plus, for the loops no
  // remaining map defines (a convolution's filter taps may appear only in
  // the inlined reads), an empty "loop-bounds" operand of their static
  // extents. It is never read and bufferizes to an unused temporary.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : consumer.getDpsInputOperands())
    if (!inlined.contains(input->getOperandNumber())) {
      inputs.push_back(input->get());
      maps.push_back(consumer.getMatchingIndexingMap(input));
    }
  SmallVector<AffineMap> initMaps;
  for (OpOperand &init : consumer.getDpsInitsMutable())
    initMaps.push_back(consumer.getMatchingIndexingMap(&init));
  unsigned numLoops = consumer.getNumLoops();
  llvm::SmallBitVector defined(numLoops);
  for (AffineMap map : llvm::concat<AffineMap>(maps, initMaps))
    for (AffineExpr expr : map.getResults())
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        defined.set(dim.getPosition());
  SmallVector<AffineExpr> boundExprs;
  SmallVector<int64_t> boundShape;
  for (unsigned d = 0; d < numLoops; ++d)
    if (!defined.test(d)) {
      boundExprs.push_back(rewriter.getAffineDimExpr(d));
      boundShape.push_back(ranges[d]);
    }
  Type elementType = rewriter.getI8Type();
  rewriter.setInsertionPoint(consumer);
  if (!boundExprs.empty()) {
    inputs.push_back(
        tensor::EmptyOp::create(rewriter, loc, boundShape, elementType));
    maps.push_back(
        AffineMap::get(numLoops, 0, boundExprs, rewriter.getContext()));
  }
  llvm::append_range(maps, initMaps);
  auto replacement = linalg::GenericOp::create(
      rewriter, loc, consumer->getResultTypes(), inputs, consumer.getDpsInits(),
      maps, consumer.getIteratorTypesArray());
  // Keep the discardable attributes (a lowering config).
  for (NamedAttribute attr : consumer->getDiscardableAttrs())
    replacement->setDiscardableAttr(attr.getName(), attr.getValue());
  rewriter.inlineRegionBefore(consumer.getRegion(), replacement.getRegion(),
                              replacement.getRegion().end());
  Block *newBody = replacement.getBody();
  llvm::BitVector erase(newBody->getNumArguments());
  for (unsigned i : inlined)
    erase.set(i);
  newBody->eraseArguments(erase);
  if (!boundExprs.empty())
    newBody->insertArgument(inputs.size() - 1, elementType, loc);
  rewriter.replaceOp(consumer, replacement->getResults());
  return replacement;
}

std::optional<int64_t> mlir::boo::getLinearMappingId(Attribute mapping) {
  auto device = dyn_cast_or_null<DeviceMappingAttrInterface>(mapping);
  if (!device || !device.isLinearMapping())
    return std::nullopt;
  return device.getRelativeIndex();
}
