//===- BatchNormLowering.cpp - Batch norms to linalg.generic --------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A batch norm is a layer norm turned around: its statistics are reductions
// over the non-feature dims of x, one per feature. Every generic runs over
// the op's loop nest (the feature dims, then the reduced dims; see
// getOpLoopNest), so that x is read through a permutation and the
// statistics are indexed by the leading loops: the shape of the GPU's
// row-reduction kernels (a workgroup per feature) and of the CPU's row
// chains. Statistics are computed in f32 with two passes (mean, then the
// centred sum of squares), as for layer norms.
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
using Iterators = SmallVector<utils::IteratorType>;

/// The loops of the nest: the features first, then the reduced dims.
struct Features {
  unsigned rank;
  /// x's dims in terms of the loops, and the statistics' (the leading
  /// feature loops).
  Exprs x, stat;
  SmallVector<int64_t> xShape, statShape;
  Iterators reduce, parallel;
  /// The values each statistic is taken over.
  int64_t count = 1;

  Features(LinalgBuilder &lb, RankedTensorType xType,
           ArrayRef<int64_t> featureDims)
      : rank(xType.getRank()), xShape(xType.getShape()) {
    Exprs loops = lb.dims(rank);
    SmallVector<int64_t> loopOf(rank, -1);
    unsigned next = 0;
    for (int64_t d : featureDims) {
      loopOf[d] = next++;
      statShape.push_back(xShape[d]);
    }
    for (unsigned d = 0; d < rank; ++d)
      if (loopOf[d] < 0) {
        loopOf[d] = next++;
        count *= xShape[d];
      }
    for (unsigned d = 0; d < rank; ++d)
      x.push_back(loops[loopOf[d]]);
    stat.assign(loops.begin(), loops.begin() + featureDims.size());
    for (unsigned l = 0; l < rank; ++l) {
      bool isFeature = l < featureDims.size();
      reduce.push_back(isFeature ? utils::IteratorType::parallel
                                 : utils::IteratorType::reduction);
      parallel.push_back(utils::IteratorType::parallel);
    }
  }

  /// A sum over the reduced dims into an f32 statistic.
  Value sum(LinalgBuilder &lb, ArrayRef<Value> ins, ArrayRef<Exprs> exprs,
            BodyFn term) const {
    return lb.generic(rank, ins, exprs, lb.zeros(statShape, lb.f32()), stat,
                      reduce, [&](OpBuilder &b, Location l, ValueRange a) {
                        return arith::AddFOp::create(b, l, a.back(),
                                                     term(b, l, a));
                      });
  }
  /// An element-wise generic over the loops that writes an x-shaped result.
  Value normalize(LinalgBuilder &lb, ArrayRef<Value> ins,
                  ArrayRef<Exprs> exprs, Type elem,
                  BodyFn body) const {
    return lb.generic(rank, ins, exprs, lb.empty(xShape, elem), x, parallel,
                      body);
  }
  /// An element-wise generic over the statistics' shape, in f32.
  Value statOp(LinalgBuilder &lb, ArrayRef<Value> ins,
               BodyFn body) const {
    return lb.elementwise(ins, {}, lb.empty(statShape, lb.f32()), body);
  }
};

/// The element type of result `v`, or f32 when the caller rounds later.
Type resultElem(LinalgBuilder &lb, Value v, bool keepF32) {
  return keepF32 ? lb.f32()
                 : cast<RankedTensorType>(v.getType()).getElementType();
}

SmallVector<Value> lowerForward(LinalgBuilder &lb, BatchNormOp op,
                                ValueRange operands, bool keepF32) {
  auto xType = cast<RankedTensorType>(op.getX().getType());
  Features f(lb, xType, op.getFeatureDims());
  // Operands in order: x, [weight], [bias], [running_mean, running_var].
  unsigned next = 1;
  Value x = operands[0];
  Value weight = op.getWeight() ? operands[next++] : Value();
  Value bias = op.getBias() ? operands[next++] : Value();
  Value runMean = op.getRunningMean() ? operands[next++] : Value();
  Value runVar = op.getRunningVar() ? operands[next++] : Value();
  float eps = op.getEpsilon().convertToFloat();
  double momentum = op.getMomentum().convertToFloat();
  double invM = 1.0 / static_cast<double>(f.count);
  auto rsqrt = [&](OpBuilder &b, Location l, Value var) {
    Value v = addF(b, l, var, lb.f32Const(b, l, eps));
    return arith::DivFOp::create(b, l, lb.f32Const(b, l, 1.0),
                                 math::SqrtOp::create(b, l, v));
  };

  Value mean, rstd, sq;
  if (op.getTraining()) {
    // The sum is the root: its loops are the op's loop nest.
    Value sum = lb.markRoot(f.sum(
        lb, {x}, {f.x},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return lb.toF32(b, l, a[0]);
        }));
    mean = f.statOp(lb, {sum}, [&](OpBuilder &b, Location l, ValueRange a) {
      return mulF(b, l, a[0], lb.f32Const(b, l, invM));
    });
    sq = f.sum(lb, {x, mean}, {f.x, f.stat},
               [&](OpBuilder &b, Location l, ValueRange a) {
                 Value d = subF(b, l, lb.toF32(b, l, a[0]), a[1]);
                 return mulF(b, l, d, d);
               });
    rstd = f.statOp(lb, {sq}, [&](OpBuilder &b, Location l, ValueRange a) {
      return rsqrt(b, l, mulF(b, l, a[0], lb.f32Const(b, l, invM)));
    });
  } else {
    mean = lb.convertElements(runMean, lb.f32());
    rstd = f.statOp(lb, {runVar}, [&](OpBuilder &b, Location l, ValueRange a) {
      return rsqrt(b, l, lb.toF32(b, l, a[0]));
    });
  }

  // y = (x - mean) * rstd [* weight] [+ bias].
  Type yElem = keepF32 ? lb.f32() : xType.getElementType();
  SmallVector<Value> ins = {x, mean, rstd};
  SmallVector<Exprs> exprs = {f.x, f.stat, f.stat};
  for (Value param : {weight, bias})
    if (param) {
      ins.push_back(param);
      exprs.push_back(f.stat);
    }
  Value y = f.normalize(
      lb, ins, exprs, yElem, [&](OpBuilder &b, Location l, ValueRange a) {
        Value v = mulF(b, l, subF(b, l, lb.toF32(b, l, a[0]), a[1]), a[2]);
        unsigned i = 3;
        if (weight)
          v = mulF(b, l, v, lb.toF32(b, l, a[i++]));
        if (bias)
          v = addF(b, l, v, lb.toF32(b, l, a[i]));
        return lb.castTo(b, l, v, yElem);
      });
  if (!op.getTraining())
    lb.markRoot(y);
  SmallVector<Value> results = {
      y, lb.convertElements(mean, resultElem(lb, op.getMean(), keepF32)),
      lb.convertElements(rstd, resultElem(lb, op.getRstd(), keepF32))};
  if (op.getNewRunning().empty())
    return results;

  // The running statistics' update; the variance is unbiased (M / (M-1))
  // except for M = 1, as MIOpen's.
  double varScale = f.count > 1 ? 1.0 / static_cast<double>(f.count - 1) : 1.0;
  auto update = [&](Value old, Value stat, double scale, Value result) {
    Type elem = resultElem(lb, result, keepF32);
    return lb.elementwise(
        {old, stat}, {}, lb.empty(f.statShape, elem),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value kept = mulF(b, l, lb.toF32(b, l, a[0]),
                           lb.f32Const(b, l, 1.0 - momentum));
          Value fresh = mulF(b, l, a[1], lb.f32Const(b, l, momentum * scale));
          return lb.castTo(b, l, addF(b, l, kept, fresh), elem);
        });
  };
  results.push_back(update(runMean, mean, 1.0, op.getNewRunning()[0]));
  results.push_back(update(runVar, sq, varScale, op.getNewRunning()[1]));
  return results;
}

SmallVector<Value> lowerBackward(LinalgBuilder &lb, BatchNormBwdOp op,
                                 ValueRange operands, bool keepF32) {
  auto xType = cast<RankedTensorType>(op.getX().getType());
  Features f(lb, xType, op.getFeatureDims());
  Value dy = operands[0], x = operands[1], mean = operands[2],
        rstd = operands[3];
  Value weight = op.getWeight() ? operands[4] : Value();
  double invM = 1.0 / static_cast<double>(f.count);
  auto xhat = [&](OpBuilder &b, Location l, Value xv, Value m, Value r) {
    return mulF(b, l, subF(b, l, lb.toF32(b, l, xv), lb.toF32(b, l, m)),
               lb.toF32(b, l, r));
  };
  // dbias = sum(dy) (the root) and dweight = sum(dy * xhat).
  SmallVector<Value> ins = {dy, x, mean, rstd};
  SmallVector<Exprs> exprs = {f.x, f.x, f.stat, f.stat};
  Value sumDy = lb.markRoot(
      f.sum(lb, ins, exprs, [&](OpBuilder &b, Location l, ValueRange a) {
        return lb.toF32(b, l, a[0]);
      }));
  Value sumDyXhat =
      f.sum(lb, ins, exprs, [&](OpBuilder &b, Location l, ValueRange a) {
        return mulF(b, l, lb.toF32(b, l, a[0]), xhat(b, l, a[1], a[2], a[3]));
      });

  // dx = weight * rstd * (dy - sumDy / M - xhat * sumDyXhat / M).
  Type dxElem = keepF32 ? lb.f32() : xType.getElementType();
  ins.append({sumDy, sumDyXhat});
  exprs.append({f.stat, f.stat});
  if (weight) {
    ins.push_back(weight);
    exprs.push_back(f.stat);
  }
  Value dx = f.normalize(
      lb, ins, exprs, dxElem, [&](OpBuilder &b, Location l, ValueRange a) {
        Value invMc = lb.f32Const(b, l, invM);
        Value v = subF(b, l, lb.toF32(b, l, a[0]), mulF(b, l, a[4], invMc));
        Value xh = xhat(b, l, a[1], a[2], a[3]);
        v = subF(b, l, v, mulF(b, l, xh, mulF(b, l, a[5], invMc)));
        Value scale = lb.toF32(b, l, a[3]);
        if (weight)
          scale = mulF(b, l, scale, lb.toF32(b, l, a[6]));
        return lb.castTo(b, l, mulF(b, l, scale, v), dxElem);
      });
  SmallVector<Value> params = lb.convertElements(
      {sumDyXhat, sumDy}, {resultElem(lb, op.getDweight(), keepF32),
                           resultElem(lb, op.getDbias(), keepF32)});
  return {dx, params[0], params[1]};
}
} // namespace

FailureOr<SmallVector<Value>>
mlir::boo::detail::lowerBatchNormOp(LinalgBuilder &lb, Operation *op,
                                    ValueRange operands, bool keepF32) {
  return TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(op)
      .Case([&](BatchNormOp o) {
        return lowerForward(lb, o, operands, keepF32);
      })
      .Case([&](BatchNormBwdOp o) {
        return lowerBackward(lb, o, operands, keepF32);
      })
      .Default([](Operation *) { return failure(); });
}
