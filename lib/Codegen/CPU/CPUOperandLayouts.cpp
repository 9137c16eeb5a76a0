//===- CPUOperandLayouts.cpp - Operand copies of the CPU schedule ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "CPUOperandLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace {

/// `op` (a named copy, fill or transpose) as a generic appended to
/// `copies`; its result.
Value generalizeCopy(RewriterBase &rewriter, linalg::LinalgOp op,
                     SmallVectorImpl<linalg::GenericOp> &copies) {
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, op);
  if (failed(generic))
    return op->getResult(0);
  copies.push_back(*generic);
  return (*generic)->getResult(0);
}

/// `type` with its dims in `perm` order (as linalg.transpose's result).
RankedTensorType permutedType(RankedTensorType type, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return RankedTensorType::get(shape, type.getElementType());
}

/// `value` copied into a tensor whose dims are its dims in `perm` order
/// (as linalg.transpose), as a generic appended to `copies`.
Value transposeCopy(RewriterBase &rewriter, Location loc, Value value,
                    ArrayRef<int64_t> perm,
                    SmallVectorImpl<linalg::GenericOp> &copies) {
  RankedTensorType type =
      permutedType(cast<RankedTensorType>(value.getType()), perm);
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType());
  auto transpose =
      linalg::TransposeOp::create(rewriter, loc, value, init, perm);
  return generalizeCopy(rewriter, transpose, copies);
}

/// As transposeCopy, but a value padded with a constant (tensor.pad) is
/// transposed before it is padded, so the copy reads and writes the
/// unpadded extents (the pad's rows are rarely multiples of a register).
Value transposePadded(RewriterBase &rewriter, Location loc, Value value,
                      ArrayRef<int64_t> perm,
                      SmallVectorImpl<linalg::GenericOp> &copies) {
  auto pad = value.getDefiningOp<tensor::PadOp>();
  Value padValue = pad ? pad.getConstantPaddingValue() : Value();
  if (!padValue || !pad.getResultType().hasStaticShape())
    return transposeCopy(rewriter, loc, value, perm, copies);
  Value source = transposeCopy(rewriter, loc, pad.getSource(), perm, copies);
  SmallVector<OpFoldResult> low, high;
  for (int64_t p : perm) {
    low.push_back(pad.getMixedLowPad()[p]);
    high.push_back(pad.getMixedHighPad()[p]);
  }
  return tensor::PadOp::create(rewriter, loc,
                               permutedType(pad.getResultType(), perm), source,
                               low, high, padValue);
}

/// The permutation that moves dim `pos` of a rank-`rank` value innermost.
SmallVector<int64_t> toInnermost(unsigned rank, unsigned pos) {
  SmallVector<int64_t> perm;
  for (unsigned i = 0; i < rank; ++i)
    if (i != pos)
      perm.push_back(i);
  perm.push_back(pos);
  return perm;
}

/// `map`'s results in `perm` order.
AffineMap permuteResults(AffineMap map, ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> results;
  for (int64_t p : perm)
    results.push_back(map.getResult(p));
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

/// The position of the plain result `d` of `map`, if it has one.
std::optional<unsigned> resultOf(AffineMap map, unsigned d) {
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(e); dim && dim.getPosition() == d)
      return i;
  return std::nullopt;
}

/// Whether the dims of `type` after `pos` all have extent 1.
bool innermostBut1s(RankedTensorType type, unsigned pos) {
  return llvm::all_of(type.getShape().drop_front(pos + 1),
                      [](int64_t size) { return size == 1; });
}

/// The loops of `op` that appear in a windowed input access (a map result
/// with two or more loops, such as `oh * s + kh * d`).
llvm::SmallDenseSet<unsigned> windowedLoops(linalg::GenericOp op) {
  llvm::SmallDenseSet<unsigned> windowed;
  for (OpOperand *operand : op.getDpsInputOperands())
    for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults()) {
      if (isa<AffineDimExpr, AffineConstantExpr>(e))
        continue;
      e.walk([&](AffineExpr sub) {
        if (auto d = dyn_cast<AffineDimExpr>(sub))
          windowed.insert(d.getPosition());
      });
    }
  return windowed;
}

} // namespace

linalg::GenericOp mlir::boo::copyThrough(RewriterBase &rewriter, Location loc,
                                         Value input, AffineMap readMap,
                                         RankedTensorType type) {
  unsigned rank = type.getRank();
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType());
  return linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, input, init,
      ArrayRef<AffineMap>{readMap, rewriter.getMultiDimIdentityMap(rank)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, args[0]);
      });
}

Value mlir::boo::extractSliceAlong(RewriterBase &rewriter, Location loc,
                                   Value value, unsigned pos, int64_t offset,
                                   int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
  offsets[pos] = rewriter.getIndexAttr(offset);
  SmallVector<OpFoldResult> sizes =
      getAsIndexOpFoldResult(rewriter.getContext(), type.getShape());
  sizes[pos] = rewriter.getIndexAttr(size);
  SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(rewriter, loc, value, offsets, sizes,
                                        strides);
}

Value mlir::boo::insertSliceAlong(RewriterBase &rewriter, Location loc,
                                  Value piece, Value dest, unsigned pos,
                                  int64_t offset) {
  auto type = cast<RankedTensorType>(piece.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
  offsets[pos] = rewriter.getIndexAttr(offset);
  SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
  return tensor::InsertSliceOp::create(
      rewriter, loc, piece, dest, offsets,
      getAsIndexOpFoldResult(rewriter.getContext(), type.getShape()), strides);
}

bool mlir::boo::isRefillable(Value value) {
  auto fill = value.getDefiningOp<linalg::GenericOp>();
  return fill && isFill(fill) && fill.getNumDpsInputs() == 0 &&
         fill.getMatchingIndexingMap(fill.getDpsInitOperand(0)).isIdentity() &&
         llvm::hasSingleElement(fill.getBody()->getOperations());
}

Value mlir::boo::refill(RewriterBase &rewriter, Value value,
                        RankedTensorType type,
                        SmallVectorImpl<linalg::GenericOp> &copies) {
  if (!isRefillable(value))
    return nullptr;
  auto fill = value.getDefiningOp<linalg::GenericOp>();
  Location loc = fill.getLoc();
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType());
  AffineMap id = rewriter.getMultiDimIdentityMap(type.getRank());
  auto copy = linalg::GenericOp::create(
      rewriter, loc, TypeRange{type}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{id}, fill.getIteratorTypesArray());
  IRMapping mapping;
  fill.getRegion().cloneInto(&copy.getRegion(), mapping);
  copies.push_back(copy);
  return copy.getResult(0);
}

std::pair<SmallVector<linalg::GenericOp>, Value> mlir::boo::computeInPieces(
    RewriterBase &rewriter, linalg::GenericOp op, ValueRange inputs, Value init,
    RankedTensorType outType, ArrayRef<std::optional<unsigned>> positions,
    ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iters,
    ArrayRef<std::pair<int64_t, int64_t>> pieces,
    SmallVectorImpl<linalg::GenericOp> &copies) {
  assert(isRefillable(init) && "each piece starts from a refill of init");
  Location loc = op.getLoc();
  unsigned outPos = *positions.back();
  Value result = tensor::EmptyOp::create(rewriter, loc, outType.getShape(),
                                         outType.getElementType());
  SmallVector<linalg::GenericOp> generics;
  for (auto [offset, size] : pieces) {
    SmallVector<Value> sliced;
    for (auto [input, pos] : llvm::zip(inputs, positions.drop_back()))
      sliced.push_back(
          pos ? extractSliceAlong(rewriter, loc, input, *pos, offset, size)
              : input);
    SmallVector<int64_t> shape(outType.getShape());
    shape[outPos] = size;
    Value pieceInit =
        refill(rewriter, init,
               RankedTensorType::get(shape, outType.getElementType()), copies);
    auto generic =
        linalg::GenericOp::create(rewriter, loc, TypeRange{pieceInit.getType()},
                                  sliced, ValueRange{pieceInit}, maps, iters);
    rewriter.cloneRegionBefore(op.getRegion(), generic.getRegion(),
                               generic.getRegion().begin());
    generics.push_back(generic);
    result = insertSliceAlong(rewriter, loc, generic.getResult(0), result,
                              outPos, offset);
  }
  return {generics, result};
}

int64_t mlir::boo::largestDivisor(int64_t n, int64_t limit) {
  for (int64_t t = std::min(n, limit); t > 1; --t)
    if (n % t == 0)
      return t;
  return 1;
}

FailureOr<mlir::boo::LinearExpr> mlir::boo::decomposeLinear(AffineExpr e) {
  LinearExpr out;
  SmallVector<AffineExpr> work = {e};
  while (!work.empty()) {
    AffineExpr x = work.pop_back_val();
    if (auto d = dyn_cast<AffineDimExpr>(x)) {
      out.terms.push_back({d.getPosition(), 1});
      continue;
    }
    if (auto c = dyn_cast<AffineConstantExpr>(x)) {
      out.constant += c.getValue();
      continue;
    }
    auto bin = dyn_cast<AffineBinaryOpExpr>(x);
    if (!bin)
      return failure();
    if (bin.getKind() == AffineExprKind::Add) {
      work.push_back(bin.getLHS());
      work.push_back(bin.getRHS());
      continue;
    }
    if (bin.getKind() == AffineExprKind::Mul) {
      auto d = dyn_cast<AffineDimExpr>(bin.getLHS());
      auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
      if (!d || !c || c.getValue() < 1)
        return failure();
      out.terms.push_back({d.getPosition(), c.getValue()});
      continue;
    }
    return failure();
  }
  return out;
}

bool mlir::boo::isFill(linalg::GenericOp op) {
  return op.getNumReductionLoops() == 0 && op.getNumDpsInits() == 1 &&
         llvm::none_of(op.getDpsInputs(),
                       [](Value v) { return isa<ShapedType>(v.getType()); }) &&
         !op.payloadUsesValueFromOperand(op.getDpsInitOperand(0));
}

std::optional<int64_t> mlir::boo::staticTensorBytes(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return std::nullopt;
  return t.getNumElements() * llvm::divideCeil(t.getElementTypeBitWidth(), 8);
}

bool mlir::boo::everyInputIndexedBy(linalg::GenericOp op, unsigned d) {
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *operand) {
    return op.getMatchingIndexingMap(operand).isFunctionOfDim(d);
  });
}

bool mlir::boo::moveInnermost(RewriterBase &rewriter, linalg::GenericOp op,
                               OpOperand *operand, unsigned d,
                               SmallVectorImpl<AffineMap> &maps,
                               SmallVectorImpl<linalg::GenericOp> &copies) {
  AffineMap map = maps[operand->getOperandNumber()];
  std::optional<unsigned> pos = resultOf(map, d);
  auto type = cast<RankedTensorType>(operand->get().getType());
  if (!pos || innermostBut1s(type, *pos))
    return false;
  SmallVector<int64_t> perm = toInnermost(map.getNumResults(), *pos);
  rewriter.setInsertionPoint(op);
  Value copy =
      transposePadded(rewriter, op.getLoc(), operand->get(), perm, copies);
  rewriter.modifyOpInPlace(op, [&]() { operand->set(copy); });
  maps[operand->getOperandNumber()] = permuteResults(map, perm);
  return true;
}

int64_t mlir::boo::getReaderExtent(linalg::GenericOp op, AffineMap map) {
  int64_t extent = 1;
  for (auto [d, range] : llvm::enumerate(op.getStaticLoopRanges()))
    if (op.getIteratorTypesArray()[d] == utils::IteratorType::parallel &&
        !map.isFunctionOfDim(d))
      extent *= range;
  return extent;
}

void mlir::boo::makeVectorDimContiguous(
    RewriterBase &rewriter, linalg::GenericOp op, unsigned vecDim,
    SmallVectorImpl<linalg::GenericOp> &copies) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *operand : op.getDpsInputOperands())
    changed |= moveInnermost(rewriter, op, operand, vecDim, maps, copies);
  if (changed)
    rewriter.modifyOpInPlace(op, [&]() {
      op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
}

/// A tensor type with dim `pos` split into (size / block, block), and the
/// reassociation that collapses it back.
struct DimSplit {
  RankedTensorType type;
  SmallVector<ReassociationIndices> reassociation;
};

static DimSplit splitDim(RankedTensorType type, unsigned pos, int64_t block) {
  DimSplit split;
  SmallVector<int64_t> shape;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
    ReassociationIndices group = {int64_t(shape.size())};
    if (i == int64_t(pos)) {
      shape.push_back(type.getDimSize(i) / block);
      group.push_back(int64_t(shape.size()));
      shape.push_back(block);
    } else {
      shape.push_back(type.getDimSize(i));
    }
    split.reassociation.push_back(group);
  }
  split.type = RankedTensorType::get(shape, type.getElementType());
  return split;
}

linalg::GenericOp
mlir::boo::blockVectorLoop(RewriterBase &rewriter, linalg::GenericOp op,
                           unsigned vecDim, int64_t block, int64_t slabMinBytes,
                           SmallVectorImpl<linalg::GenericOp> &copies) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t extent = ranges[vecDim];
  if (block <= 1 || extent <= block || extent % block != 0 ||
      op.hasIndexSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0)
    return op;
  // Every use of the loop must be a plain result, and some input must have
  // it elsewhere than innermost, or be a slab (below).
  bool transposed = false;
  SmallVector<bool> slabs;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (AffineExpr e : map.getResults())
      if (e.isFunctionOfDim(vecDim) && !isa<AffineDimExpr>(e))
        return op;
    std::optional<unsigned> pos = resultOf(map, vecDim);
    auto type = cast<RankedTensorType>(operand.get().getType());
    bool input = pos && op.isDpsInput(&operand);
    if (input && !innermostBut1s(type, *pos))
      transposed = true;
    // A slab: an input of at least slabMinBytes with the loop innermost,
    // in no window, and two or more reductions in its other dims (a KYXC
    // filter read along C by a backward-data convolution; not the image
    // of a merged 1x1 convolution, [C][positions], which lost 20-60%), or
    // one read by many rows of tiles (kMinSingleReductionSlabReaders). A tile
    // reads a few vectors of each of its rows, Y*X*C floats apart: 128 bytes of
    // every 2 KiB of the 3x3 512->512 filter, whose 9.4 MB every row of tiles
    // walks. Its blocks are made contiguous, [C/block][K][Y][X][block], and
    // packed one at a time where they are read.
    auto reductionDims = [&] {
      int64_t n = 0;
      for (auto [i, e] : llvm::enumerate(map.getResults()))
        n += type.getDimSize(i) > 1 &&
             llvm::any_of(llvm::seq<unsigned>(0, op.getNumLoops()),
                          [&](unsigned d) {
                            return e.isFunctionOfDim(d) &&
                                   op.getIteratorTypesArray()[d] ==
                                       utils::IteratorType::reduction;
                          });
      return n;
    };
    auto enoughReductions = [&] {
      int64_t n = reductionDims();
      return n >= 2 || (n == 1 && getReaderExtent(op, map) >=
                                      kMinSingleReductionSlabReaders);
    };
    bool slab = input && slabMinBytes > 0 && innermostBut1s(type, *pos) &&
                enoughReductions() &&
                type.getNumElements() * type.getElementTypeBitWidth() / 8 >=
                    slabMinBytes &&
                llvm::none_of(map.getResults(), [](AffineExpr e) {
                  int loops = 0;
                  e.walk([&](AffineExpr x) { loops += isa<AffineDimExpr>(x); });
                  return loops > 1;
                });
    slabs.push_back(slab);
  }
  // Where every input has the loop (a depthwise convolution), the filter
  // is small and read in step with the image: blocks gain nothing.
  if (!(transposed || llvm::is_contained(slabs, true)) ||
      everyInputIndexedBy(op, vecDim) ||
      !resultOf(op.getMatchingIndexingMap(op.getDpsInitOperand(0)), vecDim))
    return op;
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  unsigned numLoops = op.getNumLoops(), inner = numLoops;
  rewriter.setInsertionPoint(op);
  SmallVector<AffineMap> maps;
  SmallVector<Value> operands;
  DimSplit outSplit;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    std::optional<unsigned> pos = resultOf(map, vecDim);
    SmallVector<AffineExpr> results;
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      results.push_back(e);
      if (pos && i == *pos)
        results.push_back(getAffineDimExpr(inner, ctx));
    }
    maps.push_back(AffineMap::get(numLoops + 1, 0, results, ctx));
    Value value = operand.get();
    if (!pos) {
      operands.push_back(value);
      continue;
    }
    DimSplit split =
        splitDim(cast<RankedTensorType>(value.getType()), *pos, block);
    Value splitValue;
    if (!op.isDpsInput(&operand)) {
      outSplit = split;
      splitValue = refill(rewriter, value, split.type, copies);
    }
    if (!splitValue)
      splitValue = tensor::ExpandShapeOp::create(rewriter, loc, split.type,
                                                 value, split.reassociation);
    if (slabs[operand.getOperandNumber()]) {
      // The blocks outermost.
      SmallVector<int64_t> perm = {int64_t(*pos)};
      for (int64_t d = 0, e = split.type.getRank(); d < e; ++d)
        if (d != int64_t(*pos))
          perm.push_back(d);
      splitValue = transposeCopy(rewriter, loc, splitValue, perm, copies);
      maps.back() = permuteResults(maps.back(), perm);
    }
    operands.push_back(splitValue);
  }
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  iters.push_back(utils::IteratorType::parallel);
  Value init = operands.back();
  auto blocked = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()},
      ArrayRef<Value>(operands).drop_back(), ValueRange{init}, maps, iters);
  rewriter.inlineRegionBefore(op.getRegion(), blocked.getRegion(),
                              blocked.getRegion().begin());
  Value collapsed = tensor::CollapseShapeOp::create(
      rewriter, loc, op.getResult(0).getType(), blocked.getResult(0),
      outSplit.reassociation);
  rewriter.replaceOp(op, collapsed);
  return blocked;
}

/// The new vector loop of a repacked contraction (see
/// repackWindowedVectorLoop), if there is one.
static std::optional<unsigned>
chooseRepackedVectorLoop(linalg::GenericOp op,
                         const llvm::SmallDenseSet<unsigned> &windowed) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  // First among the loops some input lacks (the GEMM's N), else among all
  // (a depthwise convolution's groups, which every operand has).
  for (bool needLacking : {true, false}) {
    std::optional<unsigned> best;
    for (AffineExpr e : outMap.getResults()) {
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      bool someInputLacksIt =
          llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *operand) {
            return !op.getMatchingIndexingMap(operand).isFunctionOfDim(d);
          });
      if (windowed.contains(d) || ranges[d] <= 1 ||
          (needLacking && !someInputLacksIt))
        continue;
      if (!best || ranges[d] >= ranges[*best])
        best = d;
    }
    if (best)
      return best;
  }
  return std::nullopt;
}

/// The largest reduction loop of `map` that is one of its plain results
/// and in no window.
static std::optional<unsigned>
largestPlainReduction(linalg::GenericOp op, AffineMap map,
                      const llvm::SmallDenseSet<unsigned> &windowed) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  std::optional<unsigned> best;
  for (AffineExpr e : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      continue;
    unsigned d = dim.getPosition();
    if (iters[d] != utils::IteratorType::reduction || windowed.contains(d) ||
        ranges[d] <= 1)
      continue;
    if (!best || ranges[d] > ranges[*best])
      best = d;
  }
  return best;
}

linalg::GenericOp mlir::boo::repackWindowedVectorLoop(
    RewriterBase &rewriter, linalg::GenericOp op, unsigned vecDim,
    SmallVectorImpl<linalg::GenericOp> &copies) {
  llvm::SmallDenseSet<unsigned> windowed = windowedLoops(op);
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1 ||
      !windowed.contains(vecDim))
    return op;
  std::optional<unsigned> newVec = chooseRepackedVectorLoop(op, windowed);
  if (!newVec)
    return op;
  // Inputs without the new vector loop get their largest plain reduction
  // loop innermost. Windowed inputs with it (a depthwise convolution's
  // image) get it innermost, transposed before they are padded. Other
  // inputs with it (filters) are left to blockVectorLoop and
  // makeVectorDimContiguous, which the pass runs next: they put it
  // innermost, in blocks where it is longer than its tile.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = maps[operand->getOperandNumber()];
    if (resultOf(map, *newVec)) {
      bool isWindowed = llvm::any_of(map.getResults(), [](AffineExpr e) {
        return !isa<AffineDimExpr, AffineConstantExpr>(e);
      });
      if (isWindowed)
        moveInnermost(rewriter, op, operand, *newVec, maps, copies);
      continue;
    }
    if (std::optional<unsigned> red = largestPlainReduction(op, map, windowed))
      moveInnermost(rewriter, op, operand, *red, maps, copies);
  }
  // The result: computed with the new vector loop innermost, then copied
  // back. A fill as its initial value is made in the new layout directly.
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = maps[init->getOperandNumber()];
  SmallVector<int64_t> perm =
      toInnermost(outMap.getNumResults(), *resultOf(outMap, *newVec));
  maps[init->getOperandNumber()] = permuteResults(outMap, perm);
  rewriter.setInsertionPoint(op);
  RankedTensorType newType =
      permutedType(cast<RankedTensorType>(init->get().getType()), perm);
  Value newInit = refill(rewriter, init->get(), newType, copies);
  if (!newInit)
    newInit = transposeCopy(rewriter, op.getLoc(), init->get(), perm, copies);
  auto repacked = linalg::GenericOp::create(
      rewriter, op.getLoc(), TypeRange{newType}, op.getDpsInputs(),
      ValueRange{newInit}, maps, op.getIteratorTypesArray());
  rewriter.inlineRegionBefore(op.getRegion(), repacked.getRegion(),
                              repacked.getRegion().begin());
  // perm maps result dims to original dims; its inverse copies back.
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  Value back = transposeCopy(rewriter, op.getLoc(), repacked.getResult(0),
                             inverse, copies);
  rewriter.replaceOp(op, back);
  return repacked;
}

void mlir::boo::promoteInputsToF32(RewriterBase &rewriter, linalg::GenericOp op,
                                   SmallVectorImpl<linalg::GenericOp> &copies) {
  Block *body = op.getBody();
  Type f32 = rewriter.getF32Type();
  for (OpOperand *operand : op.getDpsInputOperands()) {
    auto type = cast<RankedTensorType>(operand->get().getType());
    if (type.getElementType() == f32 || !isa<FloatType>(type.getElementType()))
      continue;
    BlockArgument arg = body->getArgument(operand->getOperandNumber());
    if (!llvm::all_of(arg.getUsers(), [&](Operation *user) {
          auto ext = dyn_cast<arith::ExtFOp>(user);
          return ext && ext.getType() == f32;
        }))
      continue;
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(), f32);
    unsigned rank = type.getRank();
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    auto promotion = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{operand->get()},
        ValueRange{init}, ArrayRef<AffineMap>{id, id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value ext = arith::ExtFOp::create(b, l, f32, args[0]);
          linalg::YieldOp::create(b, l, ext);
        });
    copies.push_back(promotion);
    Value promoted = promotion.getResult(0);
    rewriter.modifyOpInPlace(op, [&]() {
      operand->set(promoted);
      arg.setType(f32);
    });
    for (Operation *user : llvm::to_vector(arg.getUsers()))
      rewriter.replaceOp(user, arg);
  }
}

namespace {
/// Whether `op` only writes its init (all loops parallel, the init unread),
/// so that any tensor of the init's type may serve as its init.
bool writesInitOnly(linalg::GenericOp op) {
  return op.getNumDpsInits() == 1 && op.getNumReductionLoops() == 0 &&
         !op.payloadUsesValueFromOperand(op.getDpsInitOperand(0));
}
} // namespace

void mlir::boo::decomposePad(RewriterBase &rewriter, tensor::PadOp pad,
                             SmallVectorImpl<linalg::GenericOp> &copies) {
  Value padValue = pad.getConstantPaddingValue();
  RankedTensorType type = pad.getResultType();
  RankedTensorType sourceType = pad.getSourceType();
  SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
  if (!padValue || !type.hasStaticShape() || !sourceType.hasStaticShape() ||
      llvm::any_of(llvm::concat<int64_t>(low, high), ShapedType::isDynamic))
    return;
  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(pad);
  Value result = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
  unsigned rank = type.getRank();
  SmallVector<int64_t> ones(rank, 1);
  auto insert = [&](Value value, ArrayRef<int64_t> offsets,
                    ArrayRef<int64_t> sizes) {
    MLIRContext *ctx = rewriter.getContext();
    result = tensor::InsertSliceOp::create(
        rewriter, loc, value, result, getAsIndexOpFoldResult(ctx, offsets),
        getAsIndexOpFoldResult(ctx, sizes), getAsIndexOpFoldResult(ctx, ones));
  };
  auto slice = [&](ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
    MLIRContext *ctx = rewriter.getContext();
    return tensor::ExtractSliceOp::create(
        rewriter, loc, result, getAsIndexOpFoldResult(ctx, offsets),
        getAsIndexOpFoldResult(ctx, sizes), getAsIndexOpFoldResult(ctx, ones));
  };
  // The border of dim i: the dims before it over their interior only, the
  // dims after it whole, so that no element is filled twice.
  for (unsigned i = 0; i < rank; ++i) {
    for (bool isLow : {true, false}) {
      int64_t extent = isLow ? low[i] : high[i];
      if (extent == 0)
        continue;
      SmallVector<int64_t> offsets, sizes;
      for (unsigned j = 0; j < rank; ++j) {
        bool before = j < i;
        offsets.push_back(j == i
                              ? (isLow ? 0 : low[j] + sourceType.getDimSize(j))
                              : (before ? low[j] : 0));
        sizes.push_back(
            j == i ? extent
                   : (before ? sourceType.getDimSize(j) : type.getDimSize(j)));
      }
      auto fill = linalg::FillOp::create(rewriter, loc, padValue,
                                         Value(slice(offsets, sizes)));
      insert(generalizeCopy(rewriter, fill, copies), offsets, sizes);
    }
  }
  SmallVector<int64_t> sizes(sourceType.getShape());
  Value interior = slice(low, sizes);
  auto producer = pad.getSource().getDefiningOp<linalg::GenericOp>();
  if (producer && producer->hasOneUse() && writesInitOnly(producer)) {
    // The producer writes the interior in place of its own init.
    rewriter.modifyOpInPlace(
        producer, [&]() { producer.getDpsInitOperand(0)->set(interior); });
    producer->moveAfter(interior.getDefiningOp());
    insert(producer->getResult(0), low, sizes);
  } else {
    auto copy =
        linalg::CopyOp::create(rewriter, loc, pad.getSource(), interior);
    insert(generalizeCopy(rewriter, copy, copies), low, sizes);
  }
  rewriter.replaceOp(pad, result);
}

/// Whether `op` is element-wise with every map the identity (a promotion).
static bool isIdentityElementwise(linalg::GenericOp op) {
  return !op.hasIndexSemantics() && op.getNumDpsInits() == 1 &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

/// `expand` of the result of `producer`, an identity element-wise generic
/// used only there, becomes `producer` on expanded operands (the same
/// body), so that the copy that reads it can fuse with it (a bf16 filter's
/// promotion, then its blocks of output channels, then their reorder).
/// Returns the new generic.
static linalg::GenericOp expandThrough(RewriterBase &rewriter,
                                       tensor::ExpandShapeOp expand,
                                       linalg::GenericOp producer) {
  Location loc = expand.getLoc();
  rewriter.setInsertionPoint(expand);
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  ArrayRef<int64_t> shape = expand.getResultType().getShape();
  auto expanded = [&](Value value) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    return tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
        value, groups);
  };
  SmallVector<Value> inputs;
  for (Value input : producer.getDpsInputs())
    inputs.push_back(expanded(input));
  Value init = expanded(producer.getDpsInits()[0]);
  unsigned rank = shape.size();
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              rewriter.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{expand.getResultType()}, inputs,
      ValueRange{init}, maps, iters);
  rewriter.inlineRegionBefore(producer.getRegion(), generic.getRegion(),
                              generic.getRegion().begin());
  rewriter.replaceOp(expand, generic.getResult(0));
  rewriter.eraseOp(producer);
  return generic;
}

void mlir::boo::fuseCopyChains(RewriterBase &rewriter,
                               SmallVectorImpl<linalg::GenericOp> &copies) {
  for (bool changed = true; changed;) {
    changed = false;
    for (linalg::GenericOp copy : copies) {
      if (copy.getNumDpsInputs() != 1)
        continue;
      OpOperand *input = copy.getDpsInputOperand(0);
      if (auto expand = input->get().getDefiningOp<tensor::ExpandShapeOp>()) {
        auto producer = expand.getSrc().getDefiningOp<linalg::GenericOp>();
        if (expand->hasOneUse() && producer && producer->hasOneUse() &&
            llvm::is_contained(copies, producer) &&
            isIdentityElementwise(producer)) {
          linalg::GenericOp generic = expandThrough(rewriter, expand, producer);
          std::replace(copies.begin(), copies.end(), producer, generic);
          changed = true;
          break;
        }
      }
      auto producer = input->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || !producer->hasOneUse() ||
          !llvm::is_contained(copies, producer) ||
          !linalg::areElementwiseOpsFusable(input))
        continue;
      rewriter.setInsertionPoint(copy);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, input);
      auto fusedOp = succeeded(fused)
                         ? dyn_cast<linalg::GenericOp>(fused->fusedOp)
                         : linalg::GenericOp();
      if (!fusedOp)
        continue;
      rewriter.replaceOp(copy, fused->replacements.lookup(copy->getResult(0)));
      rewriter.eraseOp(producer);
      llvm::erase(copies, producer);
      std::replace(copies.begin(), copies.end(), copy, fusedOp);
      changed = true;
      break;
    }
  }
}
