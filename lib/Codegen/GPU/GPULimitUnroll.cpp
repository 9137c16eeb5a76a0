//===- GPULimitUnroll.cpp - Bound LLVM's full unrolling in kernels --------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-gpu-limit-unroll`: the product of the static trip counts of a loop and
// of the deepest nest inside it is the number of copies of the innermost body
// that full unrolling would create. Loops where that exceeds the budget get
// `unroll disable`: they stay loops in LLVM, and the loops inside them (up to
// the budget) are still unrolled. A loop whose body synchronizes the
// workgroup (a gpu.barrier: the step loop of an LDS-staged MMA kernel) is
// never unrolled: unrolled, LLVM hoists every step's global loads above the
// barriers of the steps before, and their values stay live at once. Outside
// MMA kernels, a vector op counts as its elements: a thread tile that
// boo-gpu-vectorize-thread-tiles made one vector of 8 loads as many
// registers per unrolled step as the 8 scalar iterations it replaced.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/GPU/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPULIMITUNROLL
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

// The name of llvm.br's loop annotation property: scf-to-cf copies the loop's
// attributes to its latch cf.br, and cf-to-llvm copies those to the llvm.br,
// where this name sets the annotation LLVM IR translation reads.
constexpr StringLiteral kLoopAnnotation = "loop_annotation";

struct BooGPULimitUnrollPass
    : public mlir::boo::impl::BooGPULimitUnrollBase<BooGPULimitUnrollPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto disable = LLVM::LoopAnnotationAttr::get(
        ctx, /*disableNonforced=*/nullptr, /*vectorize=*/nullptr,
        /*interleave=*/nullptr,
        LLVM::LoopUnrollAttr::get(ctx, /*disable=*/BoolAttr::get(ctx, true),
                                  /*count=*/nullptr, /*runtimeDisable=*/nullptr,
                                  /*full=*/nullptr,
                                  /*followupUnrolled=*/nullptr,
                                  /*followupRemainder=*/nullptr,
                                  /*followupAll=*/nullptr),
        /*unrollAndJam=*/nullptr, /*licm=*/nullptr, /*distribute=*/nullptr,
        /*pipeline=*/nullptr, /*peeled=*/nullptr, /*unswitch=*/nullptr,
        /*mustProgress=*/nullptr, /*isVectorized=*/nullptr,
        /*startLoc=*/nullptr, /*endLoc=*/nullptr, /*parallelAccesses=*/{});
    // Post-order: inner loops first, so each loop sees its nest's size.
    // Kernels on the matrix cores are sized by their configs (the registers
    // their tiles need): there a vector is one fragment. Elsewhere a vector
    // op (boo-gpu-vectorize-thread-tiles) counts as its elements, the
    // scalar iterations it stands for.
    llvm::SmallPtrSet<Operation *, 4> mmaKernels;
    getOperation()->walk([&](Operation *op) {
      if (isa<amdgpu::MFMAOp, amdgpu::WMMAOp>(op))
        mmaKernels.insert(op->getParentOfType<FunctionOpInterface>());
    });
    DenseMap<Operation *, int64_t> unrolledSize;
    getOperation()->walk([&](scf::ForOp loop) {
      bool weighVectors =
          !mmaKernels.contains(loop->getParentOfType<FunctionOpInterface>());
      int64_t inner = 1;
      loop.getBody()->walk([&](Operation *op) {
        if (auto nested = dyn_cast<scf::ForOp>(op);
            nested && nested->getParentOfType<scf::ForOp>() == loop)
          inner = std::max(inner, unrolledSize.lookup(nested));
        if (weighVectors)
          for (Type t : op->getResultTypes())
            if (auto vector = dyn_cast<VectorType>(t))
              inner = std::max(inner, vector.getNumElements());
      });
      std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
      std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
      std::optional<int64_t> step = getConstantIntValue(loop.getStep());
      if (!lb || !ub || !step || *step <= 0) {
        // LLVM does not fully unroll an unknown trip count.
        unrolledSize[loop] = std::numeric_limits<int32_t>::max();
        return;
      }
      int64_t trips = std::max<int64_t>(0, llvm::divideCeil(*ub - *lb, *step));
      int64_t size =
          std::min<int64_t>(trips * inner, std::numeric_limits<int32_t>::max());
      unrolledSize[loop] = size;
      bool synchronizes =
          loop.getBody()
              ->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
      if ((size > maxUnrolledIterations || synchronizes) && trips > 1)
        loop->setAttr(kLoopAnnotation, disable);
    });
  }
};

} // namespace
