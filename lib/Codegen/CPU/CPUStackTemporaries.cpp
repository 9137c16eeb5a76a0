//===- CPUStackTemporaries.cpp - boo-cpu-stack-temporaries ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The temporaries of parallel-loop bodies (tiles) become stack allocations
// released at the end of each iteration: the deallocation pipeline frees
// none of them, and a heap allocation per tile is slow. Those too large
// for the stack are freed at the end of each iteration instead.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPUSTACKTEMPORARIES
#include "Boo/Codegen/CPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// The bytes of a static memref type, or nullopt.
std::optional<int64_t> staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// Saves the stack pointer at the start of `forall`'s body and restores it
/// at its end (what memref.alloca_scope lowers to; the scope itself must
/// hold a single block, which the loops in a tile's body are not once
/// convert-scf-to-cf has run).
void scopeStack(RewriterBase &rewriter, scf::ForallOp forall) {
  Block *body = forall.getBody();
  Location loc = forall.getLoc();
  rewriter.setInsertionPointToStart(body);
  Value saved = LLVM::StackSaveOp::create(
      rewriter, loc, LLVM::LLVMPointerType::get(rewriter.getContext()));
  rewriter.setInsertionPoint(body->getTerminator());
  LLVM::StackRestoreOp::create(rewriter, loc, saved);
}

struct BooCPUStackTemporariesPass
    : public mlir::boo::impl::BooCPUStackTemporariesBase<
          BooCPUStackTemporariesPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SetVector<scf::ForallOp> scoped;
    WalkResult result = getOperation().walk([&](memref::AllocOp alloc) {
      auto forall = alloc->getParentOfType<scf::ForallOp>();
      if (!forall)
        return WalkResult::advance();
      if (llvm::any_of(alloc->getUsers(), [](Operation *user) {
            return isa<memref::DeallocOp>(user);
          }))
        return WalkResult::advance(); // freed already
      std::optional<int64_t> bytes = staticBytes(alloc.getType());
      if (!bytes || alloc->getParentOp() != forall) {
        alloc.emitOpError()
            << "in a parallel loop, not deallocated, and not of a static "
               "shape directly in the loop's body: it would leak";
        return WalkResult::interrupt();
      }
      if (*bytes > maxBytes) {
        // Too large for the stack: freed at the end of the iteration.
        rewriter.setInsertionPoint(forall.getBody()->getTerminator());
        memref::DeallocOp::create(rewriter, alloc.getLoc(), alloc);
        return WalkResult::advance();
      }
      rewriter.setInsertionPoint(alloc);
      rewriter.replaceOpWithNewOp<memref::AllocaOp>(
          alloc, alloc.getType(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), alloc.getAlignmentAttr());
      scoped.insert(forall);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    for (scf::ForallOp forall : scoped)
      scopeStack(rewriter, forall);
  }
};

} // namespace
