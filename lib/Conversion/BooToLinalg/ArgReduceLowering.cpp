//===- ArgReduceLowering.cpp - boo.argmax/argmin to linalg.generic --------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// An arg-reduction is one generic over the input's dims, the reduced ones
// reductions, with two accumulators: the best value so far (f32, from -inf
// or +inf) and its index (i64, from 0). An element replaces them when it
// compares strictly better (so ties keep the first index) or is NaN while
// the best is not (so the first NaN wins, as PyTorch's). Without a dim the
// index is the row-major position in the whole input. keepdim's unit dims
// are added by a tensor.expand_shape of the result.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"
#include <limits>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

namespace {

/// The row-major position of the reduced loops' indices in their own
/// extents (the index along one dim, or in the flattened input).
Value linearIndex(OpBuilder &b, Location l, RankedTensorType x,
                  ArrayRef<int64_t> reduced) {
  Value index = linalg::IndexOp::create(b, l, reduced.front());
  for (int64_t d : reduced.drop_front()) {
    Value extent = arith::ConstantIndexOp::create(b, l, x.getDimSize(d));
    Value scaled = arith::MulIOp::create(b, l, index, extent);
    index = arith::AddIOp::create(b, l, scaled,
                                  linalg::IndexOp::create(b, l, d));
  }
  return arith::IndexCastOp::create(b, l, b.getI64Type(), index);
}

template <typename OpTy>
SmallVector<Value> lowerArgReduce(LinalgBuilder &lb, OpTy op, Value input,
                                  bool isMax) {
  OpBuilder &b = lb.getBuilder();
  Location loc = lb.getLoc();
  MLIRContext *ctx = b.getContext();
  auto x = cast<RankedTensorType>(op.getInput().getType());
  std::optional<int64_t> dim = op.getDim();
  SmallVector<int64_t> reduced, keptShape;
  SmallVector<AffineExpr> kept;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    bool isReduced = !dim || d == *dim;
    (isReduced ? reduced : keptShape).push_back(isReduced ? d
                                                          : x.getDimSize(d));
    if (!isReduced)
      kept.push_back(getAffineDimExpr(d, ctx));
    iterators.push_back(isReduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
  }
  double start = isMax ? -std::numeric_limits<double>::infinity()
                       : std::numeric_limits<double>::infinity();
  Value startValue =
      arith::ConstantOp::create(b, loc, b.getF32FloatAttr(start));
  Value best =
      linalg::FillOp::create(b, loc, startValue, lb.empty(keptShape, lb.f32()))
          .getResult(0);
  Value index = lb.zeros(keptShape, b.getI64Type());
  auto map = [&](ArrayRef<AffineExpr> e) {
    return AffineMap::get(x.getRank(), 0, e, ctx);
  };
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{best.getType(), index.getType()}, ValueRange{input},
      ValueRange{best, index},
      SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(x.getRank(),
                                                               ctx),
                             map(kept), map(kept)},
      iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = lb.toF32(nb, l, a[0]);
        auto better = isMax ? arith::CmpFPredicate::OGT
                            : arith::CmpFPredicate::OLT;
        Value wins = arith::CmpFOp::create(nb, l, better, v, a[1]);
        Value vNaN =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v);
        Value bestOrdered =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::ORD, a[1], a[1]);
        Value nanWins = arith::AndIOp::create(nb, l, vNaN, bestOrdered);
        Value take = arith::OrIOp::create(nb, l, wins, nanWins);
        Value i = linearIndex(nb, l, x, reduced);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, take, v, a[1]),
                       arith::SelectOp::create(nb, l, take, i, a[2])});
      });
  Value result = lb.markRoot(generic.getResult(1));
  auto resultType = cast<RankedTensorType>(op.getOutput().getType());
  if (resultType.getShape() == ArrayRef(keptShape))
    return {result};
  // keepdim: the reduced dims come back as 1s, each in the group of the
  // kept dim before it (the first kept dim's, if none is before it); with
  // every dim reduced, a rank-0 tensor expands to 1s with no groups.
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t d = 0; d < resultType.getRank(); ++d) {
    bool isReduced = !dim || d == *dim;
    if (isReduced && groups.empty()) {
      leading.push_back(d);
      continue;
    }
    if (!isReduced) {
      groups.push_back(leading);
      leading.clear();
    }
    groups.back().push_back(d);
  }
  return {tensor::ExpandShapeOp::create(b, loc, resultType, result, groups)};
}
} // namespace

FailureOr<SmallVector<Value>>
mlir::boo::detail::lowerArgReduceOp(LinalgBuilder &lb, Operation *op,
                                    ValueRange operands) {
  return TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(op)
      .Case([&](ArgMaxOp o) {
        return lowerArgReduce(lb, o, operands[0], true);
      })
      .Case([&](ArgMinOp o) {
        return lowerArgReduce(lb, o, operands[0], false);
      })
      .Default([](Operation *) { return failure(); });
}
