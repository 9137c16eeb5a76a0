//===- LinalgBuilder.cpp - Helpers to build linalg on tensors -------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

Value LinalgBuilder::toF32(OpBuilder &nb, Location l, Value v) {
  return castTo(nb, l, v, nb.getF32Type());
}

Value LinalgBuilder::castTo(OpBuilder &nb, Location l, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(nb, l, to, v);
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return arith::TruncFOp::create(nb, l, to, v);
  // f16 <-> bf16: go through f32, rounding once.
  Value wide = arith::ExtFOp::create(nb, l, nb.getF32Type(), v);
  return arith::TruncFOp::create(nb, l, to, wide);
}

Value mlir::boo::detail::addF(OpBuilder &b, Location l, Value x, Value y) {
  return arith::AddFOp::create(b, l, x, y);
}
Value mlir::boo::detail::subF(OpBuilder &b, Location l, Value x, Value y) {
  return arith::SubFOp::create(b, l, x, y);
}
Value mlir::boo::detail::mulF(OpBuilder &b, Location l, Value x, Value y) {
  return arith::MulFOp::create(b, l, x, y);
}

Value LinalgBuilder::f32Const(OpBuilder &nb, Location l, double v) {
  return arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(v));
}

Value LinalgBuilder::empty(ArrayRef<int64_t> shape, Type elem) {
  return tensor::EmptyOp::create(b, loc, shape, elem);
}

Value LinalgBuilder::zeros(ArrayRef<int64_t> shape, Type elem) {
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elem));
  return linalg::FillOp::create(b, loc, zero, empty(shape, elem)).getResult(0);
}

Value LinalgBuilder::padOrCrop(Value t, ArrayRef<int64_t> low,
                               ArrayRef<int64_t> high) {
  // result[j] = t[j - low] where in range, else 0, per dim; the result has
  // size + low + high elements. Negative amounts crop.
  auto type = cast<RankedTensorType>(t.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> resultShape, srcStart, srcSize, padLo, padHi;
  bool empty = false, crop = false, pad = false;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = type.getDimSize(d);
    int64_t total = size + low[d] + high[d];
    int64_t start = std::max<int64_t>(0, -low[d]);
    int64_t end = std::min<int64_t>(size, total - low[d]);
    resultShape.push_back(total);
    if (end <= start) {
      // Every element of this dim is padding (e.g. a gradient whose every
      // tap reads the convolution's padding).
      empty = true;
      continue;
    }
    srcStart.push_back(start);
    srcSize.push_back(end - start);
    padLo.push_back(std::max<int64_t>(0, low[d]));
    padHi.push_back(total - padLo.back() - (end - start));
    crop |= start > 0 || end < size;
    pad |= padLo.back() > 0 || padHi.back() > 0;
  }
  if (empty)
    return zeros(resultShape, type.getElementType());
  if (crop) {
    SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d) {
      offsets.push_back(b.getIndexAttr(srcStart[d]));
      sizes.push_back(b.getIndexAttr(srcSize[d]));
    }
    t = tensor::ExtractSliceOp::create(b, loc, t, offsets, sizes, strides);
  }
  if (!pad)
    return t;
  auto resultType = RankedTensorType::get(resultShape, type.getElementType());
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  SmallVector<OpFoldResult> loF, hiF;
  for (int64_t d = 0; d < rank; ++d) {
    loF.push_back(b.getIndexAttr(padLo[d]));
    hiF.push_back(b.getIndexAttr(padHi[d]));
  }
  return tensor::PadOp::create(b, loc, resultType, t, loF, hiF, zero);
}

Value LinalgBuilder::splitDim(Value t, int64_t pos, int64_t outer) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
    int64_t next = static_cast<int64_t>(shape.size());
    if (d == pos) {
      shape.push_back(outer);
      shape.push_back(type.getDimSize(d) / outer);
      reassoc.push_back({next, next + 1});
    } else {
      shape.push_back(type.getDimSize(d));
      reassoc.push_back({next});
    }
  }
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::ExpandShapeOp::create(b, loc, resultType, t, reassoc);
}

Value LinalgBuilder::mergeDims(Value t, int64_t pos) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
    if (d == pos) {
      reassoc.push_back({d, d + 1});
      ++d;
    } else {
      reassoc.push_back({d});
    }
  }
  return tensor::CollapseShapeOp::create(b, loc, t, reassoc);
}

SmallVector<AffineExpr> LinalgBuilder::dims(unsigned n) {
  SmallVector<AffineExpr> d;
  for (unsigned i = 0; i < n; ++i)
    d.push_back(b.getAffineDimExpr(i));
  return d;
}

Value LinalgBuilder::generic(unsigned numDims, ArrayRef<Value> ins,
                             ArrayRef<SmallVector<AffineExpr>> inExprs,
                             Value init, ArrayRef<AffineExpr> outExprs,
                             ArrayRef<utils::IteratorType> iterators,
                             BodyFn body) {
  SmallVector<AffineMap> maps;
  for (ArrayRef<AffineExpr> e : inExprs)
    maps.push_back(AffineMap::get(numDims, 0, e, b.getContext()));
  maps.push_back(AffineMap::get(numDims, 0, outExprs, b.getContext()));
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ins, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, body(nb, l, args));
      });
  return op.getResult(0);
}

Value LinalgBuilder::elementwise(
    ArrayRef<Value> ins,
    ArrayRef<std::optional<SmallVector<AffineExpr>>> inExprs, Value init,
    BodyFn body) {
  unsigned rank = cast<RankedTensorType>(init.getType()).getRank();
  SmallVector<AffineExpr> identity = dims(rank);
  SmallVector<SmallVector<AffineExpr>> exprs;
  for (size_t i = 0; i < ins.size(); ++i)
    exprs.push_back(i < inExprs.size() && inExprs[i] ? *inExprs[i] : identity);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return generic(rank, ins, exprs, init, identity, iters, body);
}

SmallVector<Value> LinalgBuilder::convertElements(ArrayRef<Value> ts,
                                                  ArrayRef<Type> elems) {
  SmallVector<Value> result(ts.begin(), ts.end());
  // Shape -> positions of the tensors of that shape that need converting.
  llvm::MapVector<ArrayRef<int64_t>, SmallVector<size_t>> groups;
  for (auto [i, t] : llvm::enumerate(ts)) {
    auto type = cast<RankedTensorType>(t.getType());
    if (type.getElementType() != elems[i])
      groups[type.getShape()].push_back(i);
  }
  for (auto &group : groups) {
    ArrayRef<int64_t> shape = group.first;
    ArrayRef<size_t> positions = group.second;
    SmallVector<Value> ins, inits;
    SmallVector<Type> types;
    for (size_t i : positions) {
      ins.push_back(ts[i]);
      inits.push_back(empty(shape, elems[i]));
      types.push_back(inits.back().getType());
    }
    SmallVector<AffineMap> maps(
        2 * positions.size(),
        AffineMap::getMultiDimIdentityMap(shape.size(), b.getContext()));
    auto op = linalg::GenericOp::create(
        b, loc, types, ins, inits, maps,
        SmallVector<utils::IteratorType>(shape.size(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          SmallVector<Value> cast;
          for (auto [j, i] : llvm::enumerate(positions))
            cast.push_back(castTo(nb, l, args[j], elems[i]));
          linalg::YieldOp::create(nb, l, cast);
        });
    for (auto [j, i] : llvm::enumerate(positions))
      result[i] = op.getResult(j);
  }
  return result;
}

Value LinalgBuilder::convertElements(Value t, Type elem) {
  return convertElements(ArrayRef<Value>{t}, ArrayRef<Type>{elem}).front();
}

Value LinalgBuilder::markRoot(Value result) {
  if (!root)
    root = result.getDefiningOp<linalg::GenericOp>();
  return result;
}
