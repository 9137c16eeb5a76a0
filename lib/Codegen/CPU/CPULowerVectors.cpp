//===- CPULowerVectors.cpp - boo-cpu-lower-vectors ------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// convert-vector-to-llvm lowers 1-D vector ops; the vectorized tiles of
// boo-cpu-tile-and-vectorize are n-D contractions and reductions. This pass
// unrolls them into 1-D FMAs and element-wise ops along the innermost
// (vector) dim, the shape the x86 backend turns into register-blocked code.
// 1-D reads along a dim that is not the innermost (16 channels of a KYX1
// filter, 9 floats apart) become one scalar load per lane:
// convert-vector-to-scf would make them a loop over the lanes, which runs
// several times slower unless LLVM unrolls it (and then costs compile time
// there). Such writes need nothing: the permutation-map lowering makes
// them vector<Nx1> transfers, which convert-vector-to-scf unrolls.
// Transposes of bf16 and f16 vectors move their bits as i16: x86 has no
// shuffles of bf16 vectors.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPULOWERVECTORS
#include "Boo/Codegen/CPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {
/// The most lanes a strided read is unrolled into (longer ones stay loops).
constexpr int64_t kMaxUnrolledLanes = 64;
/// Transfers whose innermost dim is at most this wide are flattened.
constexpr unsigned kNarrowTransferBits = 128;

/// The dim of `op`'s memref its 1-D vector runs along, where that is not
/// the innermost dim (a strided read) and every lane is in bounds and
/// unmasked; std::nullopt otherwise.
std::optional<unsigned> stridedLaneDim(vector::TransferReadOp op) {
  auto vectorType = dyn_cast<VectorType>(op.getVectorType());
  if (!isa<MemRefType>(op.getBase().getType()) || !vectorType ||
      vectorType.getRank() != 1 || vectorType.isScalable() ||
      vectorType.getNumElements() > kMaxUnrolledLanes || op.getMask() ||
      !op.isDimInBounds(0))
    return std::nullopt;
  AffineMap map = op.getPermutationMap();
  auto dim = dyn_cast<AffineDimExpr>(map.getResult(0));
  if (!dim || map.isMinorIdentity())
    return std::nullopt;
  return dim.getPosition();
}

/// The indices of `op`'s lane `lane` along `dim`.
SmallVector<Value> laneIndices(OpBuilder &b, vector::TransferReadOp op,
                               unsigned dim, int64_t lane) {
  SmallVector<Value> indices(op.getIndices());
  Location loc = op.getLoc();
  if (lane != 0)
    indices[dim] = arith::AddIOp::create(
        b, loc, indices[dim], arith::ConstantIndexOp::create(b, loc, lane));
  return indices;
}

/// A strided 1-D transfer_read as one memref.load per lane.
struct UnrollStridedRead : public OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<unsigned> dim = stridedLaneDim(op);
    if (!dim)
      return rewriter.notifyMatchFailure(op, "not an unmasked strided read");
    SmallVector<Value> lanes;
    for (int64_t i = 0, e = op.getVectorType().getNumElements(); i < e; ++i)
      lanes.push_back(
          memref::LoadOp::create(rewriter, op.getLoc(), op.getBase(),
                                 laneIndices(rewriter, op, *dim, i)));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, op.getVectorType(),
                                                        lanes);
    return success();
  }
};

/// A transpose of 16-bit floats (a bf16 or f16 tile of a transposing
/// copy) as one of their bits: its lowering's shuffles would be of bf16
/// vectors, which x86 cannot select (LLVM aborted: "Do not know how to
/// soft promote this operator's operand"), nor f16 ones without
/// AVX512-FP16. Moving bits needs no arithmetic.
struct TransposeFloatBits : public OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    Type element = type.getElementType();
    if (!isa<FloatType>(element) || element.getIntOrFloatBitWidth() != 16)
      return rewriter.notifyMatchFailure(op, "not a 16-bit float transpose");
    Location loc = op.getLoc();
    Value bits = arith::BitcastOp::create(
        rewriter, loc, type.clone(rewriter.getIntegerType(16)),
        op.getVector());
    Value moved =
        vector::TransposeOp::create(rewriter, loc, bits, op.getPermutation());
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getResultVectorType(),
                                                  moved);
    return success();
  }
};

struct BooCPULowerVectorsPass
    : public mlir::boo::impl::BooCPULowerVectorsBase<BooCPULowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Transfers whose innermost dim is at most kNarrowTransferBits wide
    // (a 16x3x3 tile of a KCYX weight gradient) are flattened into one
    // 1-D transfer where the memref is contiguous there: 9 stores of 16
    // lanes rather than 48 of 3 lanes, each two instructions on x86.
    {
      RewritePatternSet bits(ctx);
      bits.add<TransposeFloatBits>(ctx);
      if (failed(applyPatternsGreedily(getOperation(), std::move(bits))))
        return signalPassFailure();
    }
    {
      RewritePatternSet flatten(ctx);
      vector::populateFlattenVectorTransferPatterns(flatten,
                                                    kNarrowTransferBits);
      if (failed(applyPatternsGreedily(getOperation(), std::move(flatten))))
        return signalPassFailure();
    }
    RewritePatternSet patterns(ctx);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorTransposeLoweringPatterns(
        patterns,
        vector::VectorTransposeLowering::Shuffle16x16); // others: elementwise
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    boo::populateUnrollStridedReadPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

void mlir::boo::populateUnrollStridedReadPatterns(RewritePatternSet &patterns) {
  patterns.add<UnrollStridedRead>(patterns.getContext());
}
