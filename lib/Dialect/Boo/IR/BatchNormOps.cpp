//===- BatchNormOps.cpp - Verifiers of boo.batch_norm and its backward ----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/BooOps.h"

using namespace mlir;
using namespace mlir::boo;

/// Checks `feature_dims` against `x` (static, strictly increasing, in
/// range) and that every tensor in `stats` has x's shape at those dims.
static LogicalResult
verifyFeatureShapes(Operation *op, RankedTensorType x,
                    ArrayRef<int64_t> featureDims,
                    ArrayRef<std::pair<StringRef, Type>> stats) {
  if (!x.hasStaticShape())
    return op->emitOpError("requires static shapes, got ") << x;
  SmallVector<int64_t> statShape;
  for (auto [i, d] : llvm::enumerate(featureDims)) {
    if (d < 0 || d >= x.getRank())
      return op->emitOpError("feature_dims must be dims of x (0 to ")
             << x.getRank() - 1 << "), got " << d;
    if (i > 0 && d <= featureDims[i - 1])
      return op->emitOpError("feature_dims must be strictly increasing");
    statShape.push_back(x.getDimSize(d));
  }
  for (auto [name, type] : stats)
    if (cast<RankedTensorType>(type).getShape() != ArrayRef(statShape))
      return op->emitOpError()
             << name << " must have x's shape at the feature dims ("
             << RankedTensorType::get(statShape, x.getElementType())
             << " up to its element type), got " << type;
  return success();
}

LogicalResult BatchNormOp::verify() {
  RankedTensorType x = getX().getType();
  if (getY().getType() != x)
    return emitOpError("result y must have the type of x, got ")
           << getY().getType();
  float eps = getEpsilon().convertToFloat();
  float momentum = getMomentum().convertToFloat();
  if (!(eps >= 0.0f) || std::isinf(eps))
    return emitOpError("epsilon must be finite and non-negative");
  if (!(momentum >= 0.0f && momentum <= 1.0f))
    return emitOpError("momentum must be in [0, 1], got ") << momentum;
  SmallVector<std::pair<StringRef, Type>> stats = {
      {"mean", getMean().getType()}, {"rstd", getRstd().getType()}};
  for (auto [name, v] : {std::pair<StringRef, Value>{"weight", getWeight()},
                         {"bias", getBias()},
                         {"running_mean", getRunningMean()},
                         {"running_var", getRunningVar()}})
    if (v)
      stats.push_back({name, v.getType()});
  for (Value v : getNewRunning())
    stats.push_back({"new running statistic", v.getType()});
  if (failed(verifyFeatureShapes(*this, x, getFeatureDims(), stats)))
    return failure();
  bool running = getRunningMean() != nullptr;
  if (running != (getRunningVar() != nullptr))
    return emitOpError("running_mean and running_var go together");
  if (!getTraining() && !running)
    return emitOpError("inference (no 'training') needs running_mean and "
                       "running_var");
  size_t updates = getTraining() && running ? 2 : 0;
  if (getNewRunning().size() != updates)
    return emitOpError("expected ")
           << updates << " new running statistics (2 in training with "
           << "running statistics, else 0), got " << getNewRunning().size();
  if (updates && (getNewRunning()[0].getType() != getRunningMean().getType() ||
                  getNewRunning()[1].getType() != getRunningVar().getType()))
    return emitOpError("the new running statistics must have the types of "
                       "running_mean and running_var");
  return success();
}

LogicalResult BatchNormBwdOp::verify() {
  RankedTensorType x = getX().getType();
  if (getDy().getType() != x || getDx().getType() != x)
    return emitOpError("dy, x and dx must have the same type");
  SmallVector<std::pair<StringRef, Type>> stats = {
      {"mean", getMean().getType()},
      {"rstd", getRstd().getType()},
      {"dweight", getDweight().getType()},
      {"dbias", getDbias().getType()}};
  if (getWeight())
    stats.push_back({"weight", getWeight().getType()});
  return verifyFeatureShapes(*this, x, getFeatureDims(), stats);
}
