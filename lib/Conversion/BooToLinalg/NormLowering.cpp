//===- NormLowering.cpp - Layer norms to linalg.generic -------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Layer norm statistics are row reductions over the trailing (normalized)
// dims, computed in f32 with two passes (mean, then the centered sum of
// squares) for accuracy; y, dx, dweight and dbias are element-wise generics
// or reductions over the leading dims that read those statistics.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilder.h"

#include "Boo/Dialect/Boo/IR/BooAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

namespace {
using Exprs = SmallVector<AffineExpr>;

/// Row geometry: x is [outer..., inner...] with `inner` normalized dims,
/// one loop per dim of x; the loops and which are reductions of the row
/// sums (the inner ones) come from the op's loop nest (getOpLoopNest).
struct Rows {
  int64_t rank;
  SmallVector<int64_t> outerShape, innerShape;
  Exprs all, outer, inner;
  int64_t rowSize = 1;
  SmallVector<utils::IteratorType> reduceInner, reduceOuter;

  Rows(LinalgBuilder &lb, RankedTensorType x, const KernelLoopNest &nest)
      : rank(x.getRank()) {
    all = lb.dims(rank);
    for (int64_t d = 0; d < rank; ++d) {
      bool isOuter = !nest.loops[d].isReduction;
      (isOuter ? outerShape : innerShape).push_back(x.getDimSize(d));
      (isOuter ? outer : inner).push_back(all[d]);
      reduceInner.push_back(isOuter ? utils::IteratorType::parallel
                                    : utils::IteratorType::reduction);
      reduceOuter.push_back(isOuter ? utils::IteratorType::reduction
                                    : utils::IteratorType::parallel);
      if (!isOuter)
        rowSize *= x.getDimSize(d);
    }
  }
};

/// Index expressions of the inputs of an element-wise generic.
SmallVector<std::optional<Exprs>> explicitMaps(ArrayRef<Exprs> exprs) {
  return SmallVector<std::optional<Exprs>>(exprs.begin(), exprs.end());
}

SmallVector<Value> lowerForward(LinalgBuilder &lb, LayerNormOp op,
                                const KernelLoopNest &nest, ValueRange operands,
                                bool keepF32) {
  auto xType = cast<RankedTensorType>(op.getX().getType());
  Rows rows(lb, xType, nest);
  Value x = operands[0];
  double invM = 1.0 / static_cast<double>(rows.rowSize);
  float eps = op.getEpsilon().convertToFloat();

  // The row sum is the root: its loops are the op's loop nest (rows, then
  // the normalized dims as reductions).
  Value sum =
      lb.generic(rows.rank, {x}, {rows.all},
                 lb.zeros(rows.outerShape, lb.f32()), rows.outer,
                 rows.reduceInner, [&](OpBuilder &b, Location l, ValueRange a) {
                   return addF(b, l, a[1], lb.toF32(b, l, a[0]));
                 });
  lb.markRoot(sum);
  Value mean = lb.elementwise({sum}, {}, lb.empty(rows.outerShape, lb.f32()),
                              [&](OpBuilder &b, Location l, ValueRange a) {
                                return mulF(b, l, a[0],
                                            lb.f32Const(b, l, invM));
                              });
  Value sq =
      lb.generic(rows.rank, {x, mean}, {rows.all, rows.outer},
                 lb.zeros(rows.outerShape, lb.f32()), rows.outer,
                 rows.reduceInner, [&](OpBuilder &b, Location l, ValueRange a) {
                   Value d = subF(b, l, lb.toF32(b, l, a[0]), a[1]);
                   return addF(b, l, a[2], mulF(b, l, d, d));
                 });
  Value rstd = lb.elementwise(
      {sq}, {}, lb.empty(rows.outerShape, lb.f32()),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value var = addF(b, l, mulF(b, l, a[0], lb.f32Const(b, l, invM)),
                        lb.f32Const(b, l, eps));
        return arith::DivFOp::create(b, l, lb.f32Const(b, l, 1.0),
                                     math::SqrtOp::create(b, l, var));
      });

  // y = (x - mean) * rstd [* weight] [+ bias].
  Type yElem = keepF32 ? lb.f32() : xType.getElementType();
  SmallVector<Value> ins = {x, mean, rstd};
  SmallVector<Exprs> exprs = {rows.all, rows.outer, rows.outer};
  int64_t weightIdx = -1, biasIdx = -1;
  if (op.getWeight()) {
    weightIdx = ins.size();
    ins.push_back(operands[1]);
    exprs.push_back(rows.inner);
  }
  if (op.getBias()) {
    biasIdx = ins.size();
    ins.push_back(operands[op.getWeight() ? 2 : 1]);
    exprs.push_back(rows.inner);
  }
  Value y = lb.elementwise(
      ins, explicitMaps(exprs), lb.empty(xType.getShape(), yElem),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value v = mulF(b, l, subF(b, l, lb.toF32(b, l, a[0]), a[1]), a[2]);
        if (weightIdx >= 0)
          v = mulF(b, l, v, lb.toF32(b, l, a[weightIdx]));
        if (biasIdx >= 0)
          v = addF(b, l, v, lb.toF32(b, l, a[biasIdx]));
        return lb.castTo(b, l, v, yElem);
      });
  auto statElem = [&](Value v) {
    return keepF32 ? lb.f32()
                   : cast<RankedTensorType>(v.getType()).getElementType();
  };
  return {y, lb.convertElements(mean, statElem(op.getMean())),
          lb.convertElements(rstd, statElem(op.getRstd()))};
}

SmallVector<Value> lowerBackward(LinalgBuilder &lb, LayerNormBwdOp op,
                                 const KernelLoopNest &nest,
                                 ValueRange operands, bool keepF32) {
  auto xType = cast<RankedTensorType>(op.getX().getType());
  Rows rows(lb, xType, nest);
  Value dy = operands[0], x = operands[1], mean = operands[2],
        rstd = operands[3];
  Value weight = op.getWeight() ? operands[4] : Value();
  double invM = 1.0 / static_cast<double>(rows.rowSize);

  // xhat = (x - mean) * rstd; g = dy * weight.
  auto xhat = [&](OpBuilder &b, Location l, Value xv, Value m, Value r) {
    return mulF(b, l, subF(b, l, lb.toF32(b, l, xv), lb.toF32(b, l, m)),
               lb.toF32(b, l, r));
  };
  auto gradScaled = [&](OpBuilder &b, Location l, Value dyv, Value w) {
    Value g = lb.toF32(b, l, dyv);
    return w ? mulF(b, l, g, lb.toF32(b, l, w)) : g;
  };
  SmallVector<Value> rowIns = {dy, x, mean, rstd};
  SmallVector<Exprs> rowExprs = {rows.all, rows.all, rows.outer, rows.outer};
  if (weight) {
    rowIns.push_back(weight);
    rowExprs.push_back(rows.inner);
  }
  // Row sums of g and of g * xhat; the first is the root.
  Value sumG =
      lb.generic(rows.rank, rowIns, rowExprs,
                 lb.zeros(rows.outerShape, lb.f32()), rows.outer,
                 rows.reduceInner, [&](OpBuilder &b, Location l, ValueRange a) {
                   Value g = gradScaled(b, l, a[0], weight ? a[4] : Value());
                   return addF(b, l, a.back(), g);
                 });
  lb.markRoot(sumG);
  Value sumGX = lb.generic(
      rows.rank, rowIns, rowExprs, lb.zeros(rows.outerShape, lb.f32()),
      rows.outer, rows.reduceInner,
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value g = gradScaled(b, l, a[0], weight ? a[4] : Value());
        Value gx = mulF(b, l, g, xhat(b, l, a[1], a[2], a[3]));
        return addF(b, l, a.back(), gx);
      });

  // dx = rstd * (g - sumG/M - xhat * sumGX/M).
  Type dxElem = keepF32 ? lb.f32() : xType.getElementType();
  SmallVector<Value> dxIns = rowIns;
  SmallVector<Exprs> dxExprs = rowExprs;
  dxIns.append({sumG, sumGX});
  dxExprs.append({rows.outer, rows.outer});
  size_t sumIdx = dxIns.size() - 2;
  Value dx = lb.elementwise(
      dxIns, explicitMaps(dxExprs), lb.empty(xType.getShape(), dxElem),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value g = gradScaled(b, l, a[0], weight ? a[4] : Value());
        Value xh = xhat(b, l, a[1], a[2], a[3]);
        Value invMc = lb.f32Const(b, l, invM);
        Value v = subF(b, l, g, mulF(b, l, a[sumIdx], invMc));
        v = subF(b, l, v, mulF(b, l, xh, mulF(b, l, a[sumIdx + 1], invMc)));
        return lb.castTo(b, l, mulF(b, l, lb.toF32(b, l, a[3]), v), dxElem);
      });

  // dweight = sum over rows of dy * xhat; dbias = sum over rows of dy: one
  // generic with both sums (one kernel that reads dy once), rounded to the
  // parameters' type by one element-wise generic.
  OpBuilder &b = lb.getBuilder();
  Location loc = lb.getLoc();
  MLIRContext *ctx = b.getContext();
  auto map = [&](ArrayRef<AffineExpr> e) {
    return AffineMap::get(rows.rank, 0, e, ctx);
  };
  // Distinct inits: one buffer each after bufferization.
  Value sumW = lb.zeros(rows.innerShape, lb.f32());
  Value sumB = lb.zeros(rows.innerShape, lb.f32());
  auto sums = linalg::GenericOp::create(
      b, loc, TypeRange{sumW.getType(), sumB.getType()},
      ValueRange{dy, x, mean, rstd}, ValueRange{sumW, sumB},
      SmallVector<AffineMap>{map(rows.all), map(rows.all), map(rows.outer),
                             map(rows.outer), map(rows.inner), map(rows.inner)},
      rows.reduceOuter, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value g = lb.toF32(nb, l, a[0]);
        Value gx = mulF(nb, l, g, xhat(nb, l, a[1], a[2], a[3]));
        linalg::YieldOp::create(
            nb, l, ValueRange{addF(nb, l, a[4], gx), addF(nb, l, a[5], g)});
      });
  Type paramElem = keepF32 ? lb.f32() : xType.getElementType();
  SmallVector<Value> params = lb.convertElements(
      SmallVector<Value>(sums.getResults()), {paramElem, paramElem});
  return {dx, params[0], params[1]};
}
} // namespace

FailureOr<SmallVector<Value>>
mlir::boo::detail::lowerNormOp(LinalgBuilder &lb, Operation *op,
                               ValueRange operands, bool keepF32) {
  FailureOr<KernelLoopNest> nest = getOpLoopNest(op);
  if (failed(nest) ||
      nest->getNumLoops() !=
          cast<ShapedType>(op->getOperand(0).getType()).getRank())
    return failure();
  return TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(op)
      .Case([&](LayerNormOp o) {
        return lowerForward(lb, o, *nest, operands, keepF32);
      })
      .Case([&](LayerNormBwdOp o) {
        return lowerBackward(lb, o, *nest, operands, keepF32);
      })
      .Default([](Operation *) { return failure(); });
}
