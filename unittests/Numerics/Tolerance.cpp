//===- Tolerance.cpp - Error bounds for the numerics sweeps ---------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Tolerance.h"

#include <algorithm>
#include <cmath>

namespace boo::ref {

namespace {
const double kU32 = 0x1p-24;

/// Transcendentals evaluated in f32 (exp, tanh, erf, possibly through
/// polynomial approximations) are allowed this many f32 ulps, relative to
/// |x| + |f(x)|: relative to |f(x)| alone would be too strict near the zeros
/// of gelu/silu/tanh, where the approximations are accurate in absolute
/// terms only.
const double kActivationEvalUlps = 32;

/// First-order analyses below drop second-order terms and do not pin the
/// order of the few scalar operations around each reduction; this factor
/// covers both. It is applied to the layer- and batch-norm bounds only (the
/// convolution bound is rigorous as is).
const double kNormSlack = 2;

Tensor absOf(const Tensor &t) {
  Tensor a(t.shape);
  for (int64_t i = 0; i < t.size(); ++i)
    a.data[i] = std::fabs(t.data[i]);
  return a;
}

/// Adds the final rounding to `out` to an error `err` of the f32 value:
/// |round(v') - v| <= err + u_out (|v| + err), plus half a subnormal
/// spacing for results near zero.
double finish(double err, double value, ElementType out) {
  double u = unitRoundoff(out);
  return (1 + u) * err + u * std::fabs(value) + subnormalHalfSpacing(out);
}
} // namespace

Bounded exact(const Tensor &value) { return {value, Tensor(value.shape)}; }

double accumulationGamma(int64_t n, double u) {
  double nu = static_cast<double>(n) * u;
  return nu / (1 - nu);
}

Bounded boundReduction(Tensor value, const Tensor &absSum, int64_t n,
                       ElementType out) {
  // One more than the number of terms: f32 products of f32 inputs round
  // too (f16 and bf16 products are exact in f32). f64 results (products)
  // accumulate in f64.
  double gamma = accumulationGamma(
      n + 1, out == ElementType::F64 ? unitRoundoff(out) : kU32);
  Tensor bound(value.shape);
  for (int64_t i = 0; i < value.size(); ++i)
    bound.data[i] = finish(gamma * absSum.data[i], value.data[i], out);
  return {std::move(value), std::move(bound)};
}

//===----------------------------------------------------------------------===//
// Convolutions: the sum of |terms| is the same op applied to |operands|.
//===----------------------------------------------------------------------===//

Bounded convForwardBounded(const ConvProblem &p, const Tensor &input,
                           const Tensor &filter, const Tensor *bias,
                           ElementType out) {
  Tensor absBias = bias ? absOf(*bias) : Tensor();
  Tensor absSum =
      convForward(p, absOf(input), absOf(filter), bias ? &absBias : nullptr);
  int64_t n = p.inChannels / p.groups * product(p.filterSpatial) + 1;
  return boundReduction(convForward(p, input, filter, bias), absSum, n, out);
}

Bounded convBackwardDataBounded(const ConvProblem &p, const Tensor &gradOutput,
                                const Tensor &filter, ElementType out) {
  Tensor absSum = convBackwardData(p, absOf(gradOutput), absOf(filter));
  int64_t n = p.outChannels / p.groups * product(p.filterSpatial);
  return boundReduction(convBackwardData(p, gradOutput, filter), absSum, n,
                        out);
}

Bounded convBackwardWeightBounded(const ConvProblem &p,
                                  const Tensor &gradOutput, const Tensor &input,
                                  ElementType out) {
  Tensor absSum = convBackwardWeight(p, absOf(gradOutput), absOf(input));
  int64_t n = p.batch * product(p.outSpatial());
  return boundReduction(convBackwardWeight(p, gradOutput, input), absSum, n,
                        out);
}

Bounded matmulBounded(const Tensor &lhs, const Tensor &rhs, bool transposeLhs,
                      bool transposeRhs, double alpha, const Tensor *bias,
                      double beta, ElementType out) {
  Tensor absBias = bias ? absOf(*bias) : Tensor();
  Tensor absSum =
      matmul(absOf(lhs), absOf(rhs), transposeLhs, transposeRhs,
             std::fabs(alpha), bias ? &absBias : nullptr, std::fabs(beta));
  size_t rank = lhs.shape.size();
  int64_t k = lhs.shape[transposeLhs ? rank - 2 : rank - 1];
  // alpha * sum, beta * bias and their sum: three more roundings.
  return boundReduction(
      matmul(lhs, rhs, transposeLhs, transposeRhs, alpha, bias, beta), absSum,
      k + 3, out);
}

Bounded convBackwardBiasBounded(const Tensor &gradOutput, int channelDim,
                                ElementType out) {
  Tensor absSum = convBackwardBias(absOf(gradOutput), channelDim);
  int64_t n = gradOutput.size() / gradOutput.shape[channelDim];
  return boundReduction(convBackwardBias(gradOutput, channelDim), absSum, n,
                        out);
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

double activationLipschitz(Activation kind, const ActivationParams &p) {
  switch (kind) {
  case Activation::Relu:
  case Activation::Tanh:
  case Activation::Clamp:
    return 1.0;
  case Activation::Sigmoid:
    return 0.25;
  case Activation::LeakyRelu:
    return std::max(1.0, std::fabs(p.alpha));
  case Activation::Gelu:     // max gelu'(x) = 1.1289 at x = 1.4142
  case Activation::GeluTanh: // max 1.1295
  case Activation::Silu:     // max silu'(x) = 1.0998 at x = 2.3994
    return 1.13;
  }
  return 1.0;
}

Bounded activationBounded(Activation kind, const Bounded &x,
                          const ActivationParams &p, ElementType out) {
  double lipschitz = activationLipschitz(kind, p);
  Bounded y{activation(kind, x.value, p), Tensor(x.value.shape)};
  for (int64_t i = 0; i < y.value.size(); ++i) {
    double xi = std::fabs(x.value.data[i]) + x.bound.data[i];
    double eval =
        kActivationEvalUlps * kU32 * (xi + std::fabs(y.value.data[i]));
    y.bound.data[i] =
        finish(lipschitz * x.bound.data[i] + eval, y.value.data[i], out);
  }
  return y;
}

Bounded binaryBounded(BinaryKind kind, const Bounded &lhs, const Bounded &rhs,
                      int channelDim, ElementType out) {
  Bounded y{binary(kind, lhs.value, rhs.value, channelDim),
            Tensor(lhs.value.shape)};
  // Broadcast |rhs| and its bound the same way as rhs.
  Tensor ones(lhs.value.shape, 1.0);
  Tensor rhsMag = binary(BinaryKind::Mul, ones, absOf(rhs.value), channelDim);
  Tensor rhsBound = binary(BinaryKind::Mul, ones, rhs.bound, channelDim);
  for (int64_t i = 0; i < y.value.size(); ++i) {
    double l = std::fabs(lhs.value.data[i]), r = rhsMag.data[i];
    double bl = lhs.bound.data[i], br = rhsBound.data[i];
    double v = y.value.data[i];
    double err = kind == BinaryKind::Add ? bl + br : l * br + r * bl + bl * br;
    // The f32 operation itself rounds once.
    err += kU32 * (std::fabs(v) + err);
    y.bound.data[i] = finish(err, v, out);
  }
  return y;
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

LayerNormBounded layerNormForwardBounded(const Tensor &x, int normalizedRank,
                                         const Tensor *weight,
                                         const Tensor *bias, double epsilon,
                                         ElementType out,
                                         ElementType statType) {
  LayerNormResult r =
      layerNormForward(x, normalizedRank, weight, bias, epsilon);
  LayerNormBounded b{exact(r.y), exact(r.mean), exact(r.rstd)};
  int64_t rows = r.mean.size(), m = x.size() / std::max<int64_t>(rows, 1);
  double gamma = accumulationGamma(m + 4);
  for (int64_t row = 0; row < rows; ++row) {
    double meanAbs = 0, var = 0;
    double mean = r.mean.data[row], rstd = r.rstd.data[row];
    for (int64_t j = 0; j < m; ++j) {
      double xj = x.data[row * m + j];
      meanAbs += std::fabs(xj) / m;
      var += (xj - mean) * (xj - mean) / m;
    }
    // The f32 mean is off by at most gamma * mean|x|.
    double errMean = gamma * meanAbs;
    // sum((x - mean')^2) with mean' = mean + e is var + e^2 (the cross
    // term vanishes because x - mean sums to zero); f32 accumulation adds
    // gamma * var. 1/sqrt(v + eps) halves the relative error of v + eps;
    // the add, sqrt and divide round three more times.
    double errVar = (gamma + 3 * kU32) * var + errMean * errMean;
    double relRstd = 0.5 * errVar / (var + epsilon) + 3 * kU32;
    b.mean.bound.data[row] = finish(kNormSlack * errMean, mean, statType);
    b.rstd.bound.data[row] =
        finish(kNormSlack * relRstd * rstd, rstd, statType);
    for (int64_t j = 0; j < m; ++j) {
      int64_t i = row * m + j;
      double xhat = (x.data[i] - mean) * rstd;
      double w = weight ? std::fabs(weight->data[j]) : 1.0;
      // xhat' = (x - mean') * rstd', each operation rounding once.
      double errXhat = rstd * errMean + std::fabs(xhat) * (relRstd + 2 * kU32);
      double errY = w * errXhat +
                    2 * kU32 * (std::fabs(xhat) * w + std::fabs(r.y.data[i]));
      b.y.bound.data[i] = finish(kNormSlack * errY, r.y.data[i], out);
    }
  }
  return b;
}

LayerNormGradsBounded
layerNormBackwardBounded(const Tensor &dy, const Tensor &x, const Tensor &mean,
                         const Tensor &rstd, const Tensor *weight,
                         int normalizedRank, ElementType out) {
  LayerNormGrads g =
      layerNormBackward(dy, x, mean, rstd, weight, normalizedRank);
  LayerNormGradsBounded b{exact(g.dx), exact(g.dweight), exact(g.dbias)};
  int64_t rows = mean.size(), m = x.size() / std::max<int64_t>(rows, 1);
  double gammaM = accumulationGamma(m + 4);
  double gammaR = accumulationGamma(rows + 4);
  Tensor dweightAbs(g.dweight.shape), dbiasAbs(g.dbias.shape);
  for (int64_t row = 0; row < rows; ++row) {
    double rs = rstd.data[row];
    double meanAbsG = 0, meanAbsGXhat = 0;
    for (int64_t j = 0; j < m; ++j) {
      int64_t i = row * m + j;
      double xhat = std::fabs((x.data[i] - mean.data[row]) * rs);
      double gj = std::fabs(dy.data[i] * (weight ? weight->data[j] : 1.0));
      meanAbsG += gj / m;
      meanAbsGXhat += gj * xhat / m;
      dweightAbs.data[j] += std::fabs(dy.data[i]) * xhat;
      dbiasAbs.data[j] += std::fabs(dy.data[i]);
    }
    for (int64_t j = 0; j < m; ++j) {
      int64_t i = row * m + j;
      double xhat = std::fabs((x.data[i] - mean.data[row]) * rs);
      double gj = std::fabs(dy.data[i] * (weight ? weight->data[j] : 1.0));
      // dx = rstd (g - mean(g) - xhat mean(g xhat)): the two row means err
      // by gamma_M times their absolute sums, every other operation
      // (including forming xhat and g) by a few f32 roundings.
      double absSum = rs * (gj + meanAbsG + xhat * meanAbsGXhat);
      double err = (gammaM + 10 * kU32) * absSum;
      b.dx.bound.data[i] = finish(kNormSlack * err, g.dx.data[i], out);
    }
  }
  for (int64_t j = 0; j < g.dweight.size(); ++j) {
    b.dweight.bound.data[j] =
        finish(kNormSlack * (gammaR + 3 * kU32) * dweightAbs.data[j],
               g.dweight.data[j], out);
    b.dbias.bound.data[j] = finish(kNormSlack * gammaR * dbiasAbs.data[j],
                                   g.dbias.data[j], out);
  }
  return b;
}

//===----------------------------------------------------------------------===//
// Batch norm: a layer norm turned around. Each statistic reduces the M
// elements of one feature, so the layer norm's analysis applies per
// feature; the running statistics' update adds its own few roundings.
//===----------------------------------------------------------------------===//

namespace {
/// For each element of a tensor of `shape` (row-major), the row-major index
/// of its feature: its coordinates at `featureDims`.
std::vector<int64_t> featureOf(const std::vector<int64_t> &shape,
                               const std::vector<int> &featureDims) {
  int rank = static_cast<int>(shape.size());
  std::vector<int64_t> stride(rank, 0);
  int64_t s = 1;
  for (auto d = featureDims.rbegin(); d != featureDims.rend(); ++d) {
    stride[*d] = s;
    s *= shape[*d];
  }
  std::vector<int64_t> feature(product(shape));
  for (int64_t i = 0; i < static_cast<int64_t>(feature.size()); ++i) {
    int64_t rest = i, f = 0;
    for (int d = rank - 1; d >= 0; --d) {
      f += rest % shape[d] * stride[d];
      rest /= shape[d];
    }
    feature[i] = f;
  }
  return feature;
}

/// One feature's f32 statistics, to first order: the absolute errors of
/// the mean and of the biased variance, and the relative error of rstd.
/// Given statistics (inference) are exact; rstd = 1 / sqrt(var + eps) then
/// rounds three times (add, sqrt, divide).
struct StatErrors {
  double mean = 0, var = 0, relRstd = 3 * kU32;
};

/// Training: the batch's statistics, two passes as the layer norm's. The
/// sum of M values and the product with 1/M (rounded to f32) err by
/// gamma_{M+1} mean|x|; the centred sum of squares, with M - 1 additions
/// and three roundings per term, and the product with 1/M, by
/// gamma_{M+4} var plus the mean's error squared (the cross term vanishes:
/// x - mean sums to zero).
std::vector<StatErrors> batchStatErrors(const Tensor &x,
                                        const std::vector<int64_t> &feature,
                                        const Tensor &mean, double epsilon) {
  int64_t features = mean.size();
  double m = static_cast<double>(x.size() / std::max<int64_t>(features, 1));
  std::vector<double> meanAbs(features), var(features);
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t f = feature[i];
    double d = x.data[i] - mean.data[f];
    meanAbs[f] += std::fabs(x.data[i]) / m;
    var[f] += d * d / m;
  }
  double gamma = accumulationGamma(static_cast<int64_t>(m) + 4);
  std::vector<StatErrors> errors(features);
  for (int64_t f = 0; f < features; ++f) {
    StatErrors &e = errors[f];
    e.mean = gamma * meanAbs[f];
    e.var = gamma * var[f] + e.mean * e.mean;
    e.relRstd = 0.5 * e.var / (var[f] + epsilon) + 3 * kU32;
  }
  return errors;
}

/// y = (x - mean') * rstd' * w + b, each operation rounding once: xhat
/// errs by rstd errMean + |xhat| (relRstd + 2u), y by |w| times that and
/// two more roundings.
void boundBatchNormY(const Tensor &x, const std::vector<int64_t> &feature,
                     const BatchNormResult &r,
                     const std::vector<StatErrors> &errors,
                     const Tensor &weight, ElementType out, Bounded &y) {
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t f = feature[i];
    const StatErrors &e = errors[f];
    double rstd = r.rstd.data[f], w = std::fabs(weight.data[f]);
    double xhat = std::fabs((x.data[i] - r.mean.data[f]) * rstd);
    double errXhat = rstd * e.mean + xhat * (e.relRstd + 2 * kU32);
    double errY =
        w * errXhat + 2 * kU32 * (xhat * w + std::fabs(r.y.data[i]));
    y.bound.data[i] = finish(kNormSlack * errY, r.y.data[i], out);
  }
}

/// new = old * (1 - momentum) + stat * scale, with 1 - momentum and
/// momentum / (M - 1) rounded to f32 (momentum itself is f32) and three
/// f32 operations. The variance's update scales the centred sum of squares,
/// whose relative error with that of the scale is the variance's.
void boundRunningUpdate(const BatchNormResult &r, const Tensor &runningMean,
                        const Tensor &runningVar,
                        const std::vector<StatErrors> &errors, double momentum,
                        int64_t m, const BatchNormTypes &types,
                        BatchNormBounded &b) {
  double unbias = m > 1 ? static_cast<double>(m) / (m - 1) : 1.0;
  double kept = (1 - momentum) * 2 * kU32;
  b.newRunningMean = exact(r.newRunningMean);
  b.newRunningVar = exact(r.newRunningVar);
  for (int64_t f = 0; f < r.mean.size(); ++f) {
    const StatErrors &e = errors[f];
    double nm = r.newRunningMean.data[f], nv = r.newRunningVar.data[f];
    double errMean = kept * std::fabs(runningMean.data[f]) +
                     momentum * (e.mean + kU32 * std::fabs(r.mean.data[f])) +
                     kU32 * std::fabs(nm);
    double errVar = kept * std::fabs(runningVar.data[f]) +
                    momentum * unbias * e.var + kU32 * std::fabs(nv);
    b.newRunningMean.bound.data[f] =
        finish(kNormSlack * errMean, nm, types.runningMean);
    b.newRunningVar.bound.data[f] =
        finish(kNormSlack * errVar, nv, types.runningVar);
  }
}
} // namespace

BatchNormBounded batchNormForwardBounded(
    const Tensor &x, const std::vector<int> &featureDims, const Tensor *weight,
    const Tensor *bias, const Tensor *runningMean, const Tensor *runningVar,
    bool training, double epsilon, double momentum,
    const BatchNormTypes &types) {
  std::vector<int64_t> feature = featureOf(x.shape, featureDims);
  std::vector<int64_t> statShape;
  for (int d : featureDims)
    statShape.push_back(x.shape[d]);
  Tensor ones(statShape, 1.0), zeros(statShape, 0.0);
  const Tensor &w = weight ? *weight : ones;
  BatchNormResult r =
      batchNormForward(x, featureDims, w, bias ? *bias : zeros, runningMean,
                       runningVar, training, epsilon, momentum);
  BatchNormBounded b{exact(r.y), exact(r.mean), exact(r.rstd), Bounded(),
                     Bounded()};
  std::vector<StatErrors> errors =
      training ? batchStatErrors(x, feature, r.mean, epsilon)
               : std::vector<StatErrors>(r.mean.size());
  for (int64_t f = 0; f < r.mean.size(); ++f) {
    b.mean.bound.data[f] =
        finish(kNormSlack * errors[f].mean, r.mean.data[f], types.mean);
    double rstd = r.rstd.data[f];
    b.rstd.bound.data[f] =
        finish(kNormSlack * errors[f].relRstd * rstd, rstd, types.rstd);
  }
  boundBatchNormY(x, feature, r, errors, w, types.y, b.y);
  if (training && runningMean)
    boundRunningUpdate(r, *runningMean, *runningVar, errors, momentum,
                       x.size() / std::max<int64_t>(r.mean.size(), 1), types,
                       b);
  return b;
}

BatchNormGradsBounded
batchNormBackwardBounded(const Tensor &dy, const Tensor &x, const Tensor &mean,
                         const Tensor &rstd, const Tensor *weight,
                         const std::vector<int> &featureDims, ElementType out,
                         ElementType paramOut) {
  std::vector<int64_t> feature = featureOf(x.shape, featureDims);
  Tensor ones(mean.shape, 1.0);
  const Tensor &w = weight ? *weight : ones;
  BatchNormGrads g = batchNormBackward(dy, x, mean, rstd, w, featureDims);
  BatchNormGradsBounded b{exact(g.dx), exact(g.dweight), exact(g.dbias)};
  int64_t features = mean.size();
  int64_t m = x.size() / std::max<int64_t>(features, 1);
  // The sums of |dy| and |dy xhat| per feature; xhat (x - mean, * rstd)
  // and its product with dy round three times per term.
  std::vector<double> sumAbsDy(features), sumAbsDyXhat(features);
  auto xhat = [&](int64_t i) {
    int64_t f = feature[i];
    return std::fabs((x.data[i] - mean.data[f]) * rstd.data[f]);
  };
  for (int64_t i = 0; i < x.size(); ++i) {
    sumAbsDy[feature[i]] += std::fabs(dy.data[i]);
    sumAbsDyXhat[feature[i]] += std::fabs(dy.data[i]) * xhat(i);
  }
  double gamma = accumulationGamma(m + 4);
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t f = feature[i];
    // dx = w rstd (dy - dbias / M - xhat dweight / M): the two sums err by
    // gamma_{M+4} times their absolute sums (with the products by 1/M,
    // itself rounded); forming xhat, the two subtractions, the product
    // with xhat and w * rstd and its product add ten roundings at most.
    double absSum = std::fabs(w.data[f]) * rstd.data[f] *
                    (std::fabs(dy.data[i]) + sumAbsDy[f] / m +
                     xhat(i) * sumAbsDyXhat[f] / m);
    double err = (gamma + 10 * kU32) * absSum;
    b.dx.bound.data[i] = finish(kNormSlack * err, g.dx.data[i], out);
  }
  for (int64_t f = 0; f < features; ++f) {
    b.dweight.bound.data[f] =
        finish(kNormSlack * (gamma + 3 * kU32) * sumAbsDyXhat[f],
               g.dweight.data[f], paramOut);
    b.dbias.bound.data[f] = finish(kNormSlack * gamma * sumAbsDy[f],
                                   g.dbias.data[f], paramOut);
  }
  return b;
}

} // namespace boo::ref
