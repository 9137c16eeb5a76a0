//===- GPUUtils.cpp - Helpers shared by the GPU passes --------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "GPUUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

bool mlir::boo::isUnitIn(AffineExpr expr, AffineExpr pos, unsigned numDims,
                         unsigned numSymbols) {
  AffineExpr diff = expr.replace(pos, pos + 1) - expr;
  auto c = dyn_cast<AffineConstantExpr>(
      simplifyAffineExpr(diff, numDims, numSymbols));
  return c && c.getValue() == 1;
}

bool mlir::boo::isUnitStrideAlong(Value buffer, AffineMap map, unsigned loop) {
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!map || !type || !type.hasStaticShape() || !type.getLayout().isIdentity())
    return false;
  AffineExpr linear = getAffineConstantExpr(0, type.getContext());
  int64_t stride = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    linear = linear + map.getResult(d) * stride;
    stride *= type.getDimSize(d);
  }
  return isUnitIn(linear, getAffineDimExpr(loop, type.getContext()),
                  map.getNumDims(), map.getNumSymbols());
}

Value mlir::boo::collapseTrailingDims(OpBuilder &b, Location loc, Value memref,
                                      int64_t d) {
  auto type = cast<MemRefType>(memref.getType());
  if (d + 1 >= type.getRank())
    return memref;
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < d; ++i)
    groups.push_back({i});
  groups.emplace_back();
  for (int64_t i = d; i < type.getRank(); ++i)
    groups.back().push_back(i);
  return memref::CollapseShapeOp::create(b, loc, memref, groups);
}

bool mlir::boo::isMappedTo(scf::ForallOp loop, bool threads) {
  std::optional<ArrayAttr> mapping = loop.getMapping();
  if (!mapping || mapping->empty())
    return false;
  return llvm::all_of(*mapping, [&](Attribute attr) {
    return threads ? isa<gpu::GPUThreadMappingAttr>(attr)
                   : isa<gpu::GPUBlockMappingAttr>(attr);
  });
}

bool mlir::boo::contiguousAlong(MemRefType type, int64_t d) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides[d] != 1)
    return false;
  return llvm::all_of(type.getShape().drop_front(d + 1),
                      [](int64_t size) { return size == 1; });
}
