//===- Verify.cpp - Reference results and checks for a driver -------------===//
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
//    layer norms the element-wise operations around the reductions (x - mean,
//    * rstd, * weight, + bias, 1/M, + eps, sqrt, divide): c = 16 covers them.
//
// Pooled over the N elements of a result, relative to rms(expected):
//   sigma^2 = mean(ulp(expected)^2 / 12) / rms^2 + (K + c) u32^2 / 3.
//  - stddev: stddev(e) / rms <= (1.5 + 3 / sqrt(N)) sigma. The sample
//    deviation of N errors varies by about 1 / sqrt(2N) (3 / sqrt(N) leaves
//    room for heavier tails than Gaussian); 1.5 covers the model.
//  - bias: |mean(e)| / rms <= 4 sigma / sqrt(N) + 4 u32: four standard
//    errors of the mean of N unbiased errors, plus a few f32 roundings that
//    every element shares (1/M, eps, a biased rsqrt).
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
// norms are not integers; they get one ulp of the result's type plus a
// worst-case bound of the f32 computation, gamma(M + 16) times the sum of
// the magnitudes entering the element, doubled for the first-order analysis
// (as unittests/Numerics/Tolerance.cpp does).
//
//===----------------------------------------------------------------------===//

#include "Boo/Driver/Verify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::driver;
namespace ref = ::boo::ref;
using ref::DType;
using ref::Tensor;

namespace {

constexpr double kU32 = 0x1p-24;
constexpr int64_t kMinSamples = 1000;
/// Extra f32 roundings per term (see the top of the file).
constexpr int64_t kConvExtraRoundings = 1;
constexpr int64_t kLayerNormExtraRoundings = 16;

//===----------------------------------------------------------------------===//
// Types, shapes and the reference's codec
//===----------------------------------------------------------------------===//

/// The reference type of a host tensor type; only f32, f16 and bf16 occur.
FailureOr<DType> toRefType(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return DType::F32;
  case ElementType::F16:
    return DType::F16;
  case ElementType::BF16:
    return DType::BF16;
  default:
    return failure();
  }
}

DType refTypeOf(const HostTensor &t) { return *toRefType(t.type); }

std::vector<int64_t> toVector(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

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

std::string formatDouble(double v, const char *format = "%.3g") {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

/// Element `i` of `t` decoded with the reference's codec, not HostTensor's,
/// so that a codec bug shared with the runner cannot cancel out.
double readElement(const HostTensor &t, DType type, int64_t i) {
  int64_t bytes = ref::dtypeBytes(type);
  uint32_t bits = 0;
  for (int64_t b = 0; b < bytes; ++b)
    bits |= static_cast<uint32_t>(t.data[i * bytes + b]) << (8 * b);
  return ref::decode(bits, type);
}

void writeElement(HostTensor &t, DType type, int64_t i, double v) {
  int64_t bytes = ref::dtypeBytes(type);
  uint32_t bits = ref::encode(ref::roundTo(v, type), type);
  for (int64_t b = 0; b < bytes; ++b)
    t.data[i * bytes + b] = static_cast<uint8_t>(bits >> (8 * b));
}

Tensor decodeTensor(const HostTensor &t) {
  Tensor result(t.shape);
  DType type = refTypeOf(t);
  for (int64_t i = 0; i < result.size(); ++i)
    result.data[i] = readElement(t, type, i);
  return result;
}

/// The spacing of `type` at |v|: 2u * 2^floor(log2 |v|), at least the
/// subnormal spacing.
double ulpOf(double v, DType type) {
  double minSpacing = 2 * ref::subnormalHalfSpacing(type);
  double a = std::fabs(v);
  if (!(a > 0) || !std::isfinite(a))
    return minSpacing;
  int exp;
  std::frexp(a, &exp); // a = m 2^exp, 0.5 <= m < 1
  return std::max(std::ldexp(2 * ref::unitRoundoff(type), exp - 1), minSpacing);
}

//===----------------------------------------------------------------------===//
// Signatures (docs/MIOpenImport.md)
//===----------------------------------------------------------------------===//

std::vector<TensorSpec> getConvArguments(const MIOpenConvProblem &p) {
  ElementType t = getElementType(p.dataType);
  const ConvGeometry &g = p.geometry;
  TensorSpec input{"input", toVector(g.inputShape()), t};
  TensorSpec filter{"filter", toVector(g.filterShape()), t};
  if (p.direction == 1) {
    std::vector<TensorSpec> args = {input, filter};
    if (p.bias)
      args.push_back({"bias", {g.outChannels}, t});
    return args;
  }
  std::vector<TensorSpec> args = {
      {"grad_output", toVector(g.outputShape()), t}};
  if (p.direction & 4)
    args.push_back(input);
  if (p.direction & 2)
    args.push_back(filter);
  return args;
}

std::vector<TensorSpec> getConvResults(const MIOpenConvProblem &p) {
  ElementType t = getElementType(p.dataType);
  const ConvGeometry &g = p.geometry;
  if (p.direction == 1)
    return {{"output", toVector(g.outputShape()), t}};
  std::vector<TensorSpec> results;
  if (p.direction & 2)
    results.push_back({"grad_input", toVector(g.inputShape()), t});
  if (p.direction & 4)
    results.push_back({"grad_filter", toVector(g.filterShape()), t});
  if (p.bias)
    results.push_back({"grad_bias", {g.outChannels}, t});
  return results;
}

/// The layer norm's shapes: x, the statistics (leading dims) and the
/// parameters (normalized dims).
struct LayerNormShapes {
  std::vector<int64_t> x, stat, param;
  int64_t rows, rowSize;
};

LayerNormShapes getShapes(const MIOpenLayerNormProblem &p) {
  LayerNormShapes s;
  s.x = toVector(p.shape);
  s.stat.assign(s.x.begin(), s.x.begin() + p.normalizedDim);
  s.param.assign(s.x.begin() + p.normalizedDim, s.x.end());
  s.rows = ref::product(s.stat);
  s.rowSize = ref::product(s.param);
  return s;
}

bool hasWeightArgument(const MIOpenLayerNormProblem &p) {
  return p.weightAndBias && (p.direction == 2 || p.direction == 14);
}

std::vector<TensorSpec> getLayerNormArguments(const MIOpenLayerNormProblem &p) {
  ElementType t = getElementType(p.dataType);
  LayerNormShapes s = getShapes(p);
  TensorSpec weight{"weight", s.param, t}, bias{"bias", s.param, t};
  if (p.direction == 1) {
    std::vector<TensorSpec> args = {{"x", s.x, t}};
    if (p.weightAndBias)
      args.insert(args.end(), {weight, bias});
    return args;
  }
  std::vector<TensorSpec> args = {{"dy", s.x, t}};
  if (p.direction == 8)
    return args;
  args.push_back({"x", s.x, t});
  if (hasWeightArgument(p))
    args.push_back(weight);
  if (p.weightAndBias && p.direction == 14)
    args.push_back(bias);
  args.push_back({"mean", s.stat, ElementType::F32});
  args.push_back({"rstd", s.stat, ElementType::F32});
  return args;
}

std::vector<TensorSpec> getLayerNormResults(const MIOpenLayerNormProblem &p) {
  ElementType t = getElementType(p.dataType);
  LayerNormShapes s = getShapes(p);
  if (p.direction == 1)
    return {{"y", s.x, t},
            {"mean", s.stat, ElementType::F32},
            {"rstd", s.stat, ElementType::F32}};
  std::vector<TensorSpec> results;
  if (p.direction & 2)
    results.push_back({"dx", s.x, t});
  if (p.direction == 4 || (p.direction == 14 && p.weightAndBias))
    results.push_back({"dweight", s.param, t});
  if (p.direction == 8 || (p.direction == 14 && p.weightAndBias))
    results.push_back({"dbias", s.param, t});
  return results;
}

/// Finds the argument named `name`, or null.
const Tensor *findArgument(const std::vector<TensorSpec> &specs,
                           const std::vector<Tensor> &args, StringRef name) {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == name)
      return &args[i];
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Reference computations
//===----------------------------------------------------------------------===//

/// The reference's view of the problem: sizes from the parse, layouts as
/// the command spells them (the reference parses them itself).
LogicalResult getRefConvProblem(const MIOpenConvProblem &p,
                                ref::ConvProblem &rp, std::string &error) {
  const ConvGeometry &g = p.geometry;
  rp.spatialRank = static_cast<int>(g.spatialRank);
  rp.batch = g.batch;
  rp.inChannels = g.inChannels;
  rp.outChannels = g.outChannels;
  rp.groups = g.groups;
  rp.inSpatial = toVector(g.inSpatial);
  rp.filterSpatial = toVector(g.filterSpatial);
  rp.strides = toVector(g.strides);
  rp.dilations = toVector(g.dilations);
  rp.padLow = toVector(g.padLow);
  rp.padHigh = toVector(g.padHigh);
  rp.inputLayout = p.inputLayout;
  rp.filterLayout = p.filterLayout;
  rp.outputLayout = p.outputLayout;
  if (!rp.validate(error)) {
    error = "the reference rejects the convolution: " + error;
    return failure();
  }
  // The importer and the reference lay out the tensors independently.
  auto check = [&](const char *what, const std::vector<int64_t> &refShape,
                   ArrayRef<int64_t> importShape) {
    if (refShape == toVector(importShape))
      return true;
    error = std::string("the reference and the importer disagree on the ") +
            what + " shape: " + formatShape(refShape) + " vs " +
            formatShape(toVector(importShape));
    return false;
  };
  if (!check("input", rp.inputShape(), g.inputShape()) ||
      !check("filter", rp.filterShape(), g.filterShape()) ||
      !check("output", rp.outputShape(), g.outputShape()))
    return failure();
  return success();
}

LogicalResult computeConv(const MIOpenConvProblem &p,
                          const std::vector<Tensor> &args,
                          std::vector<Tensor> &results, std::string &error) {
  ref::ConvProblem rp;
  if (failed(getRefConvProblem(p, rp, error)))
    return failure();
  if (p.direction == 1) {
    results.push_back(
        ref::convForward(rp, args[0], args[1], p.bias ? &args[2] : nullptr));
    return success();
  }
  const Tensor &gradOutput = args[0];
  if (p.direction & 2)
    results.push_back(ref::convBackwardData(rp, gradOutput, args.back()));
  if (p.direction & 4)
    results.push_back(ref::convBackwardWeight(rp, gradOutput, args[1]));
  if (p.bias) {
    std::vector<int> perm;
    if (!ref::parseLayout(rp.outputLayout, ref::LayoutRole::Activation,
                          rp.spatialRank, perm, error))
      return failure();
    results.push_back(ref::convBackwardBias(gradOutput, perm[1]));
  }
  return success();
}

void computeLayerNorm(const MIOpenLayerNormProblem &p,
                      const std::vector<TensorSpec> &specs,
                      const std::vector<Tensor> &args,
                      std::vector<Tensor> &results) {
  int normalizedRank = static_cast<int>(p.getNormalizedRank());
  const Tensor *weight = findArgument(specs, args, "weight");
  if (p.direction == 1) {
    ref::LayerNormResult r =
        ref::layerNormForward(args[0], normalizedRank, weight,
                              findArgument(specs, args, "bias"), p.epsilon);
    results = {r.y, r.mean, r.rstd};
    return;
  }
  // The backward reads weight only for dx (-F 2 and 14 with -m 1).
  if (!hasWeightArgument(p))
    weight = nullptr;
  ref::LayerNormGrads g;
  if (p.direction == 8) {
    // dbias sums dy over the rows; x and the statistics do not enter.
    LayerNormShapes s = getShapes(p);
    g = ref::layerNormBackward(args[0], Tensor(s.x), Tensor(s.stat),
                               Tensor(s.stat, 1.0), nullptr, normalizedRank);
  } else {
    g = ref::layerNormBackward(args[0], args[1], args[args.size() - 2],
                               args.back(), weight, normalizedRank);
  }
  for (const TensorSpec &spec : getLayerNormResults(p))
    results.push_back(spec.name == "dx"        ? g.dx
                      : spec.name == "dweight" ? g.dweight
                                               : g.dbias);
}

/// Empty if `t` has the shape and type of `spec` (and the bytes for them),
/// else what is wrong.
std::string describeMismatch(const TensorSpec &spec, const HostTensor &t) {
  if (t.shape == spec.shape && t.type == spec.type &&
      static_cast<int64_t>(t.data.size()) ==
          t.numElements() * getElementSize(t.type))
    return "";
  return "expected " + formatTensorType(spec.shape, spec.type) + ", got " +
         t.getTypeString() + " (" + std::to_string(t.data.size()) + " bytes)";
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Whether every coordinate of row-major `index` lies in the leading half
/// (rounded up) of its dim.
bool isInBlock(const std::vector<int64_t> &shape, int64_t index) {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (index % shape[d] >= (shape[d] + 1) / 2)
      return false;
    index /= shape[d];
  }
  return true;
}

} // namespace

std::vector<TensorSpec>
mlir::boo::driver::getArgumentSpecs(const MIOpenProblem &problem) {
  if (auto *conv = std::get_if<MIOpenConvProblem>(&problem))
    return getConvArguments(*conv);
  return getLayerNormArguments(std::get<MIOpenLayerNormProblem>(problem));
}

std::vector<TensorSpec>
mlir::boo::driver::getResultSpecs(const MIOpenProblem &problem) {
  if (auto *conv = std::get_if<MIOpenConvProblem>(&problem))
    return getConvResults(*conv);
  return getLayerNormResults(std::get<MIOpenLayerNormProblem>(problem));
}

LogicalResult mlir::boo::driver::makeInputs(const MIOpenProblem &problem,
                                            InputFill fill, uint64_t seed,
                                            double splatValue,
                                            std::vector<HostTensor> &inputs,
                                            std::string &error) {
  std::vector<TensorSpec> specs = getArgumentSpecs(problem);
  inputs.clear();
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorSpec &spec = specs[i];
    DType type = *toRefType(spec.type);
    HostTensor t = HostTensor::zeros(spec.shape, spec.type);
    int64_t n = t.numElements();
    switch (fill) {
    case InputFill::Random: {
      std::mt19937_64 rng(splitMix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull));
      for (int64_t j = 0; j < n; ++j) {
        // 53 random bits: uniform in [0, 1), the same on every platform
        // (std::uniform_real_distribution is not).
        double unit = static_cast<double>(rng() >> 11) * 0x1p-53;
        writeElement(t, type, j, 2 * unit - 1);
      }
      break;
    }
    case InputFill::Splat:
      if (!std::isfinite(ref::roundTo(splatValue, type))) {
        error = "splat value " + formatDouble(splatValue) +
                " is not finite in " + ref::dtypeName(type);
        return failure();
      }
      for (int64_t j = 0; j < n; ++j)
        writeElement(t, type, j, splatValue);
      break;
    case InputFill::Structured:
      for (int64_t j = 0; j < n; ++j)
        writeElement(t, type, j, isInBlock(spec.shape, j) ? 1.0 : 0.0);
      break;
    }
    inputs.push_back(std::move(t));
  }

  // A layer-norm backward reads the statistics of its x, as a forward run
  // has stored them (f32).
  auto *norm = std::get_if<MIOpenLayerNormProblem>(&problem);
  if (!norm || norm->direction == 1 || norm->direction == 8)
    return success();
  ref::LayerNormResult fwd = ref::layerNormForward(
      decodeTensor(inputs[1]), static_cast<int>(norm->getNormalizedRank()),
      nullptr, nullptr, norm->epsilon);
  HostTensor &mean = inputs[inputs.size() - 2], &rstd = inputs.back();
  for (int64_t j = 0; j < fwd.mean.size(); ++j) {
    writeElement(mean, DType::F32, j, fwd.mean.data[j]);
    writeElement(rstd, DType::F32, j, fwd.rstd.data[j]);
  }
  return success();
}

LogicalResult mlir::boo::driver::computeReference(
    const MIOpenProblem &problem, const std::vector<HostTensor> &inputs,
    std::vector<Tensor> &results, std::string &error) {
  std::vector<TensorSpec> specs = getArgumentSpecs(problem);
  if (inputs.size() != specs.size()) {
    error = "expected " + std::to_string(specs.size()) + " inputs, got " +
            std::to_string(inputs.size());
    return failure();
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    std::string mismatch = describeMismatch(specs[i], inputs[i]);
    if (!mismatch.empty()) {
      error = "input " + std::to_string(i) + " (" + specs[i].name +
              "): " + mismatch;
      return failure();
    }
  }
  std::vector<Tensor> args;
  for (const HostTensor &t : inputs)
    args.push_back(decodeTensor(t));
  results.clear();
  if (auto *conv = std::get_if<MIOpenConvProblem>(&problem)) {
    if (failed(computeConv(*conv, args, results, error)))
      return failure();
  } else {
    computeLayerNorm(std::get<MIOpenLayerNormProblem>(problem), specs, args,
                     results);
  }
  std::vector<TensorSpec> resultSpecs = getResultSpecs(problem);
  for (size_t i = 0; i < results.size(); ++i)
    if (i >= resultSpecs.size() || results[i].shape != resultSpecs[i].shape) {
      error = "internal error: reference result " + std::to_string(i) +
              " does not match the function's results";
      return failure();
    }
  return success();
}

int64_t mlir::boo::driver::getReductionLength(const MIOpenProblem &problem,
                                              unsigned resultIndex) {
  std::vector<TensorSpec> specs = getResultSpecs(problem);
  if (resultIndex >= specs.size())
    return 0;
  const std::string &name = specs[resultIndex].name;
  if (auto *norm = std::get_if<MIOpenLayerNormProblem>(&problem)) {
    LayerNormShapes s = getShapes(*norm);
    return name == "dweight" || name == "dbias" ? s.rows : s.rowSize;
  }
  const auto &p = std::get<MIOpenConvProblem>(problem);
  const ConvGeometry &g = p.geometry;
  int64_t filterSize = ref::product(toVector(g.filterSpatial));
  if (name == "output")
    return g.inChannelsPerGroup() * filterSize + (p.bias ? 1 : 0);
  if (name == "grad_input")
    return g.outChannelsPerGroup() * filterSize;
  // grad_filter and grad_bias sum over the batch and the output positions.
  return g.batch * ref::product(toVector(g.outSpatial));
}

//===----------------------------------------------------------------------===//
// Statistical checks
//===----------------------------------------------------------------------===//

namespace {

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

void checkOneResult(const TensorSpec &spec, int64_t reductionLength,
                    int64_t extraRoundings, const HostTensor &actual,
                    const Tensor &expected, std::vector<CheckResult> &checks) {
  DType type = *toRefType(spec.type);
  double u = ref::unitRoundoff(type);
  std::vector<double> errors;
  double sumExpected2 = 0, sumRounding = 0;
  int64_t nonFinite = 0, firstNonFinite = -1, overflows = 0;
  double firstNonFiniteValue = 0;
  for (int64_t i = 0; i < expected.size(); ++i) {
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
                      " expected values overflow " + ref::dtypeName(type) +
                      " and are not compared";
  checks.push_back(finite);

  int64_t n = static_cast<int64_t>(errors.size());
  std::string samples = samplesNote(n);
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
  double accumulationRel2 =
      static_cast<double>(reductionLength + extraRoundings) * kU32 * kU32 / 3;
  double sigma = std::sqrt(roundingRel2 + accumulationRel2);
  auto inU = [&](double v) { return " (" + formatDouble(v / u) + " u)"; };

  bias.measured = std::fabs(mean) / scale;
  bias.limit = 4 * sigma / std::sqrt(static_cast<double>(n)) + 4 * kU32;
  bias.passed = bias.measured <= bias.limit;
  bias.details =
      "mean(error) / rms(expected) = " + formatDouble(mean / scale, "%.2e") +
      inU(mean / scale) + ", limit " + formatDouble(bias.limit, "%.2e") +
      inU(bias.limit) + "; u = " + formatDouble(u, "%.2e") + " (" +
      ref::dtypeName(type) + "); " + samples + scaleNote;

  stddev.measured = std::sqrt(variance) / scale;
  stddev.limit = (1.5 + 3 / std::sqrt(static_cast<double>(n))) * sigma;
  stddev.passed = stddev.measured <= stddev.limit;
  stddev.details =
      "stddev(error) / rms(expected) = " +
      formatDouble(stddev.measured, "%.2e") + inU(stddev.measured) +
      ", limit " + formatDouble(stddev.limit, "%.2e") + inU(stddev.limit) +
      " from rounding to " + ref::dtypeName(type) + " " +
      formatDouble(std::sqrt(roundingRel2), "%.2e") +
      " and f32 accumulation over K = " + std::to_string(reductionLength) +
      " terms " + formatDouble(std::sqrt(accumulationRel2), "%.2e") + "; " +
      samples + scaleNote;
  checks.push_back(bias);
  checks.push_back(stddev);
}

} // namespace

std::vector<CheckResult>
mlir::boo::driver::checkStatistics(const MIOpenProblem &problem,
                                   const std::vector<HostTensor> &actual,
                                   const std::vector<Tensor> &expected) {
  std::vector<TensorSpec> specs = getResultSpecs(problem);
  std::vector<CheckResult> checks = checkResultShapes(specs, actual, expected);
  if (!checks.empty())
    return checks;
  int64_t extraRoundings = std::holds_alternative<MIOpenConvProblem>(problem)
                               ? kConvExtraRoundings
                               : kLayerNormExtraRoundings;
  for (size_t r = 0; r < specs.size(); ++r)
    checkOneResult(specs[r], getReductionLength(problem, r), extraRoundings,
                   actual[r], expected[r], checks);
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
  for (const TensorSpec &spec : getLayerNormResults(p))
    bounds.push_back(spec.name == "y"         ? y
                     : spec.name == "mean"    ? mean
                     : spec.name == "rstd"    ? rstd
                     : spec.name == "dx"      ? dx
                     : spec.name == "dweight" ? dweight
                                              : dbias);
  return bounds;
}

} // namespace

CheckResult
mlir::boo::driver::checkStructured(const MIOpenProblem &problem,
                                   const std::vector<HostTensor> &actual,
                                   const std::vector<Tensor> &expected) {
  std::vector<TensorSpec> specs = getResultSpecs(problem);
  bool isConv = std::holds_alternative<MIOpenConvProblem>(problem);
  CheckResult check;
  check.name = isConv ? "structured: exact" : "structured: within 1 ulp";
  std::vector<CheckResult> shapes = checkResultShapes(specs, actual, expected);
  if (!shapes.empty()) {
    check.details = shapes[0].name + ": " + shapes[0].details;
    return check;
  }

  // Layer norms: the f32 error bounds on the structured inputs.
  std::vector<Tensor> errorBounds;
  if (!isConv) {
    std::vector<HostTensor> inputs;
    std::string error;
    if (failed(
            makeInputs(problem, InputFill::Structured, 0, 0, inputs, error))) {
      check.details = error;
      return check;
    }
    std::vector<TensorSpec> argSpecs = getArgumentSpecs(problem);
    std::vector<Tensor> args;
    for (const HostTensor &t : inputs)
      args.push_back(decodeTensor(t));
    errorBounds = getLayerNormErrorBounds(
        std::get<MIOpenLayerNormProblem>(problem), argSpecs, args);
  }

  int64_t mismatches = 0, total = 0;
  std::string first, perResult;
  for (size_t r = 0; r < specs.size(); ++r) {
    DType type = *toRefType(specs[r].type);
    int64_t k = getReductionLength(problem, r);
    int64_t resultMismatches = 0;
    for (int64_t i = 0; i < expected[r].size(); ++i) {
      double e = expected[r].data[i];
      double a = readElement(actual[r], type, i);
      // Convolutions: exactly the rounded sum of ones while f32 sums them
      // exactly (up to 2^24), else within that accumulation's bound.
      double target = e, tolerance = 0;
      if (isConv && std::fabs(e) <= 0x1p24)
        target = ref::roundTo(e, type);
      else if (isConv)
        tolerance = ulpOf(e, type) + k * kU32 * std::fabs(e);
      else
        tolerance = ulpOf(e, type) + errorBounds[r].data[i];
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
    total += expected[r].size();
    perResult += (r ? ", " : "") + specs[r].name + " " +
                 std::to_string(resultMismatches) + "/" +
                 std::to_string(expected[r].size());
  }
  check.passed = mismatches == 0;
  check.measured = static_cast<double>(mismatches);
  check.details = std::to_string(mismatches) + " of " + std::to_string(total) +
                  " elements differ (" + perResult + ")";
  if (mismatches)
    check.details += "; first " + first;
  return check;
}

double mlir::boo::driver::getMaxRelativeError(
    const std::vector<HostTensor> &actual, const std::vector<Tensor> &expected) {
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

ElementType mlir::boo::driver::getElementType(MIOpenDataType type) {
  switch (type) {
  case MIOpenDataType::F16:
    return ElementType::F16;
  case MIOpenDataType::BF16:
    return ElementType::BF16;
  case MIOpenDataType::F32:
    return ElementType::F32;
  }
  return ElementType::F32;
}
