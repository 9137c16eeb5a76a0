//===- GPULowerMMA.cpp - boo-gpu-lower-mma --------------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Upstream MLIR has no path from linalg or vector contractions to
// amdgpu.mfma / amdgpu.wmma. This pass provides the subgroup-level
// primitive: a tile contraction C[MxN] += A[MxK] * B[KxN] on memrefs,
// executed by a whole wave, becomes per-lane fragment loads at the
// positions the hardware defines (MMALayout.h), one MMA instruction, and
// per-lane stores of D.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/GPU/MMALayout.h"

#include "Boo/Codegen/GPU/Passes.h"
#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Target/ChipInfo.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPULOWERMMA
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {

/// Loop roles of a contraction generic: m and n index the output, k is the
/// single reduction loop.
struct ContractionDims {
  unsigned m, n, k;
};

FailureOr<ContractionDims> matchContraction(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 3 || op.getNumReductionLoops() != 1)
    return failure();
  AffineMap out = op.getIndexingMapsArray()[2];
  if (!out.isProjectedPermutation() || out.getNumResults() != 2)
    return failure();
  ContractionDims dims;
  dims.m = cast<AffineDimExpr>(out.getResult(0)).getPosition();
  dims.n = cast<AffineDimExpr>(out.getResult(1)).getPosition();
  dims.k = 3 - dims.m - dims.n;
  AffineMap a = op.getIndexingMapsArray()[0];
  AffineMap b = op.getIndexingMapsArray()[1];
  if (!a.isProjectedPermutation() || !b.isProjectedPermutation() ||
      a.getNumResults() != 2 || b.getNumResults() != 2)
    return failure();
  // The body must be out + a * b, optionally with extensions to f32.
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return failure();
  Value other =
      add.getLhs() == body->getArgument(2) ? add.getRhs() : add.getLhs();
  auto mul = other.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return failure();
  auto isArg = [&](Value v, unsigned idx) {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      v = ext.getIn();
    return v == body->getArgument(idx);
  };
  if (!((isArg(mul.getLhs(), 0) && isArg(mul.getRhs(), 1)) ||
        (isArg(mul.getLhs(), 1) && isArg(mul.getRhs(), 0))))
    return failure();
  return dims;
}

/// Indices into an operand whose map is `map` of the element at loop
/// coordinates `coords` (one affine expression per loop, in `lane`).
SmallVector<Value> operandIndices(OpBuilder &b, Location loc, AffineMap map,
                                  ArrayRef<AffineExpr> coords, Value lane) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    AffineMap m = AffineMap::get(1, 0, coords[d]);
    indices.push_back(affine::AffineApplyOp::create(b, loc, m, lane));
  }
  return indices;
}

struct LowerMMAContraction : public OpRewritePattern<linalg::GenericOp> {
  LowerMMAContraction(MLIRContext *ctx, const ChipInfo &chip)
      : OpRewritePattern(ctx), chip(chip) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    auto name = op->getAttrOfType<StringAttr>("boo.mma");
    if (!name)
      return failure();
    if (!op.hasPureBufferSemantics())
      return rewriter.notifyMatchFailure(op, "expects memref operands");
    if (!chip.lookupMma(name.getValue())) {
      if (!lookupMmaOnAnyChip(name.getValue()))
        return op.emitOpError("unknown MMA intrinsic '")
               << name.getValue() << "' (known: " << getKnownMmaList() << ")";
      return op.emitOpError("MMA intrinsic '")
             << name.getValue() << "' is not available on " << chip.name;
    }
    const MMAIntrinsicLayout *layout =
        lookupMMAIntrinsic(name.getValue(), getWMMAGeneration(chip));
    if (!layout)
      return op.emitOpError("no per-lane layout is known for '")
             << name.getValue() << "' on " << chip.name;
    FailureOr<ContractionDims> dims = matchContraction(op);
    if (failed(dims))
      return op.emitOpError("boo.mma needs a multiply-accumulate contraction "
                            "with one reduction loop");
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges[dims->m] != layout->m || ranges[dims->n] != layout->n ||
        ranges[dims->k] != layout->k)
      return op.emitOpError("tile ")
             << ranges[dims->m] << "x" << ranges[dims->n] << "x"
             << ranges[dims->k] << " does not match " << layout->name;
    Value a = op.getDpsInputOperand(0)->get();
    Value b = op.getDpsInputOperand(1)->get();
    Value c = op.getDpsInitOperand(0)->get();
    Type inType = cast<MemRefType>(a.getType()).getElementType();
    Type wantIn = layout->bf16 ? Type(rewriter.getBF16Type())
                               : Type(rewriter.getF16Type());
    if (inType != wantIn ||
        cast<MemRefType>(b.getType()).getElementType() != wantIn ||
        !cast<MemRefType>(c.getType()).getElementType().isF32())
      return op.emitOpError("operand types do not match ") << layout->name;

    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value lane = gpu::LaneIdOp::create(rewriter, loc, /*upperBound=*/nullptr);
    AffineExpr l = getAffineDimExpr(0, ctx);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    // Loop coordinates of item `item` of an operand, given (row, col) of the
    // operand's logical matrix (A: m x k, B: k x n, C: m x n).
    auto coords = [&](unsigned rowDim, unsigned colDim,
                      std::pair<AffineExpr, AffineExpr> rc) {
      SmallVector<AffineExpr> cs(3, getAffineConstantExpr(0, ctx));
      cs[rowDim] = rc.first;
      cs[colDim] = rc.second;
      return cs;
    };
    auto loadFragment = [&](Value mem, AffineMap map, int64_t items,
                            auto coordFn, unsigned rowDim, unsigned colDim,
                            Type elemType) {
      SmallVector<Value> elems;
      for (int64_t i = 0; i < items; ++i) {
        SmallVector<AffineExpr> cs = coords(rowDim, colDim, coordFn(i));
        elems.push_back(memref::LoadOp::create(
            rewriter, loc, mem, operandIndices(rewriter, loc, map, cs, lane)));
      }
      return vector::FromElementsOp::create(
          rewriter, loc, VectorType::get({items}, elemType), elems);
    };
    Value fa = loadFragment(
        a, maps[0], layout->aItems,
        [&](int64_t i) { return layout->aCoord(l, i); }, dims->m, dims->k,
        inType);
    Value fb = loadFragment(
        b, maps[1], layout->bItems,
        [&](int64_t i) { return layout->bCoord(l, i); }, dims->k, dims->n,
        inType);
    Value fc = loadFragment(
        c, maps[2], layout->cItems,
        [&](int64_t i) { return layout->cCoord(l, i); }, dims->m, dims->n,
        rewriter.getF32Type());
    Value fd = createMMAOp(rewriter, loc, *layout, fa, fb, fc);
    for (int64_t i = 0; i < layout->cItems; ++i) {
      SmallVector<AffineExpr> cs =
          coords(dims->m, dims->n, layout->cCoord(l, i));
      Value v = vector::ExtractOp::create(rewriter, loc, fd, i);
      memref::StoreOp::create(rewriter, loc, v, c,
                              operandIndices(rewriter, loc, maps[2], cs, lane));
    }
    rewriter.eraseOp(op);
    return success();
  }

  const ChipInfo &chip;
};

struct BooGPULowerMMAPass
    : public mlir::boo::impl::BooGPULowerMMABase<BooGPULowerMMAPass> {
  using Base::Base;
  void runOnOperation() override {
    // Each annotated op is rewritten or reported (never silently kept).
    SmallVector<linalg::GenericOp> ops;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op->hasAttr("boo.mma"))
        ops.push_back(op);
    });
    const ChipInfo *info = resolveChip(getOperation(), getArgument());
    if (!info)
      return signalPassFailure();
    LowerMMAContraction pattern(&getContext(), *info);
    bool failedAny = false;
    for (linalg::GenericOp op : ops) {
      PatternRewriter rewriter(&getContext());
      rewriter.setInsertionPoint(op);
      if (failed(pattern.matchAndRewrite(op, rewriter)))
        failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
