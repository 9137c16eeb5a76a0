//===- GPULowerAllReduce.cpp - gpu.all_reduce to shuffles and LDS ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-gpu-lower-all-reduce` applies upstream's gpu.all_reduce rewrite to
// the kernels of a gpu.module: each workgroup-wide reduction (from
// boo-gpu-row-reductions) becomes a subgroup reduction by `gpu.shuffle xor`
// (ds_bpermute / DPP after convert-gpu-to-rocdl), one value per subgroup in
// a workgroup-memory attribution of the kernel, a barrier, and a final
// subgroup reduction of those values. Upstream offers the patterns
// (populateGpuAllReducePatterns) but no pass. The workgroup sizes the
// rewrite reads are folded to the kernel's known_block_size.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPULOWERALLREDUCE
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {
struct BooGPULowerAllReducePass
    : public mlir::boo::impl::BooGPULowerAllReduceBase<
          BooGPULowerAllReducePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateGpuAllReducePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult left = getOperation().walk([](gpu::AllReduceOp op) {
      op.emitError() << "boo-gpu-lower-all-reduce: cannot lower this "
                        "gpu.all_reduce (it must be uniform and in a "
                        "gpu.func kernel)";
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      return signalPassFailure();
    foldKnownBlockDims();
  }

  /// The rewrite computes linear thread ids and subgroup counts from
  /// gpu.block_dim, which the ROCDL lowering turns into calls of
  /// __ockl_get_local_size (a ROCm device library Boo does not link). Our
  /// kernels declare their workgroup size (known_block_size): use it.
  void foldKnownBlockDims() {
    getOperation().walk([](gpu::GPUFuncOp func) {
      std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize();
      if (!known)
        return;
      func.walk([&](gpu::BlockDimOp op) {
        OpBuilder b(op);
        int64_t size = (*known)[static_cast<unsigned>(op.getDimension())];
        op.replaceAllUsesWith(
            arith::ConstantIndexOp::create(b, op.getLoc(), size).getResult());
        op.erase();
      });
    });
  }
};
} // namespace
