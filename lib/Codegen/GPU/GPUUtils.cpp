//===- GPUUtils.cpp - Helpers shared by the GPU passes --------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::boo;

scf::ForallOp mlir::boo::createThreadLoop(OpBuilder &b, Location loc,
                                          int64_t threads) {
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> count = {b.getIndexAttr(threads)};
  auto loop = scf::ForallOp::create(
      b, loc, count, ValueRange(),
      b.getArrayAttr(
          {gpu::GPUThreadMappingAttr::get(ctx, gpu::MappingId::LinearDim0)}));
  b.setInsertionPointToStart(loop.getBody());
  return loop;
}
