//===- CPUVectorBodies.cpp - Rewrites of vectorized tile bodies -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// See CPUVectorBodies.h.
//
//===----------------------------------------------------------------------===//

#include "CPUVectorBodies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace {
/// `addf(mulf(a, b), c)` on vectors (either operand order), where the
/// product has no other use, becomes `vector.fma(a, b, c)`. Vectorized
/// element-wise multiply-accumulate bodies (depthwise convolutions) would
/// otherwise issue two instructions per lane, as LLVM fuses nothing without
/// fast-math flags; vector.contract already lowers to vector.fma.
struct FuseMultiplyAdd : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    if (!isa<VectorType>(add.getType()))
      return failure();
    for (unsigned i = 0; i < 2; ++i) {
      auto mul = add->getOperand(i).getDefiningOp<arith::MulFOp>();
      if (!mul || !mul->hasOneUse())
        continue;
      rewriter.replaceOpWithNewOp<vector::FMAOp>(
          add, mul.getLhs(), mul.getRhs(), add->getOperand(1 - i));
      return success();
    }
    return failure();
  }
};

/// `extf(transpose(x))` becomes `transpose(extf(x))`: a bf16 filter promoted
/// within its reorder (fuseCopyChains) is transposed as f32 vectors, which
/// x86 shuffles natively, rather than as bf16 vectors, which LLVM's x86
/// backend cannot always legalize.
struct ExtendBeforeTranspose : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp ext,
                                PatternRewriter &rewriter) const override {
    auto transpose = ext.getIn().getDefiningOp<vector::TransposeOp>();
    if (!transpose || !transpose->hasOneUse())
      return failure();
    auto sourceType = transpose.getVector().getType();
    auto extType =
        VectorType::get(sourceType.getShape(),
                        cast<VectorType>(ext.getType()).getElementType());
    Value extended = arith::ExtFOp::create(rewriter, ext.getLoc(), extType,
                                           transpose.getVector());
    rewriter.replaceOpWithNewOp<vector::TransposeOp>(
        ext, extended, transpose.getPermutation());
    return success();
  }
};

/// A floating-point sum of a 1-D vector (the partials of one row, from a
/// row reduction's combination) becomes a vector.reduction that may
/// reassociate: LLVM then adds the vector's halves in a tree, where an
/// ordered reduction is one dependent scalar addition per lane. (The
/// partials themselves already reassociate the sum.)
struct ReduceRowByTree : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    if (op.getKind() != vector::CombiningKind::ADD || type.getRank() != 1 ||
        !isa<FloatType>(type.getElementType()) || type.isScalable())
      return failure();
    rewriter.replaceOpWithNewOp<vector::ReductionOp>(
        op, op.getKind(), op.getSource(), op.getAcc(),
        arith::FastMathFlags::reassoc);
    return success();
  }
};

} // namespace

void mlir::boo::populateCPUVectorBodyPatterns(RewritePatternSet &patterns) {
  patterns.add<FuseMultiplyAdd, ExtendBeforeTranspose, ReduceRowByTree>(
      patterns.getContext());
}
