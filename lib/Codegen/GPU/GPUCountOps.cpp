//===- GPUCountOps.cpp - What one thread of a kernel executes -------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-gpu-count-ops`: per kernel, the memory traffic, MMA instructions,
// barriers and other ops one thread executes, weighted by static trip
// counts, as `boo.op_counts` (see Passes.td). The performance estimate
// (lib/Target/ROCDL/PerfEstimate.cpp) scales them by the launch.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/GPU/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPUCOUNTOPS
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// Executions by one thread, per kind.
struct Counts {
  int64_t globalLoads = 0, globalLoadBytes = 0;
  int64_t globalStores = 0, globalStoreBytes = 0;
  int64_t ldsReads = 0, ldsReadBytes = 0;
  int64_t ldsWrites = 0, ldsWriteBytes = 0;
  int64_t mma = 0, mmaFlops = 0;
  int64_t barriers = 0, ops = 0;
  bool approximate = false;

  /// The keys of `boo.op_counts`, in the order of fields().
  static constexpr StringLiteral kNames[] = {
      "global_loads",       "global_load_bytes", "global_stores",
      "global_store_bytes", "lds_reads",         "lds_read_bytes",
      "lds_writes",         "lds_write_bytes",   "mma",
      "mma_flops",          "barriers",          "ops"};

  SmallVector<int64_t *> fields() {
    return {&globalLoads, &globalLoadBytes, &globalStores, &globalStoreBytes,
            &ldsReads,    &ldsReadBytes,    &ldsWrites,    &ldsWriteBytes,
            &mma,         &mmaFlops,        &barriers,     &ops};
  }
  void add(Counts other, int64_t times) {
    for (auto [mine, theirs] : llvm::zip(fields(), other.fields()))
      *mine += *theirs * times;
    approximate |= other.approximate;
  }
  /// Per kind, the larger of the two (the branches of an scf.if).
  void maxWith(Counts other) {
    for (auto [mine, theirs] : llvm::zip(fields(), other.fields()))
      *mine = std::max(*mine, *theirs);
    approximate |= other.approximate;
  }
};

enum class Space { Global, LDS, Private };

Space getSpace(Type memrefType) {
  auto type = cast<BaseMemRefType>(memrefType);
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  if (space && space.getValue() == gpu::AddressSpace::Workgroup)
    return Space::LDS;
  if (space && space.getValue() == gpu::AddressSpace::Private)
    return Space::Private;
  return Space::Global;
}

int64_t bytesOf(Type value) {
  if (auto vector = dyn_cast<VectorType>(value))
    return vector.getNumElements() *
           llvm::divideCeil(vector.getElementTypeBitWidth(), 8);
  return llvm::divideCeil(value.getIntOrFloatBitWidth(), 8);
}

void countAccess(Counts &c, Type memref, Type value, bool isLoad) {
  int64_t bytes = bytesOf(value);
  switch (getSpace(memref)) {
  case Space::Global:
    (isLoad ? c.globalLoads : c.globalStores) += 1;
    (isLoad ? c.globalLoadBytes : c.globalStoreBytes) += bytes;
    return;
  case Space::LDS:
    (isLoad ? c.ldsReads : c.ldsWrites) += 1;
    (isLoad ? c.ldsReadBytes : c.ldsWriteBytes) += bytes;
    return;
  case Space::Private:
    return;
  }
}

Counts countBlock(Block &block);

Counts countOp(Operation *op) {
  Counts c;
  if (auto forOp = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> lb = getConstantIntValue(forOp.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(forOp.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(forOp.getStep());
    int64_t trips = 1;
    if (lb && ub && step && *step > 0)
      trips = std::max<int64_t>(0, llvm::divideCeil(*ub - *lb, *step));
    else
      c.approximate = true;
    c.add(countBlock(*forOp.getBody()), trips);
    return c;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    c = countBlock(*ifOp.thenBlock());
    if (ifOp.elseBlock())
      c.maxWith(countBlock(*ifOp.elseBlock()));
    return c;
  }
  if (auto load = dyn_cast<memref::LoadOp>(op))
    countAccess(c, load.getMemRefType(), load.getType(), /*isLoad=*/true);
  else if (auto store = dyn_cast<memref::StoreOp>(op))
    countAccess(c, store.getMemRefType(), store.getValueToStore().getType(),
                /*isLoad=*/false);
  else if (auto load = dyn_cast<vector::LoadOp>(op))
    countAccess(c, load.getMemRefType(), load.getVectorType(),
                /*isLoad=*/true);
  else if (auto store = dyn_cast<vector::StoreOp>(op))
    countAccess(c, store.getMemRefType(), store.getVectorType(),
                /*isLoad=*/false);
  else if (auto mfma = dyn_cast<amdgpu::MFMAOp>(op))
    c.mma = 1, c.mmaFlops = 2 * int64_t(mfma.getM()) * mfma.getN() *
                            mfma.getK() * mfma.getBlocks();
  else if (auto wmma = dyn_cast<amdgpu::WMMAOp>(op))
    c.mma = 1,
    c.mmaFlops = 2 * int64_t(wmma.getM()) * wmma.getN() * wmma.getK();
  else if (isa<gpu::BarrierOp>(op))
    c.barriers = 1;
  else if (!op->hasTrait<OpTrait::ConstantLike>() &&
           !op->hasTrait<OpTrait::IsTerminator>() && op->getNumRegions() == 0)
    c.ops = 1;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      c.add(countBlock(block), 1);
  return c;
}

Counts countBlock(Block &block) {
  Counts c;
  for (Operation &op : block)
    c.add(countOp(&op), 1);
  return c;
}

struct BooGPUCountOpsPass
    : public mlir::boo::impl::BooGPUCountOpsBase<BooGPUCountOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      Counts c;
      for (Block &block : func.getBody())
        c.add(countBlock(block), 1);
      Builder b(func.getContext());
      NamedAttrList counts;
      for (auto [name, value] : llvm::zip_equal(Counts::kNames, c.fields()))
        counts.append(name, b.getI64IntegerAttr(*value));
      counts.append("approximate", b.getI64IntegerAttr(c.approximate));
      func->setAttr("boo.op_counts", counts.getDictionary(func.getContext()));
    }
  }
};

} // namespace
