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
// index is the row-major position in the whole input. A large reduction
// with few kept elements (an argmax over all elements) is split in groups
// (getArgReduceForm): a first generic keeps each group's best and its
// index in the input, a second reduces the groups' bests, a tie going to
// the smaller index. keepdim's unit dims are added by a tensor.expand_shape
// of the result.
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

/// The row-major position of loops `dims` in their extents in `shape`.
Value linearIndex(OpBuilder &b, Location l, ArrayRef<int64_t> shape,
                  ArrayRef<int64_t> dims) {
  Value index = linalg::IndexOp::create(b, l, dims.front());
  for (int64_t d : dims.drop_front()) {
    Value extent = arith::ConstantIndexOp::create(b, l, shape[d]);
    Value scaled = arith::MulIOp::create(b, l, index, extent);
    index = arith::AddIOp::create(b, l, scaled,
                                  linalg::IndexOp::create(b, l, d));
  }
  return arith::IndexCastOp::create(b, l, b.getI64Type(), index);
}

/// One pass of an arg-reduction over `ins` (values, and their indices
/// where given; both of shape `shape`), reducing the loops marked in
/// `reduced`: the best value (f32) and its index (i64) of each kept
/// element. A value replaces the best when it compares strictly better
/// (ties keep the first index) or is NaN while the best is not (the first
/// NaN wins). Without indices, a value's index is the row-major position
/// of loops `indexDims`; with them (the groups' bests, whose indices are
/// not in order), a tie or a second NaN goes to the smaller index.
linalg::GenericOp argReducePass(LinalgBuilder &lb, bool isMax, ValueRange ins,
                                ArrayRef<int64_t> shape,
                                ArrayRef<bool> reduced,
                                ArrayRef<int64_t> indexDims) {
  OpBuilder &b = lb.getBuilder();
  Location loc = lb.getLoc();
  MLIRContext *ctx = b.getContext();
  int64_t rank = shape.size();
  SmallVector<int64_t> keptShape;
  SmallVector<AffineExpr> kept;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      keptShape.push_back(shape[d]);
      kept.push_back(getAffineDimExpr(d, ctx));
    }
    iterators.push_back(reduced[d] ? utils::IteratorType::reduction
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
  AffineMap all = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps(ins.size(), all);
  maps.append(2, AffineMap::get(rank, 0, kept, ctx));
  return linalg::GenericOp::create(
      b, loc, TypeRange{best.getType(), index.getType()}, ins,
      ValueRange{best, index}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = lb.toF32(nb, l, a[0]);
        Value bestSoFar = a[ins.size()], indexSoFar = a[ins.size() + 1];
        auto better = isMax ? arith::CmpFPredicate::OGT
                            : arith::CmpFPredicate::OLT;
        Value wins = arith::CmpFOp::create(nb, l, better, v, bestSoFar);
        Value vNaN =
            arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v);
        Value bestOrdered = arith::CmpFOp::create(
            nb, l, arith::CmpFPredicate::ORD, bestSoFar, bestSoFar);
        bool given = ins.size() > 1;
        Value i = given ? a[1] : linearIndex(nb, l, shape, indexDims);
        if (given) {
          Value first = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                              i, indexSoFar);
          Value equal = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                              v, bestSoFar);
          wins = arith::OrIOp::create(
              nb, l, wins, arith::AndIOp::create(nb, l, equal, first));
          bestOrdered = arith::OrIOp::create(nb, l, bestOrdered, first);
        }
        Value nanWins = arith::AndIOp::create(nb, l, vNaN, bestOrdered);
        Value take = arith::OrIOp::create(nb, l, wins, nanWins);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, take, v, bestSoFar),
                       arith::SelectOp::create(nb, l, take, i, indexSoFar)});
      });
}

/// `input` viewed as `form.shape` (its reduced extent split in groups;
/// flattened first where every dim is reduced, `all`).
Value viewAsForm(LinalgBuilder &lb, Value input, const ArgReduceForm &form,
                 bool all) {
  OpBuilder &b = lb.getBuilder();
  Location loc = lb.getLoc();
  auto x = cast<RankedTensorType>(input.getType());
  if (form.groups == 1)
    return input;
  auto type = RankedTensorType::get(form.shape, x.getElementType());
  SmallVector<ReassociationIndices> groups;
  if (all && x.getRank() > 1) {
    ReassociationIndices dims;
    for (int64_t d = 0; d < x.getRank(); ++d)
      dims.push_back(d);
    input = tensor::CollapseShapeOp::create(b, loc, input, {dims});
    return tensor::ExpandShapeOp::create(b, loc, type, input,
                                         {ReassociationIndices{0, 1}});
  }
  for (int64_t d = 0, e = form.shape.size(); d < e; ++d) {
    if (d == form.groupDim)
      groups.back().push_back(d);
    else
      groups.push_back({d});
  }
  return tensor::ExpandShapeOp::create(b, loc, type, input, groups);
}

template <typename OpTy>
FailureOr<SmallVector<Value>> lowerArgReduce(LinalgBuilder &lb, OpTy op,
                                             Value input, bool isMax) {
  OpBuilder &b = lb.getBuilder();
  Location loc = lb.getLoc();
  std::optional<int64_t> dim = op.getDim();
  FailureOr<ArgReduceForm> form = getArgReduceForm(op);
  if (failed(form))
    return failure();
  // The first pass indexes the input's reduced positions (row * groups +
  // group where split); a second pass reduces the groups.
  SmallVector<int64_t> indexDims;
  for (int64_t d = 0, e = form->shape.size(); d < e; ++d)
    if (form->reduced[d] || d == form->groupDim)
      indexDims.push_back(d);
  linalg::GenericOp first =
      argReducePass(lb, isMax, viewAsForm(lb, input, *form, !dim),
                    form->shape, form->reduced, indexDims);
  Value result = lb.markRoot(first.getResult(1));
  if (form->groups > 1) {
    SmallVector<int64_t> rowShape;
    SmallVector<bool> reduceGroups;
    for (int64_t d = 0, e = form->shape.size(); d < e; ++d)
      if (!form->reduced[d]) {
        rowShape.push_back(form->shape[d]);
        reduceGroups.push_back(d == form->groupDim);
      }
    result = argReducePass(lb, isMax, first.getResults(), rowShape,
                           reduceGroups, {})
                 .getResult(1);
  }
  auto resultType = cast<RankedTensorType>(op.getOutput().getType());
  if (resultType == result.getType())
    return SmallVector<Value>{result};
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
  return SmallVector<Value>{
      tensor::ExpandShapeOp::create(b, loc, resultType, result, groups)};
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
