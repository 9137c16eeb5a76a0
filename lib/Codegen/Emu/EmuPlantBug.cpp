//===- EmuPlantBug.cpp - boo-emu-plant-bug (test only) --------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Plants one known bug in real outlined kernels, so that tests can prove the
// emulator reports it: a missing barrier (LDS race), an off-by-one store
// index (out of bounds), or or a wrong MMA operand layout (wrong numbers).
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Emu/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOEMUPLANTBUG
#include "Boo/Codegen/Emu/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// Erases the kernel's first barrier.
bool dropFirstBarrier(gpu::GPUFuncOp kernel) {
  gpu::BarrierOp first;
  kernel.walk([&](gpu::BarrierOp barrier) {
    if (!first)
      first = barrier;
  });
  if (!first)
    return false;
  first.erase();
  return true;
}

/// The kernel argument `memref` is, or is a view of; null if none.
BlockArgument getArgumentRoot(gpu::GPUFuncOp kernel, Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return {};
    memref = view.getViewSource();
  }
  auto arg = dyn_cast<BlockArgument>(memref);
  if (arg && arg.getOwner() == &kernel.getBody().front() &&
      arg.getArgNumber() < kernel.getNumArguments())
    return arg;
  return {};
}

/// Adds 1 to the last index of every store to a kernel argument (or a view
/// of one): the store that writes a buffer's last element then writes past
/// its end.
bool shiftStores(gpu::GPUFuncOp kernel) {
  SmallVector<memref::StoreOp> stores;
  kernel.walk([&](memref::StoreOp store) {
    if (getArgumentRoot(kernel, store.getMemRef()) &&
        !store.getIndices().empty())
      stores.push_back(store);
  });
  for (memref::StoreOp store : stores) {
    OpBuilder b(store);
    Location loc = store.getLoc();
    unsigned last = store.getIndices().size() - 1;
    Value shifted =
        arith::AddIOp::create(b, loc, store.getIndices()[last],
                              arith::ConstantIndexOp::create(b, loc, 1));
    store.getIndicesMutable()[last].set(shifted);
  }
  return !stores.empty();
}

/// Reverses the items of every MMA's A operand.
bool reverseMmaA(gpu::GPUFuncOp kernel) {
  bool changed = false;
  kernel.walk([&](Operation *op) {
    if (!isa<amdgpu::MFMAOp, amdgpu::WMMAOp>(op))
      return;
    Value a = op->getOperand(0);
    auto type = dyn_cast<VectorType>(a.getType());
    if (!type || type.getRank() != 1)
      return;
    OpBuilder b(op);
    SmallVector<int64_t> reversed;
    for (int64_t i = type.getNumElements() - 1; i >= 0; --i)
      reversed.push_back(i);
    op->setOperand(0,
                   vector::ShuffleOp::create(b, op->getLoc(), a, a, reversed));
    changed = true;
  });
  return changed;
}

struct BooEmuPlantBugPass
    : public mlir::boo::impl::BooEmuPlantBugBase<BooEmuPlantBugPass> {
  using Base::Base;

  void runOnOperation() override {
    std::function<bool(gpu::GPUFuncOp)> plant;
    if (bug == "missing-barrier")
      plant = dropFirstBarrier;
    else if (bug == "off-by-one")
      plant = shiftStores;
    else if (bug == "mma-layout")
      plant = reverseMmaA;
    else {
      getOperation().emitError("boo-emu-plant-bug: unknown bug '")
          << bug << "'; expected missing-barrier, off-by-one or mma-layout";
      return signalPassFailure();
    }
    bool planted = false;
    getOperation().walk([&](gpu::GPUFuncOp kernel) {
      if (kernel.isKernel())
        planted |= plant(kernel);
    });
    if (!planted) {
      getOperation().emitError("boo-emu-plant-bug: no kernel has a place "
                               "for bug '")
          << bug << "'";
      return signalPassFailure();
    }
  }
};

} // namespace
