//===- VerifyChecks.cpp - --verify's checks of a device's results ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The limits of checkStatistics
// -----------------------------
// The reference reads the same (already rounded) inputs as the kernel and
// computes in double, so e = actual - expected is the kernel's own rounding
// error. The model is the probabilistic one of Higham and Mary ("A new
// approach to probabilistic rounding error analysis", SISC 2019): every f32
// operation has an independent, mean-zero relative error d with
// |d| <= u32 = 2^-24; an error uniform within the spacing has
// E[d^2] <= u32^2 / 3.
//
//  * The final rounding to the result's type errs uniformly within
//    +-ulp(v)/2: variance ulp(v)^2 / 12, which is at most u^2 v^2 / 3 since
//    ulp(v) <= 2 u |v| (the "u / sqrt(3)" of a rounded value).
//  * An f32 sum of K terms, in any order, is a tree of K - 1 additions; to
//    first order its error is sum_j d_j s_j over the partial sums s_j it
//    forms. With independent zero-mean inputs (the Random fill) every
//    partial sum has E[s_j^2] <= E[result^2], so the variance is at most
//    (K - 1) u32^2 / 3 E[result^2], whatever the order. c more roundings per
//    term: f32 products (c = 1; f16/bf16 products are exact in f32), and for
//    layer and batch norms the element-wise operations around the reductions
//    (x - mean, * rstd, * weight, + bias, 1/M, + eps, sqrt, divide, and a
//    batch norm's running-statistics update): c = 16 covers them. A batch
//    norm's K is M, the elements of a feature, for every result (its
//    inference with running statistics sums nothing: K = 0).
//
// Pooled over the N elements of a result, relative to rms(expected):
//   sigma^2 = mean(ulp(expected)^2 / 12) / rms^2 + (K + c) u32^2 / 3.
//  - stddev: stddev(e) / rms <= (1.5 + 3 / sqrt(N)) sigma. The sample
//    deviation of N errors varies by about 1 / sqrt(2N) (3 / sqrt(N) leaves
//    room for heavier tails than Gaussian); 1.5 covers the model.
//  - bias: |mean(e)| / rms <= 4 sigma / sqrt(N) + 4 u32: four standard
//    errors of the mean of N unbiased errors, plus a few f32 roundings that
//    every element shares (1/M, eps, a biased rsqrt).
// f64 products accumulate in f64, and their accumulation term is f64's u.
// A correct kernel measures 0.2 (long f32 sums) to 1 (f16/bf16 results)
// sigma; Boo's CPU pipeline stays under 0.7 of the stddev limit. One that
// accumulates in bf16 has a deviation near u_bf16 sqrt(K / 6), and one that
// adds a constant a mean error far beyond 4 sigma / sqrt(N) (0.07 u for
// bf16 at N = 1000).
//
// Structured inputs
// -----------------
// Convolutions of 0/1 blocks sum ones: every partial sum is an integer no
// larger than the result, so f32 accumulation is exact up to 2^24 and the
// one final rounding is deterministic: actual == round(expected). Layer
// and batch norms are not integers; they get one ulp of the result's type
// plus a worst-case bound of the f32 computation, gamma(M + 16) times the
// sum of the magnitudes entering the element, doubled for the first-order
// analysis (as unittests/Numerics/Tolerance.cpp does). A batch norm's bound
// also carries the errors of the statistics it computes (its training,
// its inference without running statistics, its backward without --save)
// into y and dx, through x - mean and rstd; statistics it is given (running
// ones, a backward's saved ones) are the reference's too, and exact. The
// bounds assume the kernel normalizes with its f32 statistics, not with
// copies rounded to the statistics' type.
//
// Indices
// -------
// An integer result (an arg-reduction's i64 indices) involves no rounding:
// on either fill it must equal the reference's element for element, and it
// gets that exact check in place of the finite, bias and stddev ones. Its
// random inputs (VerifyInputs.cpp) are built for it, with ties, signed
// zeros, NaNs and infinities.
//
//===----------------------------------------------------------------------===//

#include "VerifyInternal.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;
using namespace mlir::boo::harness::detail;

namespace {

constexpr double kU32 = 0x1p-24;
constexpr int64_t kMinSamples = 1000;
/// Extra f32 roundings per term (see the top of the file).
constexpr int64_t kConvExtraRoundings = 1;
constexpr int64_t kLayerNormExtraRoundings = 16;
/// A batch norm: the layer norm's, and the running statistics' update
/// (momentum, 1 - momentum, M / (M - 1)): 16 still covers them.
constexpr int64_t kBatchNormExtraRoundings = 16;
/// A matrix product: the bias's roundings and those of alpha and beta.
constexpr int64_t kGemmExtraRoundings = 3;

/// "(0, 2, 1)": the coordinates of row-major index `index`.
std::string formatCoordinates(const std::vector<int64_t> &shape,
                              int64_t index) {
  std::vector<int64_t> coords(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    coords[d] = index % shape[d];
    index /= shape[d];
  }
  std::string s = "(";
  for (size_t d = 0; d < coords.size(); ++d)
    s += (d ? ", " : "") + std::to_string(coords[d]);
  return s + ")";
}

/// The spacing of `type` at |v|: 2u * 2^floor(log2 |v|), at least the
/// subnormal spacing.
double ulpOf(double v, ElementType type) {
  double minSpacing = 2 * ref::subnormalHalfSpacing(type);
  double a = std::fabs(v);
  if (!(a > 0) || !std::isfinite(a))
    return minSpacing;
  int exp;
  std::frexp(a, &exp); // a = m 2^exp, 0.5 <= m < 1
  return std::max(std::ldexp(2 * ref::unitRoundoff(type), exp - 1), minSpacing);
}

/// The type a result of `type` is accumulated in: f64 for f64 results (the
/// products), f32 for every other.
ElementType getAccumulatorType(ElementType type) {
  return type == ElementType::F64 ? ElementType::F64 : ElementType::F32;
}

/// Empty if the results' count, shapes and types are right, else a failing
/// check that says what is wrong.
std::vector<CheckResult>
checkResultShapes(const std::vector<TensorSpec> &specs,
                  const std::vector<HostTensor> &actual,
                  const std::vector<Tensor> &expected) {
  CheckResult c;
  c.name = "results";
  if (actual.size() != specs.size() || expected.size() != specs.size()) {
    c.details = "expected " + std::to_string(specs.size()) + " results, got " +
                std::to_string(actual.size()) + " (reference " +
                std::to_string(expected.size()) + ")";
    return {c};
  }
  for (size_t r = 0; r < specs.size(); ++r) {
    c.name = specs[r].name + ": shape";
    c.details = describeMismatch(specs[r], actual[r]);
    if (expected[r].shape != specs[r].shape)
      c.details = "the reference's shape is " + formatShape(expected[r].shape);
    if (!c.details.empty())
      return {c};
  }
  return {};
}

std::string samplesNote(int64_t n) {
  std::string s = std::to_string(n) + " samples";
  if (n < kMinSamples)
    s = "only " + s + " (fewer than " + std::to_string(kMinSamples) +
        "), judged on those";
  return s;
}

/// Whether element `i` is compared (every one without a mask).
bool isChecked(const std::vector<bool> *mask, int64_t i) {
  return !mask || (*mask)[i];
}

/// " (a sample: N of M elements)" where a mask leaves some out, else "".
std::string sampleNote(const std::vector<bool> *mask) {
  if (!mask)
    return "";
  int64_t n = llvm::count(*mask, true);
  if (n == static_cast<int64_t>(mask->size()))
    return "";
  return " (a sample: " + std::to_string(n) + " of " +
         std::to_string(mask->size()) + " elements written)";
}

void checkOneResult(const TensorSpec &spec, int64_t reductionLength,
                    int64_t extraRoundings, const HostTensor &actual,
                    const Tensor &expected, const std::vector<bool> *mask,
                    std::vector<CheckResult> &checks) {
  ElementType type = spec.type;
  double u = ref::unitRoundoff(type);
  std::vector<double> errors;
  double sumExpected2 = 0, sumRounding = 0;
  int64_t nonFinite = 0, firstNonFinite = -1, overflows = 0;
  double firstNonFiniteValue = 0;
  for (int64_t i = 0; i < expected.size(); ++i) {
    if (!isChecked(mask, i))
      continue;
    double e = expected.data[i];
    // An expected value beyond the type's range is an infinity in any
    // correct kernel; there is nothing to measure.
    if (!std::isfinite(ref::roundTo(e, type))) {
      ++overflows;
      continue;
    }
    double a = readElement(actual, type, i);
    if (!std::isfinite(a)) {
      if (nonFinite++ == 0) {
        firstNonFinite = i;
        firstNonFiniteValue = a;
      }
      continue;
    }
    errors.push_back(a - e);
    sumExpected2 += e * e;
    double ulp = ulpOf(e, type);
    sumRounding += ulp * ulp / 12;
  }

  CheckResult finite;
  finite.name = spec.name + ": finite";
  finite.passed = nonFinite == 0;
  finite.measured = static_cast<double>(nonFinite);
  if (nonFinite)
    finite.details = std::to_string(nonFinite) + " non-finite values where " +
                     "finite ones are expected, the first at index " +
                     std::to_string(firstNonFinite) + " " +
                     formatCoordinates(spec.shape, firstNonFinite) + ": " +
                     formatDouble(firstNonFiniteValue) + ", expected " +
                     formatDouble(expected.data[firstNonFinite]);
  else
    finite.details = "no NaN or Inf";
  if (overflows)
    finite.details += "; " + std::to_string(overflows) +
                      " expected values overflow " + getElementTypeName(type) +
                      " and are not compared";
  finite.details += sampleNote(mask);
  checks.push_back(finite);

  int64_t n = static_cast<int64_t>(errors.size());
  std::string samples = samplesNote(n) + sampleNote(mask);
  CheckResult bias, stddev;
  bias.name = spec.name + ": bias";
  stddev.name = spec.name + ": stddev";
  bias.fewSamples = stddev.fewSamples = n < kMinSamples;
  if (n == 0) {
    bias.details = stddev.details = "no samples";
    checks.push_back(bias);
    checks.push_back(stddev);
    return;
  }

  double mean = 0;
  for (double e : errors)
    mean += e;
  mean /= n;
  double variance = 0;
  for (double e : errors)
    variance += (e - mean) * (e - mean);
  variance /= n;
  double rms = std::sqrt(sumExpected2 / n);
  // All expected values zero: errors are measured in absolute terms.
  std::string scaleNote;
  double scale = rms;
  if (!(scale > 0)) {
    scale = 1;
    scaleNote = " (expected values are all zero: absolute error)";
  }

  double roundingRel2 = sumRounding / n / (scale * scale);
  ElementType accType = getAccumulatorType(type);
  double uAcc = ref::unitRoundoff(accType);
  double accumulationRel2 =
      static_cast<double>(reductionLength + extraRoundings) * uAcc * uAcc / 3;
  double sigma = std::sqrt(roundingRel2 + accumulationRel2);
  auto inU = [&](double v) { return " (" + formatDouble(v / u) + " u)"; };

  bias.measured = std::fabs(mean) / scale;
  bias.limit = 4 * sigma / std::sqrt(static_cast<double>(n)) + 4 * uAcc;
  bias.passed = bias.measured <= bias.limit;
  bias.details =
      "mean(error) / rms(expected) = " + formatDouble(mean / scale, "%.2e") +
      inU(mean / scale) + ", limit " + formatDouble(bias.limit, "%.2e") +
      inU(bias.limit) + "; u = " + formatDouble(u, "%.2e") + " (" +
      getElementTypeName(type) + "); " + samples + scaleNote;

  stddev.measured = std::sqrt(variance) / scale;
  stddev.limit = (1.5 + 3 / std::sqrt(static_cast<double>(n))) * sigma;
  stddev.passed = stddev.measured <= stddev.limit;
  stddev.details =
      "stddev(error) / rms(expected) = " +
      formatDouble(stddev.measured, "%.2e") + inU(stddev.measured) +
      ", limit " + formatDouble(stddev.limit, "%.2e") + inU(stddev.limit) +
      " from rounding to " + getElementTypeName(type) + " " +
      formatDouble(std::sqrt(roundingRel2), "%.2e") +
      " and " + getElementTypeName(accType) +
      " accumulation over K = " + std::to_string(reductionLength) +
      " terms " + formatDouble(std::sqrt(accumulationRel2), "%.2e") + "; " +
      samples + scaleNote;
  checks.push_back(bias);
  checks.push_back(stddev);
}

/// An integer result (an arg-reduction's i64 indices): every element
/// equals the reference's, exactly. Rounding has no part in an index, so
/// neither has a statistic.
CheckResult checkExactResult(const TensorSpec &spec, const HostTensor &actual,
                             const Tensor &expected,
                             const std::vector<bool> *mask) {
  CheckResult check;
  check.name = spec.name + ": exact";
  int64_t mismatches = 0;
  std::string first;
  for (int64_t i = 0; i < expected.size(); ++i) {
    if (!isChecked(mask, i))
      continue;
    double a = readElement(actual, spec.type, i), e = expected.data[i];
    if (a == e)
      continue;
    if (mismatches++ == 0)
      first = "; the first at " + std::to_string(i) + " " +
              formatCoordinates(spec.shape, i) + ": " +
              formatDouble(a, "%.0f") + ", expected " +
              formatDouble(e, "%.0f");
  }
  check.passed = mismatches == 0;
  check.measured = static_cast<double>(mismatches);
  check.details = std::to_string(mismatches) + " of " +
                  std::to_string(expected.size()) + " " +
                  getElementTypeName(spec.type) + " values differ" + first +
                  sampleNote(mask);
  return check;
}

} // namespace

std::vector<CheckResult>
mlir::boo::harness::checkStatistics(const MIOpenProblem &problem,
                                    const std::vector<HostTensor> &actual,
                                    const std::vector<Tensor> &expected,
                                    const CheckedElements *checked) {
  std::vector<TensorSpec> specs = getProblemSignature(problem).results;
  std::vector<CheckResult> checks = checkResultShapes(specs, actual, expected);
  if (!checks.empty())
    return checks;
  int64_t extraRoundings = kLayerNormExtraRoundings;
  if (std::holds_alternative<MIOpenConvProblem>(problem))
    extraRoundings = kConvExtraRoundings;
  else if (std::holds_alternative<MIOpenGemmProblem>(problem))
    extraRoundings = kGemmExtraRoundings;
  else if (std::holds_alternative<MIOpenBatchNormProblem>(problem))
    extraRoundings = kBatchNormExtraRoundings;
  for (size_t r = 0; r < specs.size(); ++r) {
    const std::vector<bool> *mask = checked ? &(*checked)[r] : nullptr;
    if (!isFloatType(specs[r].type))
      checks.push_back(
          checkExactResult(specs[r], actual[r], expected[r], mask));
    else
      checkOneResult(specs[r], getReductionLength(problem, r), extraRoundings,
                     actual[r], expected[r], mask, checks);
  }
  return checks;
}

//===----------------------------------------------------------------------===//
// The structured check
//===----------------------------------------------------------------------===//

namespace {

/// Per result element, twice the largest f32 computation error of a layer
/// norm on the inputs `args` (before the final rounding); see the top of the
/// file.
std::vector<Tensor>
getLayerNormErrorBounds(const MIOpenLayerNormProblem &p,
                        const std::vector<TensorSpec> &specs,
                        const std::vector<Tensor> &args) {
  LayerNormShapes s = getShapes(p);
  int64_t rows = s.rows, m = s.rowSize;
  const Tensor *dy = p.direction == 1 ? nullptr : &args[0];
  const Tensor *x = findArgument(specs, args, "x");
  const Tensor *weight = findArgument(specs, args, "weight");
  const Tensor *bias = findArgument(specs, args, "bias");
  Tensor zeros(s.x);
  if (!x)
    x = &zeros; // -F 8: only dbias, which does not read x.
  ref::LayerNormResult fwd = ref::layerNormForward(
      *x, static_cast<int>(p.getNormalizedRank()), nullptr, nullptr, p.epsilon);
  double gammaRow = 2 * (m + kLayerNormExtraRoundings) * kU32;
  double gammaCol = 2 * (rows + 8) * kU32;

  Tensor y(s.x), mean(s.stat), rstd(s.stat), dx(s.x), dweight(s.param),
      dbias(s.param);
  for (int64_t row = 0; row < rows; ++row) {
    double mu = fwd.mean.data[row], rs = fwd.rstd.data[row];
    double meanAbsX = 0, var = 0, meanAbsG = 0, meanAbsGXhat = 0;
    for (int64_t j = 0; j < m; ++j) {
      int64_t i = row * m + j;
      double xhat = (x->data[i] - mu) * rs;
      double g = dy ? dy->data[i] * (weight ? weight->data[j] : 1.0) : 0.0;
      meanAbsX += std::fabs(x->data[i]) / m;
      var += (x->data[i] - mu) * (x->data[i] - mu) / m;
      meanAbsG += std::fabs(g) / m;
      meanAbsGXhat += std::fabs(g * xhat) / m;
    }
    // The f32 mean errs by gamma * mean|x|; rstd by half the relative error
    // of var + eps (which the mean's error enters squared) and a few
    // roundings.
    double errMean = (m + 4) * kU32 * meanAbsX;
    mean.data[row] = 2 * errMean;
    rstd.data[row] =
        rs * (gammaRow + 2 * errMean * errMean / (var + p.epsilon));
    for (int64_t j = 0; j < m; ++j) {
      int64_t i = row * m + j;
      double absXhat = std::fabs((x->data[i] - mu) * rs);
      double w = weight ? std::fabs(weight->data[j]) : 1.0;
      double b = bias ? std::fabs(bias->data[j]) : 0.0;
      y.data[i] =
          gammaRow * (rs * (std::fabs(x->data[i] - mu) + meanAbsX) * w + b);
      if (!dy)
        continue;
      double g = std::fabs(dy->data[i]) * (weight ? w : 1.0);
      dx.data[i] = gammaRow * rs * (g + meanAbsG + absXhat * meanAbsGXhat);
      dweight.data[j] += gammaCol * std::fabs(dy->data[i]) * absXhat;
      dbias.data[j] += gammaCol * std::fabs(dy->data[i]);
    }
  }
  std::vector<Tensor> bounds;
  for (const TensorSpec &spec : getProblemSignature(p).results)
    bounds.push_back(spec.name == "y"         ? y
                     : spec.name == "mean"    ? mean
                     : spec.name == "rstd"    ? rstd
                     : spec.name == "dx"      ? dx
                     : spec.name == "dweight" ? dweight
                                              : dbias);
  return bounds;
}

/// One feature's statistics (in double) and twice the largest errors of an
/// f32 computation of them (see the top of the file).
struct FeatureStats {
  double mean = 0, var = 0, rstd = 0, meanAbsX = 0, meanSqX = 0;
  double errMean = 0, errVar = 0, errRstd = 0;
};

std::vector<FeatureStats> getBatchStats(const BatchNormShapes &s,
                                        const Tensor &x, double epsilon) {
  std::vector<FeatureStats> stats(ref::product(s.stat));
  double m = static_cast<double>(s.reduction);
  for (int64_t i = 0; i < x.size(); ++i) {
    FeatureStats &f = stats[s.featureOf[i]];
    f.mean += x.data[i] / m;
    f.meanAbsX += std::fabs(x.data[i]) / m;
    f.meanSqX += x.data[i] * x.data[i] / m;
  }
  for (int64_t i = 0; i < x.size(); ++i) {
    FeatureStats &f = stats[s.featureOf[i]];
    f.var += (x.data[i] - f.mean) * (x.data[i] - f.mean) / m;
  }
  // The mean errs by gamma(M) mean|x|. The variance by gamma(M) mean(x^2)
  // (a one-pass kernel's E[x^2] - mean^2 too) and, through the mean, by
  // 2 |mean| errMean + errMean^2; rstd by half the relative error of
  // var + eps and a few roundings.
  double gammaRow = 2 * (s.reduction + kBatchNormExtraRoundings) * kU32;
  for (FeatureStats &f : stats) {
    f.rstd = 1 / std::sqrt(f.var + epsilon);
    f.errMean = 2 * (s.reduction + 4) * kU32 * f.meanAbsX;
    f.errVar = gammaRow * f.meanSqX + 2 * std::fabs(f.mean) * f.errMean +
               f.errMean * f.errMean;
    f.errRstd = f.rstd * (32 * kU32 + f.errVar / (f.var + epsilon));
  }
  return stats;
}

/// The backward's bounds, given the statistics the kernel normalizes with
/// and their errors (zero when given, as --save does).
void getBatchNormBackwardBounds(const BatchNormShapes &s,
                                const std::vector<FeatureStats> &stats,
                                const Tensor &dy, const Tensor &x,
                                const Tensor &weight, Tensor &dx,
                                Tensor &dweight, Tensor &dbias) {
  double m = static_cast<double>(s.reduction);
  double gammaRow = 2 * (s.reduction + kBatchNormExtraRoundings) * kU32;
  size_t features = stats.size();
  std::vector<double> meanAbsDy(features), meanAbsDyXhat(features),
      meanDyXhatErr(features), sumDyXhat(features);
  auto xhat = [&](int64_t i, double &err) {
    const FeatureStats &f = stats[s.featureOf[i]];
    err = f.errMean * f.rstd + std::fabs(x.data[i] - f.mean) * f.errRstd;
    return (x.data[i] - f.mean) * f.rstd;
  };
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t f = s.featureOf[i];
    double err, xh = xhat(i, err), g = std::fabs(dy.data[i]);
    meanAbsDy[f] += g / m;
    meanAbsDyXhat[f] += g * std::fabs(xh) / m;
    meanDyXhatErr[f] += g * err / m;
    sumDyXhat[f] += dy.data[i] * xh;
    dbias.data[f] += gammaRow * g;
    dweight.data[f] += gammaRow * g * std::fabs(xh) + g * err;
  }
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t f = s.featureOf[i];
    const FeatureStats &st = stats[f];
    double err, xh = xhat(i, err);
    double scale = std::fabs(weight.data[f]) * st.rstd;
    double value = scale * std::fabs(dy.data[i] - sumDyXhat[f] / m * xh);
    dx.data[i] = scale * (gammaRow * (std::fabs(dy.data[i]) + meanAbsDy[f] +
                                      std::fabs(xh) * meanAbsDyXhat[f]) +
                          err * std::fabs(sumDyXhat[f]) / m +
                          std::fabs(xh) * meanDyXhatErr[f]) +
                 (value + scale * meanAbsDy[f]) * st.errRstd / st.rstd;
  }
}

/// Per result element, twice the largest f32 computation error of a batch
/// norm on the inputs `args` (before the final rounding).
std::vector<Tensor>
getBatchNormErrorBounds(const MIOpenBatchNormProblem &p,
                        const std::vector<TensorSpec> &specs,
                        const std::vector<Tensor> &args) {
  using Direction = MIOpenBatchNormProblem::Direction;
  BatchNormShapes s = getShapes(p);
  const Tensor &x = *findArgument(specs, args, "x");
  const Tensor &weight = *findArgument(specs, args, "weight");
  const Tensor *runMean = findArgument(specs, args, "running_mean");
  const Tensor *runVar = findArgument(specs, args, "running_var");
  std::vector<FeatureStats> stats = getBatchStats(s, x, p.epsilon);
  std::vector<FeatureStats> used = stats;
  const Tensor *givenMean = findArgument(specs, args, "mean");
  const Tensor *givenRstd = findArgument(specs, args, "rstd");
  double gamma = 32 * kU32; // a few element-wise roundings, doubled
  for (size_t f = 0; f < used.size(); ++f) {
    // Given statistics are read, not computed: only their use errs.
    if (p.direction == Direction::Inference && runMean) {
      used[f] = FeatureStats();
      used[f].mean = runMean->data[f];
      used[f].rstd = 1 / std::sqrt(runVar->data[f] + p.epsilon);
      used[f].errRstd = gamma * used[f].rstd;
    } else if (givenMean) {
      used[f] = FeatureStats();
      used[f].mean = givenMean->data[f];
      used[f].rstd = givenRstd->data[f];
    }
  }
  Tensor y(s.x), dx(s.x), dweight(s.stat), dbias(s.stat), mean(s.stat),
      rstd(s.stat), newMean(s.stat), newVar(s.stat);
  if (p.direction == Direction::Backward) {
    getBatchNormBackwardBounds(s, used, *findArgument(specs, args, "dy"), x,
                               weight, dx, dweight, dbias);
  } else {
    const Tensor &bias = *findArgument(specs, args, "bias");
    for (int64_t i = 0; i < x.size(); ++i) {
      int64_t f = s.featureOf[i];
      const FeatureStats &u = used[f];
      double w = std::fabs(weight.data[f]), d = std::fabs(x.data[i] - u.mean);
      // |x| + |mean| for a kernel that folds the statistics into a scale
      // and a shift: x * (rstd * w) + (b - mean * rstd * w).
      double terms = d + std::fabs(x.data[i]) + std::fabs(u.mean);
      y.data[i] = w * (u.errMean * u.rstd + d * u.errRstd) +
                  gamma * (terms * u.rstd * w + std::fabs(bias.data[f]));
    }
  }
  double mo = p.momentum;
  double unbias = s.reduction > 1 ? s.reduction / (s.reduction - 1.0) : 1.0;
  for (size_t f = 0; f < stats.size(); ++f) {
    const FeatureStats &b = stats[f];
    mean.data[f] = b.errMean;
    rstd.data[f] = b.errRstd;
    if (!runMean)
      continue;
    newMean.data[f] =
        mo * b.errMean + gamma * ((1 - mo) * std::fabs(runMean->data[f]) +
                                  mo * std::fabs(b.mean));
    newVar.data[f] = mo * unbias * b.errVar +
                     gamma * ((1 - mo) * runVar->data[f] + mo * unbias * b.var);
  }
  std::vector<Tensor> bounds;
  for (const TensorSpec &spec : getProblemSignature(p).results)
    bounds.push_back(spec.name == "y"                  ? y
                     : spec.name == "mean"             ? mean
                     : spec.name == "rstd"             ? rstd
                     : spec.name == "new_running_mean" ? newMean
                     : spec.name == "new_running_var"  ? newVar
                     : spec.name == "dx"               ? dx
                     : spec.name == "dweight"          ? dweight
                                                       : dbias);
  return bounds;
}

} // namespace

CheckResult
mlir::boo::harness::checkStructured(const MIOpenProblem &problem,
                                    const std::vector<HostTensor> &actual,
                                    const std::vector<Tensor> &expected,
                                    const CheckedElements *checked) {
  std::vector<TensorSpec> specs = getProblemSignature(problem).results;
  // Contractions (convolutions, matrix products) sum ones: exact. A matrix
  // product's alpha and beta scale the sum and C in f32 (three roundings).
  // Arg-reductions' indices are exact too.
  auto *gemm = std::get_if<MIOpenGemmProblem>(&problem);
  bool isContraction =
      std::holds_alternative<MIOpenConvProblem>(problem) || gemm;
  bool isArgReduce = std::holds_alternative<MIOpenArgReduceProblem>(problem);
  bool scaled = gemm && (gemm->alpha != 1.0 ||
                         (gemm->beta != 0.0 && gemm->beta != 1.0));
  CheckResult check;
  check.name = (isContraction && !scaled) || isArgReduce
                   ? "structured: exact"
                   : "structured: within 1 ulp";
  std::vector<CheckResult> shapes = checkResultShapes(specs, actual, expected);
  if (!shapes.empty()) {
    check.details = shapes[0].name + ": " + shapes[0].details;
    return check;
  }

  // Norms: the f32 error bounds on the structured inputs.
  std::vector<Tensor> errorBounds;
  if (!isContraction && !isArgReduce) {
    std::vector<HostTensor> inputs;
    std::string error;
    if (failed(
            makeInputs(problem, InputFill::Structured, 0, 0, inputs, error))) {
      check.details = error;
      return check;
    }
    std::vector<TensorSpec> argSpecs = getProblemSignature(problem).arguments;
    std::vector<Tensor> args;
    for (const HostTensor &t : inputs)
      args.push_back(decodeTensor(t));
    if (auto *bnorm = std::get_if<MIOpenBatchNormProblem>(&problem))
      errorBounds = getBatchNormErrorBounds(*bnorm, argSpecs, args);
    else
      errorBounds = getLayerNormErrorBounds(
          std::get<MIOpenLayerNormProblem>(problem), argSpecs, args);
  }

  int64_t mismatches = 0, total = 0;
  std::string first, perResult;
  for (size_t r = 0; r < specs.size(); ++r) {
    ElementType type = specs[r].type;
    int64_t k = getReductionLength(problem, r);
    int64_t resultMismatches = 0, compared = 0;
    double uAcc = ref::unitRoundoff(getAccumulatorType(type));
    const std::vector<bool> *mask = checked ? &(*checked)[r] : nullptr;
    for (int64_t i = 0; i < expected[r].size(); ++i) {
      if (!isChecked(mask, i))
        continue;
      ++compared;
      double e = expected[r].data[i];
      double a = readElement(actual[r], type, i);
      // Convolutions: exactly the rounded sum of ones while f32 sums them
      // exactly (up to 2^24), else within that accumulation's bound.
      double target = e, tolerance = 0;
      if (!isFloatType(type)) {
        // Indices: exactly the reference's.
      } else if (scaled) {
        tolerance = ulpOf(e, type) + 4 * uAcc * std::fabs(e);
      } else if (isContraction && std::fabs(e) <= 0x1p24) {
        target = ref::roundTo(e, type);
      } else if (isContraction) {
        tolerance = ulpOf(e, type) + k * uAcc * std::fabs(e);
      } else {
        tolerance = ulpOf(e, type) + errorBounds[r].data[i];
      }
      if (std::fabs(a - target) <= tolerance)
        continue;
      if (mismatches == 0)
        first = specs[r].name + "[" + std::to_string(i) + "] " +
                formatCoordinates(specs[r].shape, i) + " = " +
                formatDouble(a, "%.9g") + ", expected " +
                formatDouble(target, "%.9g") +
                (tolerance > 0 ? " +- " + formatDouble(tolerance) : "");
      ++mismatches;
      ++resultMismatches;
    }
    total += compared;
    perResult += (r ? ", " : "") + specs[r].name + " " +
                 std::to_string(resultMismatches) + "/" +
                 std::to_string(compared) + sampleNote(mask);
  }
  check.passed = mismatches == 0;
  check.measured = static_cast<double>(mismatches);
  check.details = std::to_string(mismatches) + " of " + std::to_string(total) +
                  " elements differ (" + perResult + ")";
  if (mismatches)
    check.details += "; first " + first;
  return check;
}

double
mlir::boo::harness::getMaxRelativeError(const std::vector<HostTensor> &actual,
                                        const std::vector<Tensor> &expected) {
  double worst = 0;
  for (size_t r = 0; r < actual.size() && r < expected.size(); ++r) {
    double squares = 0;
    for (double v : expected[r].data)
      squares += v * v;
    double rms = expected[r].data.empty()
                     ? 1.0
                     : std::sqrt(squares / expected[r].data.size());
    if (rms == 0)
      rms = 1.0;
    for (int64_t i = 0; i < actual[r].numElements(); ++i) {
      double err = std::fabs(actual[r].getAsDouble(i) - expected[r].data[i]);
      if (!std::isfinite(err))
        return INFINITY;
      worst = std::max(worst, err / rms);
    }
  }
  return worst;
}

CheckedElements
mlir::boo::harness::getWrittenElements(const std::vector<HostTensor> &results,
                                       uint8_t unwritten) {
  CheckedElements written;
  for (const HostTensor &t : results) {
    int64_t bytes = getElementSize(t.type);
    std::vector<bool> mask(t.numElements());
    for (int64_t i = 0; i < t.numElements(); ++i)
      mask[i] = llvm::any_of(
          llvm::ArrayRef<uint8_t>(t.data).slice(i * bytes, bytes),
          [&](uint8_t b) { return b != unwritten; });
    written.push_back(std::move(mask));
  }
  return written;
}
