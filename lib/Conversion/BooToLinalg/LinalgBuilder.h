//===- LinalgBuilder.h - Helpers to build linalg on tensors -----*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Conversion/BooToLinalg: the small vocabulary the Boo-to-linalg
// lowering is written in (f32 casts, zero-filled accumulators, pad-or-crop,
// group splits, generic ops from affine expressions).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CONVERSION_BOOTOLINALG_LINALGBUILDER_H
#define BOO_LIB_CONVERSION_BOOTOLINALG_LINALGBUILDER_H

#include "Boo/Dialect/Boo/IR/BooOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace mlir::boo::detail {

/// Builds the body of a generic op from its block arguments (inputs, then
/// the output/accumulator), returning the value to yield.
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// Float arithmetic inside generic bodies (the norms' formulas).
Value addF(OpBuilder &b, Location l, Value x, Value y);
Value subF(OpBuilder &b, Location l, Value x, Value y);
Value mulF(OpBuilder &b, Location l, Value x, Value y);

class LinalgBuilder {
public:
  LinalgBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpBuilder &getBuilder() { return b; }
  Location getLoc() { return loc; }
  Type f32() { return b.getF32Type(); }

  /// Scalar casts inside generic bodies.
  Value toF32(OpBuilder &nb, Location l, Value v);
  Value castTo(OpBuilder &nb, Location l, Value v, Type to);
  Value f32Const(OpBuilder &nb, Location l, double v);

  /// `tensor.empty` and a zero-filled tensor.
  Value empty(ArrayRef<int64_t> shape, Type elem);
  Value zeros(ArrayRef<int64_t> shape, Type elem);

  /// Pads (positive amounts, with zeros) or crops (negative amounts) every
  /// dim of `t` at both ends.
  Value padOrCrop(Value t, ArrayRef<int64_t> low, ArrayRef<int64_t> high);

  /// Splits dim `pos` of `t` into [outer, size / outer] (no-op if outer==1
  /// is not requested: callers only call it for groups > 1).
  Value splitDim(Value t, int64_t pos, int64_t outer);
  /// Merges dims `pos` and `pos + 1` of `t`.
  Value mergeDims(Value t, int64_t pos);

  /// A linalg.generic over `numDims` loops whose operands are indexed by
  /// the affine expressions `inExprs[i]` / `outExprs`, with `init` as the
  /// output. Returns the result tensor.
  Value generic(unsigned numDims, ArrayRef<Value> ins,
                ArrayRef<SmallVector<AffineExpr>> inExprs, Value init,
                ArrayRef<AffineExpr> outExprs,
                ArrayRef<utils::IteratorType> iterators, BodyFn body);

  /// An element-wise generic over the shape of `init`. Input `i` is indexed
  /// by `inExprs[i]` (an empty list broadcasts a rank-0 tensor); inputs
  /// without an entry, or with std::nullopt, use the identity map.
  Value elementwise(ArrayRef<Value> ins,
                    ArrayRef<std::optional<SmallVector<AffineExpr>>> inExprs,
                    Value init, BodyFn body);

  /// Converts every element of `t` to `elem` (identity if it already is).
  Value convertElements(Value t, Type elem);

  /// convertElements of several tensors; those of one shape that need a
  /// conversion share one element-wise generic (one loop nest, so one
  /// kernel for results computed together, e.g. a layer norm backward's
  /// dweight and dbias).
  SmallVector<Value> convertElements(ArrayRef<Value> ts, ArrayRef<Type> elems);

  /// Loop dims d0..d(n-1).
  SmallVector<AffineExpr> dims(unsigned n);

  /// Records the linalg.generic defining `result` as the op's root: the
  /// generic whose loops are the op's loop nest (getOpLoopNest), which
  /// receives the kernel's #boo.lowering_config. The first call wins.
  /// Returns `result`.
  Value markRoot(Value result);
  linalg::GenericOp getRoot() const { return root; }

private:
  OpBuilder &b;
  Location loc;
  linalg::GenericOp root;
};

/// Lowers one Boo op. `operands` replace the op's operands (they may have a
/// different float element type, e.g. f32 inside a fusion). When `keepF32`
/// is set, results are produced in f32 (the caller rounds them later);
/// otherwise in the op's result types.
FailureOr<SmallVector<Value>> lowerConvOp(LinalgBuilder &lb, Operation *op,
                                          ValueRange operands, bool keepF32);
FailureOr<SmallVector<Value>> lowerMatmulOp(LinalgBuilder &lb, Operation *op,
                                            ValueRange operands,
                                            bool keepF32);
/// boo.as_strided: a copy whose input map is the linear storage index.
Value lowerAsStridedOp(LinalgBuilder &lb, AsStridedOp op, Value storage);
/// boo.argmax / boo.argmin: the i64 indices (no f32 mode: the result is
/// an index whatever the caller rounds).
FailureOr<SmallVector<Value>> lowerArgReduceOp(LinalgBuilder &lb,
                                               Operation *op,
                                               ValueRange operands);
FailureOr<SmallVector<Value>> lowerBatchNormOp(LinalgBuilder &lb,
                                               Operation *op,
                                               ValueRange operands,
                                               bool keepF32);
FailureOr<SmallVector<Value>> lowerNormOp(LinalgBuilder &lb, Operation *op,
                                          ValueRange operands, bool keepF32);

} // namespace mlir::boo::detail

#endif // BOO_LIB_CONVERSION_BOOTOLINALG_LINALGBUILDER_H
