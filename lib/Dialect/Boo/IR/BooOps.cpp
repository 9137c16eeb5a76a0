//===- BooOps.cpp - Boo operations: verification --------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/BooOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::boo;

#include "Boo/Dialect/Boo/IR/BooEnums.cpp.inc"

#define GET_OP_CLASSES
#include "Boo/Dialect/Boo/IR/BooOps.cpp.inc"

bool mlir::boo::isFusionAnchor(Operation *op) {
  return isa<ConvOp, ConvBwdDataOp, ConvBwdWeightOp, ConvBwdBiasOp,
             MatmulOp, LayerNormOp, LayerNormBwdOp, BatchNormOp,
             BatchNormBwdOp, ArgMaxOp, ArgMinOp>(op);
}

bool mlir::boo::isElementwiseEpilogue(Operation *op) {
  return isa<ActivationOp, AddOp, MulOp>(op);
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

FailureOr<ConvTensors> mlir::boo::getConvTensors(Operation *op) {
  if (!isa<ConvOp, ConvBwdDataOp, ConvBwdWeightOp>(op) ||
      op->getNumOperands() < 2 || op->getNumResults() != 1)
    return failure();
  auto a = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto b = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  auto r = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!a || !b || !r)
    return failure();
  if (isa<ConvOp>(op))
    return ConvTensors{a, b, r};
  if (isa<ConvBwdDataOp>(op))
    return ConvTensors{r, b, a};
  return ConvTensors{b, r, a};
}

template <typename OpTy>
static FailureOr<ConvGeometry> computeGeometry(OpTy op, std::string &error) {
  FailureOr<ConvTensors> t = getConvTensors(op);
  if (failed(t)) {
    error = "operands and result must be ranked tensors";
    return failure();
  }
  auto arr = [](std::optional<ArrayRef<int64_t>> a) {
    return a ? *a : ArrayRef<int64_t>();
  };
  return ConvGeometry::get(
      t->input.getShape(), t->filter.getShape(), arr(op.getStrides()),
      arr(op.getDilations()), arr(op.getPaddingLow()),
      arr(op.getPaddingHigh()), op.getGroups(),
      op.getInputLayout().value_or(""), op.getFilterLayout().value_or(""),
      op.getOutputLayout().value_or(""), error);
}

FailureOr<ConvGeometry> mlir::boo::getConvGeometry(Operation *op,
                                                   std::string &error) {
  return TypeSwitch<Operation *, FailureOr<ConvGeometry>>(op)
      .Case<ConvOp, ConvBwdDataOp, ConvBwdWeightOp>(
          [&](auto conv) { return computeGeometry(conv, error); })
      .Default([&](Operation *) {
        error = "not a convolution";
        return failure();
      });
}

/// Verifies the attributes and the three tensors of a convolution: every
/// tensor has the same element type and the output has the shape the input,
/// filter and attributes imply.
template <typename OpTy>
static LogicalResult verifyConvLike(OpTy op, StringRef outputName) {
  ConvTensors t = *getConvTensors(op);
  if (t.input.getElementType() != t.filter.getElementType() ||
      t.input.getElementType() != t.output.getElementType())
    return op.emitOpError("requires input, filter and output to have the "
                          "same element type, got ")
           << t.input.getElementType() << ", " << t.filter.getElementType()
           << " and " << t.output.getElementType();
  std::string error;
  FailureOr<ConvGeometry> g = computeGeometry(op, error);
  if (failed(g))
    return op.emitOpError(error);
  SmallVector<int64_t> expected = g->outputShape();
  if (t.output.getShape() != ArrayRef<int64_t>(expected)) {
    auto diag = op.emitOpError() << outputName << " shape ";
    llvm::interleave(t.output.getShape(), diag, "x");
    diag << " does not match the shape implied by the input, filter and "
            "attributes: ";
    llvm::interleave(expected, diag, "x");
    return diag;
  }
  return success();
}

LogicalResult ConvOp::verify() {
  if (failed(verifyConvLike(*this, "result")))
    return failure();
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    int64_t k = getGeometry().outChannels;
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != k)
      return emitOpError("bias must have shape [")
             << k << "] (output channels), got " << biasType;
    if (biasType.getElementType() != getInput().getType().getElementType())
      return emitOpError("bias element type ")
             << biasType.getElementType()
             << " differs from the input element type";
  }
  return success();
}

ConvGeometry ConvOp::getGeometry() {
  std::string error;
  return *computeGeometry(*this, error);
}

LogicalResult ConvBwdDataOp::verify() {
  return verifyConvLike(*this, "grad_output");
}

ConvGeometry ConvBwdDataOp::getGeometry() {
  std::string error;
  return *computeGeometry(*this, error);
}

LogicalResult ConvBwdWeightOp::verify() {
  return verifyConvLike(*this, "grad_output");
}

ConvGeometry ConvBwdWeightOp::getGeometry() {
  std::string error;
  return *computeGeometry(*this, error);
}

int64_t ConvBwdBiasOp::getChannelDim() {
  int64_t spatialRank = getGradOutput().getType().getRank() - 2;
  std::string error;
  std::string layout = getOutputLayout().value_or("").str();
  if (layout.empty())
    layout = defaultLayout(LayoutKind::Activation, spatialRank);
  return (*parseLayout(layout, LayoutKind::Activation, spatialRank, error))[1];
}

LogicalResult ConvBwdBiasOp::verify() {
  RankedTensorType dy = getGradOutput().getType();
  RankedTensorType db = getGradBias().getType();
  if (dy.getRank() < 3 || dy.getRank() > 5)
    return emitOpError("grad_output must have rank 3, 4 or 5, got rank ")
           << dy.getRank();
  std::string error;
  if (std::optional<StringRef> layout = getOutputLayout())
    if (failed(parseLayout(*layout, LayoutKind::Activation, dy.getRank() - 2,
                           error)))
      return emitOpError(error);
  int64_t k = dy.getDimSize(getChannelDim());
  if (db.getRank() != 1 || db.getDimSize(0) != k)
    return emitOpError("grad_bias must have shape [")
           << k << "] (the channels of grad_output), got " << db;
  if (db.getElementType() != dy.getElementType())
    return emitOpError("grad_bias element type differs from grad_output's");
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

FailureOr<MatmulSizes> mlir::boo::getMatmulSizes(Operation *op) {
  auto mm = dyn_cast<MatmulOp>(op);
  if (!mm || op->getNumOperands() < 2)
    return failure();
  auto a = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto b = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (!a || !b || !a.hasStaticShape() || !b.hasStaticShape() ||
      a.getRank() != b.getRank() || a.getRank() < 2 || a.getRank() > 3)
    return failure();
  MatmulSizes s;
  s.batched = a.getRank() == 3;
  if (s.batched) {
    if (a.getDimSize(0) != b.getDimSize(0))
      return failure();
    s.batch = a.getDimSize(0);
  }
  ArrayRef<int64_t> as = a.getShape().take_back(2);
  ArrayRef<int64_t> bs = b.getShape().take_back(2);
  bool ta = mm.getTransposeLhs(), tb = mm.getTransposeRhs();
  s.m = ta ? as[1] : as[0];
  s.k = ta ? as[0] : as[1];
  s.n = tb ? bs[0] : bs[1];
  if ((tb ? bs[1] : bs[0]) != s.k)
    return failure();
  return s;
}

/// "2x3x4" for the diagnostics.
static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::interleave(shape, os, "x");
  return out;
}

LogicalResult MatmulOp::verify() {
  RankedTensorType a = getLhs().getType(), b = getRhs().getType();
  RankedTensorType out = getOutput().getType();
  if (a.getRank() < 2 || a.getRank() > 3 || a.getRank() != b.getRank())
    return emitOpError("lhs and rhs must both be 2-D or both be 3-D, got "
                       "ranks ")
           << a.getRank() << " and " << b.getRank();
  for (RankedTensorType t : {a, b, out})
    if (!t.hasStaticShape())
      return emitOpError("requires static shapes, got ") << t;
  Type elem = a.getElementType();
  if (b.getElementType() != elem || out.getElementType() != elem)
    return emitOpError("requires lhs, rhs and output to have the same "
                       "element type, got ")
           << elem << ", " << b.getElementType() << " and "
           << out.getElementType();
  if (a.getRank() == 3 && a.getDimSize(0) != b.getDimSize(0))
    return emitOpError("lhs has a batch of ")
           << a.getDimSize(0) << " but rhs has " << b.getDimSize(0);
  int64_t ka = a.getDimSize(getTransposeLhs() ? a.getRank() - 2
                                              : a.getRank() - 1);
  int64_t kb = b.getDimSize(getTransposeRhs() ? b.getRank() - 1
                                              : b.getRank() - 2);
  if (ka != kb)
    return emitOpError("lhs has K = ")
           << ka << " but rhs has K = " << kb
           << " (the contracted dims must match)";
  MatmulSizes s = getSizes();
  SmallVector<int64_t> expected = {s.m, s.n};
  if (s.batched)
    expected.insert(expected.begin(), s.batch);
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("result shape ")
           << shapeString(out.getShape())
           << " does not match the shape implied by the operands: "
           << shapeString(expected);
  if (Value bias = getBias()) {
    auto t = cast<RankedTensorType>(bias.getType());
    if (t.getElementType() != elem)
      return emitOpError("bias element type ")
             << t.getElementType() << " differs from the operands' " << elem;
    bool fits = t.hasStaticShape() && t.getRank() <= out.getRank();
    for (int64_t i = 0; fits && i < t.getRank(); ++i) {
      int64_t d = t.getDimSize(t.getRank() - 1 - i);
      fits = d == 1 || d == out.getDimSize(out.getRank() - 1 - i);
    }
    if (!fits)
      return emitOpError("bias of type ")
             << t << " does not broadcast to the result shape "
             << shapeString(out.getShape());
  } else if (getBeta().convertToDouble() != 1.0) {
    return emitOpError("'beta' scales the bias, but there is no bias");
  }
  return success();
}

MatmulSizes MatmulOp::getSizes() { return *getMatmulSizes(*this); }

LogicalResult AsStridedOp::verify() {
  auto storage = cast<RankedTensorType>(getStorage().getType());
  auto out = cast<RankedTensorType>(getOutput().getType());
  if (storage.getRank() != 1 || !storage.hasStaticShape())
    return emitOpError("requires a static 1-D storage, got ") << storage;
  if (out.getElementType() != storage.getElementType())
    return emitOpError("result element type ")
           << out.getElementType() << " differs from the storage's "
           << storage.getElementType();
  if (!out.hasStaticShape() ||
      llvm::any_of(out.getShape(), [](int64_t d) { return d < 1; }))
    return emitOpError("requires a static result shape of positive sizes, "
                       "got ")
           << out;
  ArrayRef<int64_t> strides = getStrides();
  if (static_cast<int64_t>(strides.size()) != out.getRank())
    return emitOpError("has ")
           << strides.size() << " strides for a rank-" << out.getRank()
           << " result";
  if (llvm::any_of(strides, [](int64_t s) { return s < 0; }))
    return emitOpError("strides must be non-negative, got ")
           << shapeString(strides);
  int64_t last = 0;
  for (auto [d, stride] : llvm::zip(out.getShape(), strides))
    last += (d - 1) * stride;
  if (last >= storage.getDimSize(0))
    return emitOpError("reads element ")
           << last << " of a storage of " << storage.getDimSize(0)
           << " elements (result " << shapeString(out.getShape())
           << ", strides " << shapeString(strides) << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

/// Checks `normalizedRank` against `x` and that `stat` (mean or rstd) has
/// the leading dims of `x` and an f32 or x's element type.
static LogicalResult verifyNormShapes(Operation *op, RankedTensorType x,
                                      int64_t normalizedRank,
                                      ArrayRef<std::pair<StringRef, Type>>
                                          stats,
                                      ArrayRef<std::pair<StringRef, Value>>
                                          params) {
  if (normalizedRank < 1 || normalizedRank > x.getRank())
    return op->emitOpError("normalized_rank must be in [1, ")
           << x.getRank() << "] (the rank of x), got " << normalizedRank;
  for (int64_t d : x.getShape())
    if (ShapedType::isDynamic(d))
      return op->emitOpError("requires static shapes");
  ArrayRef<int64_t> outer = x.getShape().drop_back(normalizedRank);
  ArrayRef<int64_t> inner = x.getShape().take_back(normalizedRank);
  for (auto [name, type] : stats) {
    auto t = cast<RankedTensorType>(type);
    if (t.getShape() != outer)
      return op->emitOpError()
             << name << " must have the shape of x's leading "
             << (x.getRank() - normalizedRank) << " dims, got " << t;
    if (!t.getElementType().isF32() && t.getElementType() != x.getElementType())
      return op->emitOpError()
             << name << " element type must be f32 or x's element type, got "
             << t.getElementType();
  }
  for (auto [name, value] : params) {
    if (!value)
      continue;
    auto t = cast<RankedTensorType>(value.getType());
    if (t.getShape() != inner)
      return op->emitOpError()
             << name << " must have the shape of the normalized dims, got "
             << t;
    if (t.getElementType() != x.getElementType())
      return op->emitOpError()
             << name << " element type differs from x's";
  }
  return success();
}

LogicalResult LayerNormOp::verify() {
  RankedTensorType x = getX().getType();
  if (getY().getType() != x)
    return emitOpError("result y must have the type of x, got ")
           << getY().getType();
  if (getEpsilon().convertToFloat() < 0.0f)
    return emitOpError("epsilon must be non-negative");
  return verifyNormShapes(*this, x, getNormalizedRank(),
                          {{"mean", getMean().getType()},
                           {"rstd", getRstd().getType()}},
                          {{"weight", getWeight()}, {"bias", getBias()}});
}

LogicalResult LayerNormBwdOp::verify() {
  RankedTensorType x = getX().getType();
  if (getDy().getType() != x || getDx().getType() != x)
    return emitOpError("dy, x and dx must have the same type");
  if (failed(verifyNormShapes(*this, x, getNormalizedRank(),
                              {{"mean", getMean().getType()},
                               {"rstd", getRstd().getType()}},
                              {{"weight", getWeight()}})))
    return failure();
  ArrayRef<int64_t> inner = x.getShape().take_back(getNormalizedRank());
  for (auto [name, type] :
       {std::pair<StringRef, RankedTensorType>{"dweight",
                                               getDweight().getType()},
        {"dbias", getDbias().getType()}})
    if (type.getShape() != inner || type.getElementType() != x.getElementType())
      return emitOpError() << name << " must have the normalized dims' shape "
                           << "and x's element type, got " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

/// Element-wise ops lower to static tiles; dynamic dims are rejected here
/// rather than failing later in the lowering.
static LogicalResult verifyStatic(Operation *op, RankedTensorType type) {
  if (!type.hasStaticShape())
    return op->emitOpError("requires a static shape, got ") << type;
  return success();
}

LogicalResult ActivationOp::verify() {
  if (failed(verifyStatic(*this, getInput().getType())))
    return failure();
  ActivationKind kind = getKind();
  bool wantsAlpha = kind == ActivationKind::leaky_relu;
  bool wantsRange = kind == ActivationKind::clamp;
  StringRef name = stringifyActivationKind(kind);
  if (wantsAlpha != getAlpha().has_value())
    return emitOpError() << "'alpha' is " << (wantsAlpha ? "required" : "not allowed")
                         << " for activation '" << name << "'";
  if (wantsRange != (getMin().has_value() && getMax().has_value()) ||
      (!wantsRange && (getMin() || getMax())))
    return emitOpError() << "'min' and 'max' are "
                         << (wantsRange ? "required" : "not allowed")
                         << " for activation '" << name << "'";
  if (wantsRange && getMin()->convertToFloat() > getMax()->convertToFloat())
    return emitOpError("clamp 'min' must not exceed 'max'");
  return success();
}

template <typename OpTy>
static LogicalResult verifyBinary(OpTy op) {
  RankedTensorType lhs = op.getLhs().getType();
  RankedTensorType rhs = op.getRhs().getType();
  if (failed(verifyStatic(op, lhs)) || failed(verifyStatic(op, rhs)))
    return failure();
  if (lhs.getElementType() != rhs.getElementType())
    return op.emitOpError("operands must have the same element type, got ")
           << lhs.getElementType() << " and " << rhs.getElementType();
  std::optional<int64_t> channelDim = op.getChannelDim();
  if (rhs == lhs) {
    if (channelDim)
      return op.emitOpError("'channel_dim' is only allowed when rhs is a "
                            "per-channel vector");
    return success();
  }
  if (rhs.getRank() != 1)
    return op.emitOpError("rhs must have the type of lhs or be a 1-D "
                          "per-channel vector, got ")
           << rhs;
  if (!channelDim)
    return op.emitOpError("'channel_dim' is required to broadcast a 1-D rhs");
  if (*channelDim < 0 || *channelDim >= lhs.getRank())
    return op.emitOpError("'channel_dim' ")
           << *channelDim << " is out of range for lhs of rank "
           << lhs.getRank();
  if (rhs.getDimSize(0) != lhs.getDimSize(*channelDim))
    return op.emitOpError("rhs has ")
           << rhs.getDimSize(0) << " elements but lhs dim " << *channelDim
           << " has " << lhs.getDimSize(*channelDim);
  return success();
}

LogicalResult AddOp::verify() { return verifyBinary(*this); }
LogicalResult MulOp::verify() { return verifyBinary(*this); }

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

Operation *FusionOp::getAnchor() {
  // Safe before verification: an empty body has no anchor.
  if (getBody().empty())
    return nullptr;
  for (Operation &op : getBody().front())
    if (isFusionAnchor(&op))
      return &op;
  return nullptr;
}

LogicalResult FusionOp::verify() {
  Block &body = getBody().front();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with 'boo.yield'");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yielded types do not match the result types");
  int64_t anchors = 0;
  for (Operation &op : body.without_terminator()) {
    if (isFusionAnchor(&op)) {
      ++anchors;
      continue;
    }
    if (!isElementwiseEpilogue(&op))
      return emitOpError("body may hold only one convolution, matrix "
                         "product or layer norm and element-wise boo ops, "
                         "found '")
             << op.getName() << "'";
  }
  if (anchors != 1)
    return emitOpError("body must hold exactly one convolution, matrix "
                       "product or layer norm (a fusion is one kernel), "
                       "found ")
           << anchors;
  // The epilogue must consume the anchor: every element-wise op uses a value
  // computed in the body.
  for (Operation &op : body.without_terminator()) {
    if (isFusionAnchor(&op))
      continue;
    if (llvm::none_of(op.getOperands(), [&](Value v) {
          Operation *def = v.getDefiningOp();
          return def && def->getBlock() == &body;
        }))
      return emitOpError("element-wise op '")
             << op.getName()
             << "' does not consume the anchor's result (only ops of its "
                "epilogue belong in the fusion)";
  }
  return success();
}
