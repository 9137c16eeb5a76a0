//===- StoreIntegerBits.cpp - boo-store-integer-bits ----------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A float vector stored right after a bitcast from integers (a bf16 result
// rounded in i16 by arith-expand) is stored as those integers: LLVM would
// otherwise move the bitcast before the rounding's select, which x86
// without AVX512-BF16 scalarizes for bf16 vectors.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Common/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOSTOREINTEGERBITS
#include "Boo/Codegen/Common/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// The integer vector `value` was bitcast from, if it is a floating-point
/// vector made so; null otherwise.
Value integerBits(Value value) {
  auto cast = value.getDefiningOp<LLVM::BitcastOp>();
  if (!cast)
    return Value();
  auto to = dyn_cast<VectorType>(cast.getType());
  auto from = dyn_cast<VectorType>(cast.getArg().getType());
  if (!to || !from || !isa<FloatType>(to.getElementType()) ||
      !from.getElementType().isInteger() ||
      to.getShape() != from.getShape())
    return Value();
  return cast.getArg();
}

struct BooStoreIntegerBitsPass
    : public mlir::boo::impl::BooStoreIntegerBitsBase<
          BooStoreIntegerBitsPass> {
  void runOnOperation() override {
    llvm::SetVector<Operation *> casts;
    auto storeBits = [&](OpOperand &value) {
      if (Value bits = integerBits(value.get())) {
        casts.insert(value.get().getDefiningOp());
        value.set(bits);
      }
    };
    getOperation().walk([&](Operation *op) {
      if (auto store = dyn_cast<LLVM::StoreOp>(op))
        storeBits(store.getValueMutable());
      else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op))
        storeBits(store.getValueMutable());
    });
    // The casts no longer used (the pass runs after the last
    // canonicalization).
    for (Operation *cast : casts)
      if (cast->use_empty())
        cast->erase();
  }
};

} // namespace
