//===- Reference.cpp - Independent numerics reference ---------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Reference/Reference.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>

namespace boo::ref {

/// Misuse of the reference is a bug in the test that calls it. Tests are
/// built without exceptions and with NDEBUG, so report and abort.
[[noreturn]] static void fatal(const std::string &message) {
  std::fprintf(stderr, "boo::ref: %s\n", message.c_str());
  std::abort();
}

//===----------------------------------------------------------------------===//
// Tensors and storage types
//===----------------------------------------------------------------------===//

int64_t product(const std::vector<int64_t> &values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}

Tensor::Tensor(std::vector<int64_t> shape, double fill)
    : shape(std::move(shape)) {
  data.assign(product(this->shape), fill);
}

/// Significand bits (including the implicit one) and the exponent of the
/// smallest normal number.
namespace {
struct FloatFormat {
  int precision;
  int minExponent;
  int maxExponent;
};
} // namespace

static FloatFormat getFormat(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return {24, -126, 127};
  case ElementType::F16:
    return {11, -14, 15};
  case ElementType::BF16:
    return {8, -126, 127};
  case ElementType::F64:
    return {53, -1022, 1023};
  case ElementType::I32:
  case ElementType::I8:
  case ElementType::I64:
    break;
  }
  assert(false && "the reference's storage types are float types");
  return {24, -126, 127};
}

double unitRoundoff(ElementType type) {
  return std::ldexp(1.0, -getFormat(type).precision);
}

double subnormalHalfSpacing(ElementType type) {
  FloatFormat f = getFormat(type);
  return std::ldexp(1.0, f.minExponent - (f.precision - 1) - 1);
}

double roundTo(double v, ElementType type) {
  if (!std::isfinite(v) || v == 0.0)
    return v;
  FloatFormat f = getFormat(type);
  int exp;
  std::frexp(v, &exp); // v = m * 2^exp, 0.5 <= |m| < 1
  int leading = std::max(exp - 1, f.minExponent);
  // Spacing of representable values around v (subnormals share the spacing
  // of the smallest binade).
  int quantumExp = leading - (f.precision - 1);
  // Scaling by a power of two is exact, and nearbyint rounds to nearest,
  // ties to even, in the default rounding mode: one rounding in all.
  double r = std::ldexp(std::nearbyint(std::ldexp(v, -quantumExp)), quantumExp);
  double maxFinite =
      std::ldexp(2.0 - std::ldexp(1.0, -(f.precision - 1)), f.maxExponent);
  if (std::fabs(r) > maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), v);
  return r;
}

uint64_t encode(double v, ElementType type) {
  assert(isFloatType(type) && "encode takes float types");
  if (type == ElementType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return bits;
  }
  if (type == ElementType::F32 || type == ElementType::BF16) {
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return type == ElementType::F32 ? bits : bits >> 16;
  }
  // f16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits.
  uint32_t sign = std::signbit(v) ? 0x8000u : 0u;
  double a = std::fabs(v);
  if (std::isnan(a))
    return 0x7E00u;
  if (std::isinf(a))
    return sign | 0x7C00u;
  if (a == 0.0)
    return sign;
  int exp;
  std::frexp(a, &exp);
  int leading = exp - 1;
  if (leading < -14) // subnormal: a = mantissa * 2^-24
    return sign | static_cast<uint32_t>(std::ldexp(a, 24));
  uint32_t mantissa =
      static_cast<uint32_t>(std::ldexp(a, 10 - leading)) - 0x400u;
  return sign | (static_cast<uint32_t>(leading + 15) << 10) | mantissa;
}

double decode(uint64_t bits, ElementType type) {
  assert(isFloatType(type) && "decode takes float types");
  if (type == ElementType::F64) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  if (type == ElementType::F32 || type == ElementType::BF16) {
    auto b = static_cast<uint32_t>(type == ElementType::F32 ? bits
                                                             : bits << 16);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  double sign = (bits & 0x8000u) ? -1.0 : 1.0;
  int e = (bits >> 10) & 0x1F;
  int m = bits & 0x3FF;
  if (e == 0x1F)
    return m ? std::numeric_limits<double>::quiet_NaN()
             : sign * std::numeric_limits<double>::infinity();
  if (e == 0)
    return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

bool parseLayout(const std::string &layout, LayoutRole role, int spatialRank,
                 std::vector<int> &perm, std::string &error) {
  if (spatialRank < 1 || spatialRank > 3) {
    error = "spatial rank must be 1, 2 or 3";
    return false;
  }
  int rank = spatialRank + 2;
  if (static_cast<int>(layout.size()) != rank) {
    error = "layout '" + layout + "' must have " + std::to_string(rank) +
            " letters";
    return false;
  }
  // The letters naming each canonical dim. Spatial dims are the trailing
  // `spatialRank` of (D, H, W) for activations and of (Z, Y, X) -- also
  // spelled (D, H, W) -- for filters.
  const char *activationSpatial = "DHW";
  const char *filterSpatial = "ZYX";
  std::vector<std::string> names(rank);
  if (role == LayoutRole::Activation) {
    names[0] = "N";
    names[1] = "C";
    for (int i = 0; i < spatialRank; ++i)
      names[2 + i] = std::string(1, activationSpatial[3 - spatialRank + i]);
  } else {
    names[0] = "KFN";
    names[1] = "C";
    for (int i = 0; i < spatialRank; ++i)
      names[2 + i] = std::string(1, filterSpatial[3 - spatialRank + i]) +
                     activationSpatial[3 - spatialRank + i];
  }
  perm.assign(rank, -1);
  for (int pos = 0; pos < rank; ++pos) {
    char letter = layout[pos];
    int dim = -1;
    for (int i = 0; i < rank; ++i)
      if (names[i].find(letter) != std::string::npos)
        dim = i;
    if (dim < 0) {
      error = std::string("layout '") + layout + "': unexpected letter '" +
              letter + "'";
      return false;
    }
    if (perm[dim] >= 0) {
      error = "layout '" + layout + "' names a dim twice";
      return false;
    }
    perm[dim] = pos;
  }
  return true;
}

std::string defaultLayout(LayoutRole role, int spatialRank) {
  std::string spatial = std::string("DHW").substr(3 - spatialRank);
  if (role == LayoutRole::Filter)
    spatial = std::string("ZYX").substr(3 - spatialRank);
  return (role == LayoutRole::Activation ? "NC" : "KC") + spatial;
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

ConvProblem ConvProblem::withDefaults(int spatialRank) {
  ConvProblem p;
  p.spatialRank = spatialRank;
  p.inSpatial.assign(spatialRank, 1);
  p.filterSpatial.assign(spatialRank, 1);
  p.strides.assign(spatialRank, 1);
  p.dilations.assign(spatialRank, 1);
  p.padLow.assign(spatialRank, 0);
  p.padHigh.assign(spatialRank, 0);
  p.inputLayout = defaultLayout(LayoutRole::Activation, spatialRank);
  p.filterLayout = defaultLayout(LayoutRole::Filter, spatialRank);
  p.outputLayout = p.inputLayout;
  return p;
}

std::vector<int64_t> ConvProblem::outSpatial() const {
  std::vector<int64_t> out(spatialRank);
  for (int i = 0; i < spatialRank; ++i) {
    int64_t span = inSpatial[i] + padLow[i] + padHigh[i] -
                   dilations[i] * (filterSpatial[i] - 1) - 1;
    // Floor division; a negative span means an empty output.
    out[i] = span < 0 ? 0 : span / strides[i] + 1;
  }
  return out;
}

/// Lays out canonical extents (lead0, lead1, spatial...) by `layout`.
static std::vector<int64_t> permuteShape(const std::string &layout,
                                         LayoutRole role, int spatialRank,
                                         int64_t lead0, int64_t lead1,
                                         const std::vector<int64_t> &spatial) {
  std::vector<int> perm;
  std::string error;
  if (!parseLayout(layout, role, spatialRank, perm, error))
    fatal(error + " (call ConvProblem::validate first)");
  std::vector<int64_t> canonical = {lead0, lead1};
  canonical.insert(canonical.end(), spatial.begin(), spatial.end());
  std::vector<int64_t> shape(canonical.size());
  for (size_t i = 0; i < canonical.size(); ++i)
    shape[perm[i]] = canonical[i];
  return shape;
}

std::vector<int64_t> ConvProblem::inputShape() const {
  return permuteShape(inputLayout, LayoutRole::Activation, spatialRank, batch,
                      inChannels, inSpatial);
}

std::vector<int64_t> ConvProblem::filterShape() const {
  return permuteShape(filterLayout, LayoutRole::Filter, spatialRank,
                      outChannels, inChannels / groups, filterSpatial);
}

std::vector<int64_t> ConvProblem::outputShape() const {
  return permuteShape(outputLayout, LayoutRole::Activation, spatialRank, batch,
                      outChannels, outSpatial());
}

bool ConvProblem::validate(std::string &error) const {
  size_t r = spatialRank;
  if (spatialRank < 1 || spatialRank > 3) {
    error = "spatial rank must be 1..3";
    return false;
  }
  for (const auto *v :
       {&inSpatial, &filterSpatial, &strides, &dilations, &padLow, &padHigh})
    if (v->size() != r) {
      error = "every spatial vector must have spatialRank entries";
      return false;
    }
  if (batch < 1 || inChannels < 1 || outChannels < 1 || groups < 1) {
    error = "sizes must be positive";
    return false;
  }
  if (inChannels % groups || outChannels % groups) {
    error = "channels must be divisible by groups";
    return false;
  }
  for (size_t i = 0; i < r; ++i)
    if (inSpatial[i] < 1 || filterSpatial[i] < 1 || strides[i] < 1 ||
        dilations[i] < 1 || padLow[i] < 0 || padHigh[i] < 0) {
      error = "bad spatial size, stride, dilation or padding";
      return false;
    }
  std::vector<int> perm;
  if (!parseLayout(inputLayout, LayoutRole::Activation, spatialRank, perm,
                   error) ||
      !parseLayout(filterLayout, LayoutRole::Filter, spatialRank, perm,
                   error) ||
      !parseLayout(outputLayout, LayoutRole::Activation, spatialRank, perm,
                   error))
    return false;
  for (int64_t o : outSpatial())
    if (o < 1) {
      error = "empty output";
      return false;
    }
  return true;
}

static std::string join(const std::vector<int64_t> &v, const char *sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

std::string ConvProblem::describe() const {
  std::ostringstream os;
  os << spatialRank << "-D N=" << batch << " C=" << inChannels
     << " K=" << outChannels << " G=" << groups
     << " in=" << join(inSpatial, "x") << " fil=" << join(filterSpatial, "x")
     << " stride=" << join(strides, ",") << " dil=" << join(dilations, ",")
     << " padLow=" << join(padLow, ",") << " padHigh=" << join(padHigh, ",")
     << " layouts=" << inputLayout << "/" << filterLayout << "/"
     << outputLayout;
  return os.str();
}

namespace {
/// Maps canonical indices (lead0, lead1, spatial...) of a tensor stored in
/// some layout to linear offsets.
class Indexer {
public:
  Indexer(const std::string &layout, LayoutRole role, int spatialRank,
          const std::vector<int64_t> &shape) {
    std::vector<int> perm;
    std::string error;
    if (!parseLayout(layout, role, spatialRank, perm, error))
      fatal(error + " (call ConvProblem::validate first)");
    std::vector<int64_t> rowMajor(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
      rowMajor[i] = rowMajor[i + 1] * shape[i + 1];
    canonicalStride.resize(shape.size());
    for (size_t i = 0; i < shape.size(); ++i)
      canonicalStride[i] = rowMajor[perm[i]];
  }

  int64_t offset(int64_t lead0, int64_t lead1,
                 const std::vector<int64_t> &spatial) const {
    int64_t off = lead0 * canonicalStride[0] + lead1 * canonicalStride[1];
    for (size_t i = 0; i < spatial.size(); ++i)
      off += spatial[i] * canonicalStride[2 + i];
    return off;
  }

  /// The offset step of canonical dim `dim` (1: the channel dim).
  int64_t stride(int dim) const { return canonicalStride[dim]; }

private:
  std::vector<int64_t> canonicalStride;
};
} // namespace

/// Advances the multi-index `idx` within `extent` (last dim fastest).
/// Returns false after the last index.
static bool next(std::vector<int64_t> &idx,
                 const std::vector<int64_t> &extent) {
  for (int i = static_cast<int>(idx.size()) - 1; i >= 0; --i) {
    if (++idx[i] < extent[i])
      return true;
    idx[i] = 0;
  }
  return false;
}

static void checkShape(const Tensor &t, const std::vector<int64_t> &shape,
                       const char *what) {
  if (t.shape != shape)
    fatal(std::string(what) + " has the wrong shape (" + join(t.shape, "x") +
          ", expected " + join(shape, "x") + ")");
}

Tensor convForward(const ConvProblem &p, const Tensor &input,
                   const Tensor &filter, const Tensor *bias) {
  checkShape(input, p.inputShape(), "input");
  checkShape(filter, p.filterShape(), "filter");
  if (bias)
    checkShape(*bias, {p.outChannels}, "bias");
  Tensor output(p.outputShape());
  Indexer inIdx(p.inputLayout, LayoutRole::Activation, p.spatialRank,
                input.shape);
  Indexer filIdx(p.filterLayout, LayoutRole::Filter, p.spatialRank,
                 filter.shape);
  Indexer outIdx(p.outputLayout, LayoutRole::Activation, p.spatialRank,
                 output.shape);
  int64_t cPerG = p.inChannels / p.groups, kPerG = p.outChannels / p.groups;
  std::vector<int64_t> outSpatial = p.outSpatial();
  std::vector<int64_t> in(p.spatialRank), o(p.spatialRank),
      f(p.spatialRank);
  // The channel loop is innermost, over a fixed spatial position: the sum
  // is the same set of terms, in another order (exact enough in double).
  int64_t inC = inIdx.stride(1), filC = filIdx.stride(1);
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t g = 0; g < p.groups; ++g)
      for (int64_t kk = 0; kk < kPerG; ++kk) {
        int64_t k = g * kPerG + kk;
        std::fill(o.begin(), o.end(), 0);
        do {
          double acc = bias ? bias->data[k] : 0.0;
          std::fill(f.begin(), f.end(), 0);
          do {
            bool inside = true;
            for (int d = 0; d < p.spatialRank; ++d) {
              in[d] =
                  o[d] * p.strides[d] + f[d] * p.dilations[d] - p.padLow[d];
              inside &= in[d] >= 0 && in[d] < p.inSpatial[d];
            }
            if (!inside)
              continue;
            const double *x = &input.data[inIdx.offset(n, g * cPerG, in)];
            const double *w = &filter.data[filIdx.offset(k, 0, f)];
            for (int64_t c = 0; c < cPerG; ++c)
              acc += x[c * inC] * w[c * filC];
          } while (next(f, p.filterSpatial));
          output.data[outIdx.offset(n, k, o)] = acc;
        } while (next(o, outSpatial));
      }
  return output;
}

/// Calls `term(outOffset, inOffset, filterOffset)` for every product
/// `in[inOffset] * filter[filterOffset]` that convForward adds into
/// `out[outOffset]`. Both backward ops are defined by this enumeration.
template <typename Term>
static void forEachConvTerm(const ConvProblem &p, const Term &term) {
  Indexer inIdx(p.inputLayout, LayoutRole::Activation, p.spatialRank,
                p.inputShape());
  Indexer filIdx(p.filterLayout, LayoutRole::Filter, p.spatialRank,
                 p.filterShape());
  Indexer outIdx(p.outputLayout, LayoutRole::Activation, p.spatialRank,
                 p.outputShape());
  int64_t cPerG = p.inChannels / p.groups, kPerG = p.outChannels / p.groups;
  std::vector<int64_t> outSpatial = p.outSpatial();
  std::vector<int64_t> in(p.spatialRank);
  std::vector<int64_t> o(p.spatialRank), f(p.spatialRank);
  int64_t inC = inIdx.stride(1), filC = filIdx.stride(1);
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t k = 0; k < p.outChannels; ++k) {
      int64_t g = k / kPerG;
      std::fill(o.begin(), o.end(), 0);
      do {
        int64_t outOff = outIdx.offset(n, k, o);
        std::fill(f.begin(), f.end(), 0);
        do {
          bool inside = true;
          for (int d = 0; d < p.spatialRank; ++d) {
            in[d] = o[d] * p.strides[d] + f[d] * p.dilations[d] - p.padLow[d];
            inside &= in[d] >= 0 && in[d] < p.inSpatial[d];
          }
          if (!inside)
            continue;
          int64_t inOff = inIdx.offset(n, g * cPerG, in);
          int64_t filOff = filIdx.offset(k, 0, f);
          for (int64_t c = 0; c < cPerG; ++c)
            term(outOff, inOff + c * inC, filOff + c * filC);
        } while (next(f, p.filterSpatial));
      } while (next(o, outSpatial));
    }
}

Tensor convBackwardData(const ConvProblem &p, const Tensor &gradOutput,
                        const Tensor &filter) {
  checkShape(gradOutput, p.outputShape(), "grad_output");
  checkShape(filter, p.filterShape(), "filter");
  Tensor gradInput(p.inputShape());
  forEachConvTerm(p, [&](int64_t out, int64_t in, int64_t fil) {
    gradInput.data[in] += gradOutput.data[out] * filter.data[fil];
  });
  return gradInput;
}

Tensor convBackwardWeight(const ConvProblem &p, const Tensor &gradOutput,
                          const Tensor &input) {
  checkShape(gradOutput, p.outputShape(), "grad_output");
  checkShape(input, p.inputShape(), "input");
  Tensor gradFilter(p.filterShape());
  forEachConvTerm(p, [&](int64_t out, int64_t in, int64_t fil) {
    gradFilter.data[fil] += gradOutput.data[out] * input.data[in];
  });
  return gradFilter;
}

Tensor convBackwardBias(const Tensor &gradOutput, int channelDim) {
  int rank = static_cast<int>(gradOutput.shape.size());
  if (channelDim < 0 || channelDim >= rank)
    fatal("channel dim out of range");
  Tensor gradBias({gradOutput.shape[channelDim]});
  std::vector<int64_t> idx(rank, 0);
  int64_t i = 0;
  do {
    gradBias.data[idx[channelDim]] += gradOutput.data[i++];
  } while (next(idx, gradOutput.shape));
  return gradBias;
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

Tensor matmul(const Tensor &lhs, const Tensor &rhs, bool transposeLhs,
              bool transposeRhs, double alpha, const Tensor *bias,
              double beta) {
  size_t rank = lhs.shape.size();
  if ((rank != 2 && rank != 3) || rhs.shape.size() != rank)
    fatal("matmul operands must both be 2-D or both 3-D");
  int64_t batch = rank == 3 ? lhs.shape[0] : 1;
  if (rank == 3 && rhs.shape[0] != batch)
    fatal("matmul batch mismatch");
  int64_t r0 = lhs.shape[rank - 2], r1 = lhs.shape[rank - 1];
  int64_t s0 = rhs.shape[rank - 2], s1 = rhs.shape[rank - 1];
  int64_t m = transposeLhs ? r1 : r0, k = transposeLhs ? r0 : r1;
  int64_t n = transposeRhs ? s0 : s1;
  if ((transposeRhs ? s1 : s0) != k)
    fatal("matmul K mismatch");
  std::vector<int64_t> shape = {m, n};
  if (rank == 3)
    shape.insert(shape.begin(), batch);
  Tensor out(shape);
  // Each output sums its K terms in order, l = 0, 1, ...; the loops run
  // over l before j so that a row of B is read along its length.
  std::vector<double> sums(n);
  for (int64_t b = 0; b < batch; ++b) {
    const double *a = lhs.data.data() + b * m * k;
    const double *w = rhs.data.data() + b * k * n;
    for (int64_t i = 0; i < m; ++i) {
      std::fill(sums.begin(), sums.end(), 0.0);
      for (int64_t l = 0; l < k; ++l) {
        double x = transposeLhs ? a[l * m + i] : a[i * k + l];
        for (int64_t j = 0; j < n; ++j)
          sums[j] += x * (transposeRhs ? w[j * k + l] : w[l * n + j]);
      }
      for (int64_t j = 0; j < n; ++j)
        out.data[(b * m + i) * n + j] = alpha * sums[j];
    }
  }
  if (!bias)
    return out;
  // NumPy broadcasting: the bias's dims align with the result's last ones.
  size_t biasRank = bias->shape.size();
  if (biasRank > rank)
    fatal("matmul bias has a higher rank than the result");
  std::vector<int64_t> idx(rank, 0);
  int64_t i = 0;
  do {
    int64_t flat = 0;
    for (size_t d = 0; d < biasRank; ++d) {
      int64_t size = bias->shape[d];
      int64_t at = idx[rank - biasRank + d];
      if (size != 1 && size != shape[rank - biasRank + d])
        fatal("matmul bias does not broadcast to the result");
      flat = flat * size + (size == 1 ? 0 : at);
    }
    out.data[i++] += beta * bias->data[flat];
  } while (next(idx, shape));
  return out;
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

namespace {
/// A tensor viewed as rows x (normalized elements).
struct RowSplit {
  std::vector<int64_t> outerShape, innerShape;
  int64_t rows, rowSize;
};
} // namespace

static RowSplit splitRows(const Tensor &x, int normalizedRank) {
  int rank = static_cast<int>(x.shape.size());
  if (normalizedRank < 1 || normalizedRank > rank)
    fatal("bad normalized rank");
  RowSplit s;
  s.outerShape.assign(x.shape.begin(), x.shape.end() - normalizedRank);
  s.innerShape.assign(x.shape.end() - normalizedRank, x.shape.end());
  s.rows = product(s.outerShape);
  s.rowSize = product(s.innerShape);
  return s;
}

LayerNormResult layerNormForward(const Tensor &x, int normalizedRank,
                                 const Tensor *weight, const Tensor *bias,
                                 double epsilon) {
  RowSplit s = splitRows(x, normalizedRank);
  if (weight)
    checkShape(*weight, s.innerShape, "weight");
  if (bias)
    checkShape(*bias, s.innerShape, "bias");
  LayerNormResult r{Tensor(x.shape), Tensor(s.outerShape),
                    Tensor(s.outerShape)};
  for (int64_t row = 0; row < s.rows; ++row) {
    const double *xr = &x.data[row * s.rowSize];
    double sum = 0;
    for (int64_t j = 0; j < s.rowSize; ++j)
      sum += xr[j];
    double mean = sum / s.rowSize;
    double sq = 0;
    for (int64_t j = 0; j < s.rowSize; ++j)
      sq += (xr[j] - mean) * (xr[j] - mean);
    double rstd = 1.0 / std::sqrt(sq / s.rowSize + epsilon);
    r.mean.data[row] = mean;
    r.rstd.data[row] = rstd;
    for (int64_t j = 0; j < s.rowSize; ++j) {
      double v = (xr[j] - mean) * rstd;
      if (weight)
        v *= weight->data[j];
      if (bias)
        v += bias->data[j];
      r.y.data[row * s.rowSize + j] = v;
    }
  }
  return r;
}

LayerNormGrads layerNormBackward(const Tensor &dy, const Tensor &x,
                                 const Tensor &mean, const Tensor &rstd,
                                 const Tensor *weight, int normalizedRank) {
  RowSplit s = splitRows(x, normalizedRank);
  checkShape(dy, x.shape, "dy");
  checkShape(mean, s.outerShape, "mean");
  checkShape(rstd, s.outerShape, "rstd");
  if (weight)
    checkShape(*weight, s.innerShape, "weight");
  LayerNormGrads r{Tensor(x.shape), Tensor(s.innerShape), Tensor(s.innerShape)};
  std::vector<double> xhat(s.rowSize), g(s.rowSize);
  for (int64_t row = 0; row < s.rows; ++row) {
    double m = mean.data[row], rs = rstd.data[row];
    double meanG = 0, meanGXhat = 0;
    for (int64_t j = 0; j < s.rowSize; ++j) {
      int64_t i = row * s.rowSize + j;
      xhat[j] = (x.data[i] - m) * rs;
      g[j] = dy.data[i] * (weight ? weight->data[j] : 1.0);
      meanG += g[j];
      meanGXhat += g[j] * xhat[j];
      r.dweight.data[j] += dy.data[i] * xhat[j];
      r.dbias.data[j] += dy.data[i];
    }
    meanG /= s.rowSize;
    meanGXhat /= s.rowSize;
    for (int64_t j = 0; j < s.rowSize; ++j)
      r.dx.data[row * s.rowSize + j] =
          rs * (g[j] - meanG - xhat[j] * meanGXhat);
  }
  return r;
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

const char *activationName(Activation kind) {
  switch (kind) {
  case Activation::Relu:
    return "relu";
  case Activation::Sigmoid:
    return "sigmoid";
  case Activation::Tanh:
    return "tanh";
  case Activation::Gelu:
    return "gelu";
  case Activation::GeluTanh:
    return "gelu_tanh";
  case Activation::Silu:
    return "silu";
  case Activation::LeakyRelu:
    return "leaky_relu";
  case Activation::Clamp:
    return "clamp";
  }
  return "?";
}

double applyActivation(Activation kind, double x, const ActivationParams &p) {
  const double pi = 3.14159265358979323846;
  switch (kind) {
  case Activation::Relu:
    return x > 0 ? x : 0.0;
  case Activation::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case Activation::Tanh:
    return std::tanh(x);
  case Activation::Gelu:
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  case Activation::GeluTanh:
    return 0.5 * x *
           (1.0 + std::tanh(std::sqrt(2.0 / pi) * (x + 0.044715 * x * x * x)));
  case Activation::Silu:
    return x / (1.0 + std::exp(-x));
  case Activation::LeakyRelu:
    return x >= 0 ? x : p.alpha * x;
  case Activation::Clamp:
    return std::min(std::max(x, p.min), p.max);
  }
  return x;
}

Tensor activation(Activation kind, const Tensor &x, const ActivationParams &p) {
  Tensor y(x.shape);
  for (int64_t i = 0; i < x.size(); ++i)
    y.data[i] = applyActivation(kind, x.data[i], p);
  return y;
}

Tensor binary(BinaryKind kind, const Tensor &lhs, const Tensor &rhs,
              int channelDim) {
  int rank = static_cast<int>(lhs.shape.size());
  if (channelDim < 0)
    checkShape(rhs, lhs.shape, "rhs");
  else if (channelDim >= rank)
    fatal("channel dim out of range");
  else
    checkShape(rhs, {lhs.shape[channelDim]}, "rhs");
  Tensor out(lhs.shape);
  std::vector<int64_t> idx(rank, 0);
  int64_t i = 0;
  do {
    double b = rhs.data[channelDim < 0 ? i : idx[channelDim]];
    out.data[i] = kind == BinaryKind::Add ? lhs.data[i] + b : lhs.data[i] * b;
    ++i;
  } while (rank > 0 && next(idx, lhs.shape));
  return out;
}

} // namespace boo::ref
