//===- GPUMMAKernels.cpp - boo-gpu-mma-kernels ----------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Builds the kernels whose `#boo.lowering_config` names an MMA intrinsic: an
// implicit GEMM over the config's M, N and K loops (`mma_loops`) of the
// accumulation generic, on MFMA (CDNA) or WMMA (RDNA). boo-gpu-distribute
// leaves these kernels whole; this pass runs after bufferization and
// replaces the kernel's ops (the fill of the accumulator, the accumulation
// generic, the epilogue generics reading it) by one workgroup/thread
// `scf.forall` nest that boo-gpu-forall-to-launch turns into a launch:
//
//   workgroup (p..., mTile, nTile):          one per workgroup tile
//     LDS A[depth][wgM][kT], B[depth][wgN][kT] (k contiguous)
//     thread t (wave w = t / W, lane l = t % W):
//       acc[i][j] = splat(fill value)       per MMA tile of the subgroup tile
//       for each step s (the other reduction loops x K / kT):
//         all threads stage the A and B tiles of step s into LDS: each
//         element is the generic's operand value at that iteration (its
//         body's reads replayed: padding and zero-stuffing guards included),
//         0 outside the problem (partial tiles)
//         barrier; then per k-slice: fragments from LDS at the lane's
//         positions (MMALayout.h), acc[i][j] = mfma/wmma(a[i], b[j], acc)
//       epilogue: each lane's D elements inside the problem go through the
//       epilogue generics' bodies in registers and are stored once
//
// With pipeline_depth = 2 the staging of step s+1 goes to the other LDS
// buffer while step s is computed (one barrier per step); with depth 1 the
// kernel stages, synchronizes and computes (two barriers per step). An
// operand that is not promoted (promote_operands: 0 is A, 1 is B) has its
// fragments read straight from global memory.
//
// A backward data with stride > 1 (#boo.stride_phases) splits M by phase
// (m = phase + s*q): each workgroup then knows which filter taps read
// gradient elements and its steps visit only those (see StridePhases.h).
//
// The pass drives one kernel at a time: MMAKernelAnalysis.cpp finds its
// ops, MMAKernelEmitter.cpp builds the nest (see MMAKernel.h).
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"
#include "MMAKernel.h"

#include "Boo/Codegen/GPU/Passes.h"
#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Target/ChipInfo.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPUMMAKERNELS
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {

struct BooGPUMMAKernelsPass
    : public mlir::boo::impl::BooGPUMMAKernelsBase<BooGPUMMAKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    const ChipInfo *chipInfo = resolveChip(getOperation(), getArgument());
    if (!chipInfo)
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        elideResultCopies(rewriter, func);
    SmallVector<linalg::GenericOp> accs;
    getOperation().walk([&](linalg::GenericOp op) {
      auto config =
          op->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
      if (config && config.hasMma())
        accs.push_back(op);
    });
    for (linalg::GenericOp acc : accs) {
      FailureOr<MMAKernel> kernel = analyzeMMAKernel(acc, *chipInfo);
      if (failed(kernel) || failed(buildMMAKernel(*kernel)))
        return signalPassFailure();
    }
  }
};

} // namespace
