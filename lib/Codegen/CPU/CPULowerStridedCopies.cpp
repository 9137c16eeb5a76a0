//===- CPULowerStridedCopies.cpp - boo-cpu-lower-strided-copies -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Boo's CPU code objects are loaded by a runtime without MLIR's runner
// libraries, so the compiled code may call libc and libm only. The one
// lowering that calls into those libraries is finalize-memref-to-llvm's
// strided memref.copy (-> memrefCopy); this pass rewrites such copies as
// vector transfers (small static ones with contiguous rows) or as
// linalg.copy, hence plain loops. The test for "strided" is the one
// MemRefToLLVM applies when it chooses between llvm.memcpy and memrefCopy.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPULOWERSTRIDEDCOPIES
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

/// The most elements a copy is moved with as one n-D vector (unrolled into
/// its rows later): a register tile, not a whole tensor.
constexpr int64_t kMaxVectorCopyElements = 4096;

/// Whether `type` is a static memref whose innermost dim is contiguous.
bool hasContiguousRows(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.hasStaticShape() && type.getRank() > 0 &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// Rewrites `copy` as a vector.transfer_read and transfer_write of its
/// whole static shape when both sides have contiguous rows, it is at most
/// a register tile (the tile copies bufferization leaves, such as a tile of
/// a pad's interior) and its elements are 32 or 64 bits (LLVM's x86
/// backend cannot legalize every 16-bit float vector op); false if it does
/// not apply.
bool copyWithVectors(RewriterBase &rewriter, memref::CopyOp copy) {
  auto source = cast<MemRefType>(copy.getSource().getType());
  auto target = cast<MemRefType>(copy.getTarget().getType());
  if (!hasContiguousRows(source) || !hasContiguousRows(target) ||
      source.getNumElements() > kMaxVectorCopyElements ||
      !source.getElementType().isIntOrFloat() ||
      source.getElementType().getIntOrFloatBitWidth() < 32)
    return false;
  Location loc = copy.getLoc();
  auto vectorType = VectorType::get(source.getShape(), source.getElementType());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  SmallVector<Value> indices(source.getRank(), zero);
  SmallVector<bool> inBounds(source.getRank(), true);
  // Never read: every index is in bounds.
  Value padding = arith::ConstantOp::create(
      rewriter, loc, rewriter.getZeroAttr(source.getElementType()));
  Value value = vector::TransferReadOp::create(
      rewriter, loc, vectorType, copy.getSource(), indices, padding, inBounds);
  vector::TransferWriteOp::create(rewriter, loc, value, copy.getTarget(),
                                  indices, inBounds);
  rewriter.eraseOp(copy);
  return true;
}

struct BooCPULowerStridedCopiesPass
    : public mlir::boo::impl::BooCPULowerStridedCopiesBase<
          BooCPULowerStridedCopiesPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](memref::CopyOp copy) {
      if (isContiguous(copy.getSource().getType()) &&
          isContiguous(copy.getTarget().getType()))
        return;
      rewriter.setInsertionPoint(copy);
      if (copyWithVectors(rewriter, copy))
        return;
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(
          copy, ValueRange{copy.getSource()}, ValueRange{copy.getTarget()});
    });
  }
};
} // namespace
