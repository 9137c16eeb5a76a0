//===- CPUCopyToLinalg.cpp - boo-cpu-copy-to-linalg -----------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Boo's CPU code objects are loaded by a runtime without MLIR's runner
// libraries, so the compiled code may call libc and libm only. The one
// lowering that calls into those libraries is finalize-memref-to-llvm's
// strided memref.copy (-> memrefCopy); this pass routes such copies through
// linalg.copy and hence plain loops instead. The test for "strided" is the
// one MemRefToLLVM applies when it chooses between llvm.memcpy and
// memrefCopy.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPUCOPYTOLINALG
#include "Boo/Codegen/CPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {
/// Whether finalize-memref-to-llvm lowers a copy from or to `type` with
/// llvm.memcpy (identity layout, or a static, non-empty, row-major
/// contiguous shape at any offset).
bool isContiguous(Type type) {
  auto memrefType = dyn_cast<MemRefType>(type);
  return memrefType &&
         (memrefType.getLayout().isIdentity() ||
          (memrefType.hasStaticShape() && memrefType.getNumElements() > 0 &&
           memref::isStaticShapeAndContiguousRowMajor(memrefType)));
}

struct BooCPUCopyToLinalgPass
    : public mlir::boo::impl::BooCPUCopyToLinalgBase<BooCPUCopyToLinalgPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](memref::CopyOp copy) {
      if (isContiguous(copy.getSource().getType()) &&
          isContiguous(copy.getTarget().getType()))
        return;
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(
          copy, ValueRange{copy.getSource()}, ValueRange{copy.getTarget()});
    });
  }
};
} // namespace
