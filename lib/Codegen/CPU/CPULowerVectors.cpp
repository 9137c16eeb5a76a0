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
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"

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
struct BooCPULowerVectorsPass
    : public mlir::boo::impl::BooCPULowerVectorsBase<BooCPULowerVectorsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
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
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
