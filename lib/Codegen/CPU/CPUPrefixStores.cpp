//===- CPUPrefixStores.cpp - boo-cpu-prefix-stores ------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The out-of-bounds tail of a 1-D write with static bounds (an output row
// of 7 columns written from 8 lanes) becomes an in-bounds write of the
// lanes that land inside the row, so that no masked store is emitted.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPUPREFIXSTORES
#include "Boo/Codegen/CPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// A 1-D, unmasked, out-of-bounds write along a memref's innermost dim
/// whose lanes past that dim's static end are known: written as its
/// leading lanes, in bounds.
struct WritePrefix : OpRewritePattern<vector::TransferWriteOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferWriteOp write,
                                PatternRewriter &rewriter) const override {
    auto memref = dyn_cast<MemRefType>(write.getBase().getType());
    VectorType type = write.getVectorType();
    if (!memref || memref.getRank() == 0 || type.getRank() != 1 ||
        type.isScalable() || write.getMask() ||
        !write.getPermutationMap().isMinorIdentity() ||
        write.getInBoundsValues().front())
      return rewriter.notifyMatchFailure(write, "not a 1-D unmasked tail");
    int64_t size = memref.getShape().back();
    std::optional<int64_t> index =
        getConstantIntValue(write.getIndices().back());
    if (ShapedType::isDynamic(size) || !index)
      return rewriter.notifyMatchFailure(write, "dynamic bounds");
    int64_t lanes = size - *index;
    if (lanes <= 0 || lanes >= type.getNumElements())
      return rewriter.notifyMatchFailure(write, "not a partial tail");
    Value prefix = vector::ExtractStridedSliceOp::create(
        rewriter, write.getLoc(), write.getVector(), ArrayRef<int64_t>{0},
        ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
    rewriter.replaceOpWithNewOp<vector::TransferWriteOp>(
        write, prefix, write.getBase(), write.getIndices(),
        ArrayRef<bool>{true});
    return success();
  }
};

struct BooCPUPrefixStoresPass
    : public mlir::boo::impl::BooCPUPrefixStoresBase<BooCPUPrefixStoresPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<WritePrefix>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
