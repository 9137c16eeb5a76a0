//===- MMASplitK.cpp - Split-K's combine kernel ---------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// With `split_k = S`, an MMA kernel's workgroups each sum 1/S of the
// reduction steps and store their f32 partial sums to a device temporary
// [S][accumulator shape]. This second kernel gives each thread one
// accumulator element: it adds the S partial sums in split order (the
// result does not depend on scheduling: deterministic), starting from the
// fill's value, and runs the epilogues (bias, activations, the rounding to
// the output type) on the sum, as the MMA kernel would have.
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"
#include "MMAKernel.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::boo;

namespace {
/// Threads of a combine workgroup.
constexpr int64_t kCombineThreads = 256;
} // namespace

LogicalResult mlir::boo::emitSplitKCombine(OpBuilder &b, Location loc,
                                           MMAKernel &kernel, Value partials) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<MemRefType>(partials.getType());
  int64_t splits = type.getDimSize(0);
  ArrayRef<int64_t> shape = type.getShape().drop_front();
  int64_t total = llvm::product_of(shape);
  int64_t groups = llvm::divideCeil(total, kCombineThreads);
  auto cIndex = [&](OpBuilder &ib, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ib, loc, v);
  };

  auto workgroups = scf::ForallOp::create(
      b, loc, getAsIndexOpFoldResult(ctx, ArrayRef<int64_t>{groups}),
      ValueRange(),
      b.getArrayAttr(
          {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::LinearDim0)}));
  OpBuilder wb = OpBuilder::atBlockBegin(workgroups.getBody());
  Value group = workgroups.getInductionVar(0);
  scf::ForallOp threads = createThreadLoop(wb, loc, kCombineThreads);
  Value idx = arith::AddIOp::create(
      wb, loc, threads.getInductionVar(0),
      arith::MulIOp::create(wb, loc, group, cIndex(wb, kCombineThreads)));
  auto guard = scf::IfOp::create(
      wb, loc,
      arith::CmpIOp::create(wb, loc, arith::CmpIPredicate::ult, idx,
                            cIndex(wb, total)),
      /*withElseRegion=*/false);
  OpBuilder gb = OpBuilder::atBlockTerminator(guard.thenBlock());

  // The element's indices, row-major.
  SmallVector<Value> indices(shape.size());
  Value rest = idx;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value size = cIndex(gb, shape[d]);
    indices[d] = d == 0 ? rest : arith::RemUIOp::create(gb, loc, rest, size);
    if (d != 0)
      rest = arith::DivUIOp::create(gb, loc, rest, size);
  }
  // The partial sums in split order, from the fill's value.
  auto sum = scf::ForOp::create(
      gb, loc, cIndex(gb, 0), cIndex(gb, splits), cIndex(gb, 1),
      ValueRange{kernel.initValue},
      [&](OpBuilder &lb, Location, Value s, ValueRange iterArgs) {
        SmallVector<Value> at = {s};
        llvm::append_range(at, indices);
        Value part = memref::LoadOp::create(lb, loc, partials, at);
        scf::YieldOp::create(
            lb, loc,
            ValueRange{arith::AddFOp::create(lb, loc, iterArgs[0], part)});
      });
  // The accumulation's loop coordinates: its output map is a projection of
  // its parallel loops; reduction loops are not read by the epilogues.
  linalg::GenericOp acc = kernel.acc;
  AffineMap map = acc.getMatchingIndexingMap(acc.getDpsInitOperand(0));
  Value zero = cIndex(gb, 0);
  SmallVector<Value> coords(acc.getNumLoops(), zero);
  for (auto [r, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return emitMMAKernelError(kernel, "split_k needs an accumulator "
                                        "indexed by loops alone");
    coords[dim.getPosition()] = indices[r];
  }
  return emitMMAEpilogue(gb, loc, kernel, sum.getResult(0), coords);
}
