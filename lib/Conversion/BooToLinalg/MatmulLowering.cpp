//===- MatmulLowering.cpp - Matrix products to linalg.generic -------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A boo.matmul becomes one multiply-accumulate linalg.generic over the loops
// of its KernelLoopNest ([b,] m, n, k; getOpLoopNest is the one definition
// of their order), accumulating in f32 (f64 products in f64), and an
// element-wise epilogue that scales by alpha, adds beta times the broadcast
// bias and rounds to the storage type once. Transposed operands are read
// through their indexing maps, not copied.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilder.h"

#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Dialect/Boo/IR/BooOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

namespace {
using Exprs = SmallVector<AffineExpr>;

/// The map of a bias broadcast to a result of rank `rank`: trailing dims
/// aligned, a dim of size 1 read at index 0.
Exprs biasExprs(OpBuilder &b, RankedTensorType bias,
                ArrayRef<int64_t> resultShape) {
  Exprs out;
  int64_t lead = resultShape.size() - bias.getRank();
  for (int64_t i = 0; i < bias.getRank(); ++i) {
    bool broadcast = bias.getDimSize(i) == 1 && resultShape[lead + i] != 1;
    out.push_back(broadcast ? b.getAffineConstantExpr(0)
                            : b.getAffineDimExpr(lead + i));
  }
  return out;
}
} // namespace

FailureOr<SmallVector<Value>>
mlir::boo::detail::lowerMatmulOp(LinalgBuilder &lb, Operation *op,
                                 ValueRange operands, bool keepF32) {
  auto mm = dyn_cast<MatmulOp>(op);
  FailureOr<KernelLoopNest> nest = getOpLoopNest(op);
  if (!mm || failed(nest))
    return failure();
  OpBuilder &b = lb.getBuilder();
  MatmulSizes s = mm.getSizes();
  // Loops [b,] m, n, k in the nest's order.
  Exprs loops = lb.dims(nest->getNumLoops());
  SmallVector<utils::IteratorType> iterators;
  for (const KernelLoop &loop : nest->loops)
    iterators.push_back(loop.isReduction ? utils::IteratorType::reduction
                                         : utils::IteratorType::parallel);
  Exprs batch;
  if (s.batched)
    batch.push_back(loops[0]);
  AffineExpr m = loops[batch.size()], n = loops[batch.size() + 1],
             k = loops[batch.size() + 2];
  auto matrix = [&](AffineExpr rows, AffineExpr cols, bool transposed) {
    Exprs e = batch;
    e.push_back(transposed ? cols : rows);
    e.push_back(transposed ? rows : cols);
    return e;
  };
  Exprs outExprs = matrix(m, n, false);
  auto resultType = cast<RankedTensorType>(mm.getOutput().getType());
  ArrayRef<int64_t> shape = resultType.getShape();
  // f64 products accumulate (and stay, under keepF32) in f64.
  Type accElem = resultType.getElementType().isF64() ? b.getF64Type()
                                                     : lb.f32();
  auto toAcc = [&](OpBuilder &nb, Location l, Value v) {
    return lb.castTo(nb, l, v, accElem);
  };
  auto scalar = [&](OpBuilder &nb, Location l, double v) {
    return arith::ConstantOp::create(nb, l, nb.getFloatAttr(accElem, v));
  };
  Value acc = lb.generic(
      nest->getNumLoops(), {operands[0], operands[1]},
      {matrix(m, k, mm.getTransposeLhs()), matrix(k, n, mm.getTransposeRhs())},
      lb.zeros(shape, accElem), outExprs, iterators,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value prod = arith::MulFOp::create(nb, l, toAcc(nb, l, a[0]),
                                           toAcc(nb, l, a[1]));
        return arith::AddFOp::create(nb, l, a[2], prod);
      });
  lb.markRoot(acc);

  Type outElem = keepF32 ? accElem : resultType.getElementType();
  double alpha = mm.getAlpha().convertToDouble();
  double beta = mm.getBeta().convertToDouble();
  bool hasBias = operands.size() > 2;
  if (!hasBias && alpha == 1.0)
    return SmallVector<Value>{lb.convertElements(acc, outElem)};
  SmallVector<Value> ins = {acc};
  SmallVector<std::optional<Exprs>> inExprs = {std::nullopt};
  if (hasBias) {
    ins.push_back(operands[2]);
    inExprs.push_back(biasExprs(
        b, cast<RankedTensorType>(operands[2].getType()), shape));
  }
  Value result = lb.elementwise(
      ins, inExprs, lb.empty(shape, outElem),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = a[0];
        if (alpha != 1.0)
          v = arith::MulFOp::create(nb, l, scalar(nb, l, alpha), v);
        if (hasBias) {
          Value c = toAcc(nb, l, a[1]);
          if (beta != 1.0)
            c = arith::MulFOp::create(nb, l, scalar(nb, l, beta), c);
          v = arith::AddFOp::create(nb, l, v, c);
        }
        return lb.castTo(nb, l, v, outElem);
      });
  return SmallVector<Value>{result};
}

Value mlir::boo::detail::lowerAsStridedOp(LinalgBuilder &lb, AsStridedOp op,
                                          Value storage) {
  OpBuilder &b = lb.getBuilder();
  auto type = cast<RankedTensorType>(op.getOutput().getType());
  AffineExpr index = b.getAffineConstantExpr(0);
  for (auto [d, stride] : llvm::enumerate(op.getStrides()))
    index = index + b.getAffineDimExpr(d) * stride;
  return lb.generic(type.getRank(), {storage}, {{index}},
                    lb.empty(type.getShape(), type.getElementType()),
                    lb.dims(type.getRank()),
                    SmallVector<utils::IteratorType>(
                        type.getRank(), utils::IteratorType::parallel),
                    [](OpBuilder &, Location, ValueRange a) { return a[0]; });
}
