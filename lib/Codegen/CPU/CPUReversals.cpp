//===- CPUReversals.cpp - Reversed operands read in place -----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "CPUReversals.h"
#include "CPUOperandLayouts.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/ViewLikeInterfaceUtils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {

/// A copy of `input` with the dims marked in `reversed` read backwards.
struct Reversal {
  Value input;
  SmallVector<bool> reversed;
};

/// `op` as a Reversal: one input, an identity output map, all loops
/// parallel, a body that yields the input element, and an input map whose
/// result i is `d_i` or `n_i - 1 - d_i` (n_i the extent), at least one of
/// them reversed.
std::optional<Reversal> matchReversal(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.hasIndexSemantics() ||
      generic.getNumReductionLoops() != 0 || !generic.hasPureTensorSemantics())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 || yield.getNumOperands() != 1 ||
      yield.getOperand(0) != body.getArgument(0))
    return std::nullopt;
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  AffineMap outMap = generic.getIndexingMapsArray()[1];
  AffineMap inMap = generic.getIndexingMapsArray()[0];
  if (!outMap.isIdentity() || inMap.getNumResults() != ranges.size() ||
      llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  Reversal result{generic.getDpsInputs()[0], {}};
  MLIRContext *ctx = generic.getContext();
  for (auto [i, e] : llvm::enumerate(inMap.getResults())) {
    AffineExpr d = getAffineDimExpr(i, ctx);
    if (e == d) {
      result.reversed.push_back(false);
      continue;
    }
    if (e != ranges[i] - 1 - d)
      return std::nullopt;
    result.reversed.push_back(true);
  }
  if (!llvm::is_contained(result.reversed, true))
    return std::nullopt;
  return result;
}

/// A new reversal of `input` along the dims marked in `reversed`.
Value createReversal(RewriterBase &rewriter, Location loc, Value input,
                     ArrayRef<bool> reversed) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<AffineExpr> results;
  for (auto [i, rev] : llvm::enumerate(reversed)) {
    AffineExpr d = getAffineDimExpr(i, ctx);
    results.push_back(rev ? type.getDimSize(i) - 1 - d : d);
  }
  return boo::copyThrough(rewriter, loc, input,
                          AffineMap::get(type.getRank(), 0, results, ctx), type)
      .getResult(0);
}

/// A slice of a reversal whose reversed dims have size 1 is a slice of its
/// input at the mirrored offsets.
struct FoldSliceOfReversal : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    std::optional<Reversal> rev =
        matchReversal(slice.getSource().getDefiningOp());
    if (!rev)
      return failure();
    ArrayRef<int64_t> shape = slice.getSourceType().getShape();
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    for (auto [i, reversed] : llvm::enumerate(rev->reversed)) {
      if (!reversed)
        continue;
      if (slice.getStaticSizes()[i] != 1)
        return failure();
      AffineExpr d0 = rewriter.getAffineDimExpr(0);
      offsets[i] = affine::makeComposedFoldedAffineApply(
          rewriter, slice.getLoc(), shape[i] - 1 - d0, {offsets[i]});
    }
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        slice, slice.getType(), rev->input, offsets, slice.getMixedSizes(),
        slice.getMixedStrides());
    return success();
  }
};

/// A slice of a slice of a reversal is one slice of it.
struct MergeSlicesOfReversal : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto producer = slice.getSource().getDefiningOp<tensor::ExtractSliceOp>();
    if (!producer || !matchReversal(producer.getSource().getDefiningOp()))
      return failure();
    SmallVector<OpFoldResult> offsets, sizes, strides;
    if (failed(affine::mergeOffsetsSizesAndStrides(
            rewriter, slice.getLoc(), producer, slice,
            producer.getDroppedDims(), offsets, sizes, strides)))
      return failure();
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        slice, slice.getType(), producer.getSource(), offsets, sizes, strides);
    return success();
  }
};

/// An expand_shape of a reversal whose reversed dims are groups of one is
/// the reversal of the expand_shape of its input.
struct SwapExpandAndReversal : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    std::optional<Reversal> rev =
        matchReversal(expand.getSrc().getDefiningOp());
    if (!rev || !expand.getResultType().hasStaticShape())
      return failure();
    SmallVector<bool> reversed(expand.getResultType().getRank(), false);
    for (auto [i, group] : llvm::enumerate(expand.getReassociationIndices())) {
      if (!rev->reversed[i])
        continue;
      if (group.size() != 1)
        return failure();
      reversed[group.front()] = true;
    }
    auto inner = tensor::ExpandShapeOp::create(
        rewriter, expand.getLoc(), expand.getResultType(), rev->input,
        expand.getReassociationIndices());
    rewriter.replaceOp(expand, createReversal(rewriter, expand.getLoc(),
                                              inner.getResult(), reversed));
    return success();
  }
};

/// An element-wise copy of a reversal (one input read through a
/// permutation, an identity output map, the output not read) reads the
/// reversal's input instead, and its result is reversed along the loops
/// that read the reversed dims.
struct SwapCopyAndReversal : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp copy,
                                PatternRewriter &rewriter) const override {
    if (copy.getNumDpsInputs() != 1 || copy.getNumDpsInits() != 1 ||
        copy.getNumReductionLoops() != 0 || copy.hasIndexSemantics() ||
        !copy.hasPureTensorSemantics() || matchReversal(copy))
      return failure();
    OpOperand *input = copy.getDpsInputOperand(0);
    std::optional<Reversal> rev = matchReversal(input->get().getDefiningOp());
    AffineMap inMap = copy.getMatchingIndexingMap(input);
    OpOperand *init = copy.getDpsInitOperand(0);
    if (!rev || !inMap.isPermutation() ||
        !copy.getMatchingIndexingMap(init).isIdentity() ||
        copy.payloadUsesValueFromOperand(init))
      return failure();
    SmallVector<bool> reversed(inMap.getNumDims(), false);
    for (auto [i, rev] : llvm::enumerate(rev->reversed))
      if (rev)
        reversed[inMap.getDimPosition(i)] = true;
    rewriter.modifyOpInPlace(copy, [&] { input->set(rev->input); });
    rewriter.setInsertionPointAfter(copy);
    Value result = copy.getResult(0);
    Value reversal = createReversal(rewriter, copy.getLoc(), result, reversed);
    rewriter.replaceAllUsesExcept(result, reversal, reversal.getDefiningOp());
    return success();
  }
};

} // namespace

void mlir::boo::populateFoldReversalPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldSliceOfReversal, MergeSlicesOfReversal,
               SwapExpandAndReversal, SwapCopyAndReversal>(
      patterns.getContext());
}

void mlir::boo::foldReversals(Operation *root) {
  RewritePatternSet patterns(root->getContext());
  populateFoldReversalPatterns(patterns);
  FrozenRewritePatternSet frozen(std::move(patterns));
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  config.enableFolding(false);
  config.enableConstantCSE(false);
  // A rewrite can enable one on an op that is not revisited (the slice of
  // a slice whose source became a reversal): repeat, a few times at most.
  for (int round = 0; round < 4; ++round) {
    SetVector<Operation *> uses;
    root->walk([&](linalg::GenericOp op) {
      if (matchReversal(op))
        getForwardSlice(op.getOperation(), &uses);
    });
    SmallVector<Operation *> ops;
    for (Operation *op : uses)
      if (isa<linalg::GenericOp, tensor::ExtractSliceOp, tensor::ExpandShapeOp>(
              op))
        ops.push_back(op);
    bool changed = false;
    if (ops.empty() ||
        failed(applyOpPatternsGreedily(ops, frozen, config, &changed)) ||
        !changed)
      return;
  }
}
