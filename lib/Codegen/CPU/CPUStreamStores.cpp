//===- CPUStreamStores.cpp - boo-cpu-stream-stores ------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The stores of a loop marked boo.stream_stores (a layer norm's y, larger
// than the caches) into the function's arguments become non-temporal where
// their address is 64-byte aligned at run time, and each iteration of the
// loop ends with a store fence.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"
#include "CPURowReductions.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPUSTREAMSTORES
#include "Boo/Codegen/CPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// The bytes of a cache line, the unit a non-temporal store writes whole.
constexpr int64_t kLineBytes = 64;

/// Whether `v` is a view (subviews, reshapes, casts) of an argument of the
/// function's entry block.
bool viewsArgument(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::CastOp, memref::ReinterpretCastOp>(def))
      return false;
    v = def->getOperand(0);
  }
  auto arg = cast<BlockArgument>(v);
  return isa<func::FuncOp>(arg.getOwner()->getParentOp());
}

/// Whether `write` stores whole lines of contiguous memory into a view of
/// a function argument: a 1-D vector of a multiple of 64 bytes, in bounds,
/// unmasked, along the memref's innermost dim, of stride 1.
bool isStreamable(vector::TransferWriteOp write) {
  auto memref = dyn_cast<MemRefType>(write.getBase().getType());
  VectorType type = write.getVectorType();
  if (!memref || memref.getRank() == 0 || type.getRank() != 1 ||
      type.isScalable() || write.getMask() ||
      !write.getPermutationMap().isMinorIdentity() ||
      !write.getInBoundsValues().front() ||
      !type.getElementType().isIntOrFloat())
    return false;
  int64_t bits = type.getNumElements() * type.getElementTypeBitWidth();
  if (bits % (8 * kLineBytes) != 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return false;
  return viewsArgument(write.getBase());
}

/// Whether the address `write` stores to is a multiple of 64 bytes.
Value isLineAligned(RewriterBase &rewriter, vector::TransferWriteOp write) {
  Location loc = write.getLoc();
  Value base = write.getBase();
  auto memref = cast<MemRefType>(base.getType());
  auto metadata = memref::ExtractStridedMetadataOp::create(rewriter, loc, base);
  Value element = metadata.getOffset();
  for (auto [index, stride] :
       llvm::zip(write.getIndices(), metadata.getStrides()))
    element = arith::AddIOp::create(
        rewriter, loc, element,
        arith::MulIOp::create(rewriter, loc, index, stride));
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, base);
  int64_t elementBytes = memref.getElementTypeBitWidth() / 8;
  Value address = arith::AddIOp::create(
      rewriter, loc, pointer,
      arith::MulIOp::create(
          rewriter, loc, element,
          arith::ConstantIndexOp::create(rewriter, loc, elementBytes)));
  Value low = arith::AndIOp::create(
      rewriter, loc, address,
      arith::ConstantIndexOp::create(rewriter, loc, kLineBytes - 1));
  return arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq, low,
      arith::ConstantIndexOp::create(rewriter, loc, 0));
}

/// Rewrites `write` as a non-temporal store when its address is aligned,
/// and as itself otherwise.
void stream(RewriterBase &rewriter, vector::TransferWriteOp write) {
  rewriter.setInsertionPoint(write);
  Value aligned = isLineAligned(rewriter, write);
  auto branch = scf::IfOp::create(rewriter, write.getLoc(), aligned,
                                  /*withElseRegion=*/true);
  rewriter.setInsertionPointToStart(branch.thenBlock());
  vector::StoreOp::create(rewriter, write.getLoc(), write.getVector(),
                          write.getBase(), write.getIndices(),
                          /*nontemporal=*/true, llvm::Align(kLineBytes));
  rewriter.moveOpBefore(write, branch.elseBlock()->getTerminator());
}

struct BooCPUStreamStoresPass
    : public mlir::boo::impl::BooCPUStreamStoresBase<BooCPUStreamStoresPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<scf::ForallOp> marked;
    getOperation().walk([&](scf::ForallOp forall) {
      if (forall->hasAttr(boo::kStreamStoresAttr))
        marked.push_back(forall);
    });
    for (scf::ForallOp forall : marked) {
      forall->removeAttr(boo::kStreamStoresAttr);
      SmallVector<vector::TransferWriteOp> writes;
      forall.getBody()->walk([&](vector::TransferWriteOp write) {
        if (isStreamable(write))
          writes.push_back(write);
      });
      if (writes.empty())
        continue;
      for (vector::TransferWriteOp write : writes)
        stream(rewriter, write);
      // Streamed stores are not ordered with the others: each iteration
      // fences them before the loop's end makes its results visible.
      rewriter.setInsertionPoint(forall.getBody()->getTerminator());
      LLVM::CallIntrinsicOp::create(
          rewriter, forall.getLoc(),
          rewriter.getStringAttr("llvm.x86.sse.sfence"), ValueRange());
    }
  }
};

} // namespace
