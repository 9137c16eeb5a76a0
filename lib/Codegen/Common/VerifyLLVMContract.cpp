//===- VerifyLLVMContract.cpp - boo-verify-llvm-contract ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The last pass of the CPU pipeline: anything that is not LLVM dialect at
// this point would make translation to LLVM IR fail much later with a less
// helpful message, or (for an unrealized cast) silently miscompile.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOVERIFYLLVMCONTRACT
#include "Boo/Codegen/Common/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {
struct BooVerifyLLVMContractPass
    : public mlir::boo::impl::BooVerifyLLVMContractBase<
          BooVerifyLLVMContractPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t illegal = 0;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == module.getOperation() ||
          isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      // Report each offending op once, not its whole body.
      if (illegal++ < 10)
        op->emitError("boo-verify-llvm-contract: '")
            << op->getName()
            << "' was not lowered to the LLVM dialect by the CPU pipeline";
      return WalkResult::skip();
    });
    if (illegal) {
      module.emitError("boo-verify-llvm-contract: ")
          << illegal << " op(s) outside the LLVM dialect remain";
      signalPassFailure();
    }
  }
};
} // namespace
