//===- CPUHookAllocations.cpp - boo-cpu-hook-allocations ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Defines the generic allocation functions finalize-memref-to-llvm calls
// with use-generic-functions=true, so that a compiled function's
// temporaries go through the loader's allocator when it sets the
// `__boo_alloc`/`__boo_free` hooks (docs/ModuleFormat.md), and through
// malloc/free otherwise.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"
#include "boo/ModuleFormat.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPUHOOKALLOCATIONS
#include "Boo/Codegen/CPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {
constexpr char kAllocFunction[] = "_mlir_memref_to_llvm_alloc";
constexpr char kFreeFunction[] = "_mlir_memref_to_llvm_free";

/// A zero-initialized external pointer global named `name`.
LLVM::GlobalOp createHookGlobal(OpBuilder &b, Location loc, StringRef name) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  auto global =
      LLVM::GlobalOp::create(b, loc, ptrType, /*isConstant=*/false,
                             LLVM::Linkage::External, name, Attribute());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(b.createBlock(&global.getInitializerRegion()));
  LLVM::ReturnOp::create(b, loc, LLVM::ZeroOp::create(b, loc, ptrType));
  return global;
}

/// `module`'s declaration of the libc function `name`, created if absent.
LLVM::LLVMFuncOp getOrDeclare(OpBuilder &b, ModuleOp module, StringRef name,
                              LLVM::LLVMFunctionType type) {
  if (auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return func;
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// Defines `name` (internal) with `type`: it calls through the hook global
/// `hook` when that is non-null, else `fallback`, forwarding its arguments
/// and result.
void defineHooked(OpBuilder &b, Location loc, StringRef name,
                  LLVM::LLVMFunctionType type, LLVM::GlobalOp hook,
                  LLVM::LLVMFuncOp fallback) {
  auto func =
      LLVM::LLVMFuncOp::create(b, loc, name, type, LLVM::Linkage::Internal);
  OpBuilder::InsertionGuard guard(b);
  Block *entry = func.addEntryBlock(b);
  Block *direct = b.createBlock(&func.getBody());
  Block *hooked = b.createBlock(&func.getBody());
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext());
  bool returns = !isa<LLVM::LLVMVoidType>(type.getReturnType());
  auto finish = [&](Operation *call) {
    if (returns)
      LLVM::ReturnOp::create(b, loc, call->getResult(0));
    else
      LLVM::ReturnOp::create(b, loc, ValueRange());
  };

  b.setInsertionPointToStart(entry);
  Value address = LLVM::AddressOfOp::create(b, loc, hook);
  Value target = LLVM::LoadOp::create(b, loc, ptrType, address);
  Value null = LLVM::ZeroOp::create(b, loc, ptrType);
  Value unset =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, target, null);
  LLVM::CondBrOp::create(b, loc, unset, direct, hooked);

  b.setInsertionPointToStart(direct);
  finish(LLVM::CallOp::create(b, loc, fallback, entry->getArguments()));

  b.setInsertionPointToStart(hooked);
  SmallVector<Value> operands = {target};
  llvm::append_range(operands, entry->getArguments());
  finish(LLVM::CallOp::create(b, loc, type, operands));
}

struct BooCPUHookAllocationsPass
    : public mlir::boo::impl::BooCPUHookAllocationsBase<
          BooCPUHookAllocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module.lookupSymbol(kAllocFunction) ||
        module.lookupSymbol(kFreeFunction) ||
        module.lookupSymbol(::boo::runtime::kAllocSymbol) ||
        module.lookupSymbol(::boo::runtime::kFreeSymbol))
      return;
    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    auto allocType = LLVM::LLVMFunctionType::get(ptrType, {i64});
    auto freeType = LLVM::LLVMFunctionType::get(voidType, {ptrType});
    Location loc = module.getLoc();
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    LLVM::LLVMFuncOp malloc = getOrDeclare(b, module, "malloc", allocType);
    LLVM::LLVMFuncOp free = getOrDeclare(b, module, "free", freeType);
    LLVM::GlobalOp allocHook =
        createHookGlobal(b, loc, ::boo::runtime::kAllocSymbol);
    LLVM::GlobalOp freeHook =
        createHookGlobal(b, loc, ::boo::runtime::kFreeSymbol);
    defineHooked(b, loc, kAllocFunction, allocType, allocHook, malloc);
    defineHooked(b, loc, kFreeFunction, freeType, freeHook, free);
  }
};
} // namespace
