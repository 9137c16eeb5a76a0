//===- BatchNorm.cpp - Independent reference of batch norm ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Batch norm from its definition, in double: every element of x belongs to
// one feature (its coordinates at the feature dims), and each statistic is
// taken over the elements of one feature in two passes (mean, then the
// centred sum of squares), as PyTorch's and MIOpen's host references do.
//
//===----------------------------------------------------------------------===//

#include "Boo/Reference/Reference.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace boo::ref {

namespace {

/// Misuse of the reference is a bug in the test that calls it: report and
/// abort (tests are built without exceptions and with NDEBUG).
[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "boo::ref: %s\n", message.c_str());
  std::abort();
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

void checkShape(const Tensor &t, const std::vector<int64_t> &shape,
                const char *what) {
  if (t.shape != shape)
    fatal(std::string("batch norm: ") + what + " has the wrong shape (" +
          formatShape(t.shape) + ", expected " + formatShape(shape) + ")");
}

/// x's elements grouped by feature: `feature[i]` is the row-major index,
/// within the statistics' shape, of the feature element `i` of x belongs to.
struct FeatureMap {
  std::vector<int64_t> statShape;
  std::vector<int64_t> feature;
  int64_t features = 0;
  /// Elements per feature (M).
  int64_t reduction = 0;
};

FeatureMap mapFeatures(const std::vector<int64_t> &shape,
                       const std::vector<int> &featureDims) {
  int rank = static_cast<int>(shape.size());
  FeatureMap m;
  std::vector<int64_t> featureStride(rank, 0);
  for (size_t k = 0; k < featureDims.size(); ++k) {
    int d = featureDims[k];
    if (d < 0 || d >= rank || (k > 0 && d <= featureDims[k - 1]))
      fatal("batch norm: feature dims must be ascending dims of x");
    m.statShape.push_back(shape[d]);
  }
  int64_t stride = 1;
  for (int k = static_cast<int>(featureDims.size()) - 1; k >= 0; --k) {
    featureStride[featureDims[k]] = stride;
    stride *= shape[featureDims[k]];
  }
  m.features = stride;
  int64_t size = product(shape);
  m.reduction = m.features ? size / m.features : 0;
  m.feature.resize(size);
  // Walk x in row-major order, carrying the coordinates.
  std::vector<int64_t> coord(rank, 0);
  int64_t f = 0;
  for (int64_t i = 0; i < size; ++i) {
    m.feature[i] = f;
    for (int d = rank - 1; d >= 0; --d) {
      f += featureStride[d];
      if (++coord[d] < shape[d])
        break;
      f -= featureStride[d] * shape[d];
      coord[d] = 0;
    }
  }
  return m;
}

} // namespace

BatchNormResult batchNormForward(const Tensor &x,
                                 const std::vector<int> &featureDims,
                                 const Tensor &weight, const Tensor &bias,
                                 const Tensor *runningMean,
                                 const Tensor *runningVar, bool training,
                                 double epsilon, double momentum) {
  FeatureMap m = mapFeatures(x.shape, featureDims);
  checkShape(weight, m.statShape, "weight");
  checkShape(bias, m.statShape, "bias");
  if ((runningMean == nullptr) != (runningVar == nullptr))
    fatal("batch norm: give both running statistics or neither");
  if (runningMean) {
    checkShape(*runningMean, m.statShape, "running mean");
    checkShape(*runningVar, m.statShape, "running variance");
  }
  BatchNormResult r{Tensor(x.shape), Tensor(m.statShape), Tensor(m.statShape),
                    Tensor(), Tensor()};
  // The batch's statistics, two passes.
  std::vector<double> mean(m.features, 0.0), var(m.features, 0.0);
  double count = static_cast<double>(m.reduction);
  for (int64_t i = 0; i < x.size(); ++i)
    mean[m.feature[i]] += x.data[i];
  for (double &v : mean)
    v /= count;
  for (int64_t i = 0; i < x.size(); ++i) {
    double d = x.data[i] - mean[m.feature[i]];
    var[m.feature[i]] += d * d;
  }
  for (double &v : var)
    v /= count;

  bool useRunning = !training && runningMean;
  for (int64_t f = 0; f < m.features; ++f) {
    r.mean.data[f] = useRunning ? runningMean->data[f] : mean[f];
    double v = useRunning ? runningVar->data[f] : var[f];
    r.rstd.data[f] = 1.0 / std::sqrt(v + epsilon);
  }
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t f = m.feature[i];
    r.y.data[i] =
        (x.data[i] - r.mean.data[f]) * r.rstd.data[f] * weight.data[f] +
        bias.data[f];
  }
  if (!training || !runningMean)
    return r;
  // MIOpen's host reference keeps the biased variance of a single value.
  double unbias = m.reduction > 1 ? count / (count - 1) : 1.0;
  r.newRunningMean = Tensor(m.statShape);
  r.newRunningVar = Tensor(m.statShape);
  for (int64_t f = 0; f < m.features; ++f) {
    r.newRunningMean.data[f] =
        (1 - momentum) * runningMean->data[f] + momentum * mean[f];
    r.newRunningVar.data[f] =
        (1 - momentum) * runningVar->data[f] + momentum * var[f] * unbias;
  }
  return r;
}

BatchNormGrads batchNormBackward(const Tensor &dy, const Tensor &x,
                                 const Tensor &mean, const Tensor &rstd,
                                 const Tensor &weight,
                                 const std::vector<int> &featureDims) {
  FeatureMap m = mapFeatures(x.shape, featureDims);
  checkShape(dy, x.shape, "dy");
  checkShape(mean, m.statShape, "mean");
  checkShape(rstd, m.statShape, "rstd");
  checkShape(weight, m.statShape, "weight");
  BatchNormGrads g{Tensor(x.shape), Tensor(m.statShape), Tensor(m.statShape)};
  auto xhat = [&](int64_t i) {
    int64_t f = m.feature[i];
    return (x.data[i] - mean.data[f]) * rstd.data[f];
  };
  for (int64_t i = 0; i < x.size(); ++i) {
    g.dbias.data[m.feature[i]] += dy.data[i];
    g.dweight.data[m.feature[i]] += dy.data[i] * xhat(i);
  }
  double count = static_cast<double>(m.reduction);
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t f = m.feature[i];
    g.dx.data[i] = weight.data[f] * rstd.data[f] *
                   (dy.data[i] - g.dbias.data[f] / count -
                    xhat(i) * g.dweight.data[f] / count);
  }
  return g;
}

} // namespace boo::ref
