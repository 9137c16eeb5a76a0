//===- HostTensor.cpp - A dense tensor in host memory ---------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Runner/HostTensor.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir::boo;

std::string mlir::boo::formatTensorType(const std::vector<int64_t> &shape,
                                        ElementType type) {
  std::string result;
  for (int64_t dim : shape)
    result += std::to_string(dim) + "x";
  return result + getElementTypeName(type);
}

//===----------------------------------------------------------------------===//
// Scalar conversions
//===----------------------------------------------------------------------===//

/// Rounds `v` to the nearest value of a binary format with `expBits` exponent
/// bits and `mantBits` explicit mantissa bits (ties to even) and returns its
/// bit pattern. Works on the double's bits so that there is one rounding only.
static uint16_t roundToSmallFloat(double v, int expBits, int mantBits) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const uint16_t sign =
      static_cast<uint16_t>((bits >> 63) << (expBits + mantBits));
  const int64_t exp = static_cast<int64_t>((bits >> 52) & 0x7ff);
  const uint64_t mant = bits & ((uint64_t(1) << 52) - 1);
  const uint16_t infBits =
      static_cast<uint16_t>(((1u << expBits) - 1) << mantBits);

  if (exp == 0x7ff) {
    if (mant == 0)
      return sign | infBits;
    // Quiet NaN; keep the payload's top bits when they fit.
    uint16_t payload = static_cast<uint16_t>(mant >> (52 - mantBits));
    return sign | infBits | payload |
           static_cast<uint16_t>(1u << (mantBits - 1));
  }
  // Double subnormals (< 2^-1022) are far below the smallest f16/bf16
  // subnormal, and so are zeros.
  if (exp == 0)
    return sign;

  const int64_t bias = (int64_t(1) << (expBits - 1)) - 1;
  const int64_t unbiased = exp - 1023;
  // 53-bit significand including the implicit leading one.
  const uint64_t sig = mant | (uint64_t(1) << 52);
  // How many low bits of `sig` fall below the target's last mantissa bit:
  // normals keep `mantBits` bits after the leading one; subnormals lose one
  // more bit per binade below the smallest normal exponent (1 - bias).
  int64_t shift = 52 - mantBits;
  int64_t expField = unbiased + bias;
  if (expField < 1) {
    shift += 1 - expField;
    expField = 1;
  }
  if (shift > 53)
    return sign; // Less than half of the smallest subnormal.

  uint64_t q = sig >> shift;
  const uint64_t rem = sig & ((uint64_t(1) << shift) - 1);
  const uint64_t half = uint64_t(1) << (shift - 1);
  if (rem > half || (rem == half && (q & 1)))
    ++q;
  // `q` includes the implicit bit (2^mantBits) for normals, so adding it to
  // (expField - 1) << mantBits carries into the exponent exactly when it
  // should: for a rounding overflow of the mantissa and for a subnormal that
  // rounds up to the smallest normal.
  uint64_t result = (static_cast<uint64_t>(expField - 1) << mantBits) + q;
  if (result >= infBits)
    return sign | infBits;
  return sign | static_cast<uint16_t>(result);
}

uint16_t mlir::boo::roundToF16(double v) { return roundToSmallFloat(v, 5, 10); }

uint16_t mlir::boo::roundToBF16(double v) { return roundToSmallFloat(v, 8, 7); }

float mlir::boo::bf16ToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float result;
  std::memcpy(&result, &wide, sizeof(result));
  return result;
}

float mlir::boo::f16ToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits >> 15) << 31;
  const uint32_t exp = (bits >> 10) & 0x1f;
  const uint32_t mant = bits & 0x3ff;
  uint32_t wide;
  if (exp == 0x1f) {
    wide = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    wide = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  } else {
    // Zero or subnormal: mant * 2^-24 is exact in f32.
    float magnitude = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -magnitude : magnitude;
  }
  float result;
  std::memcpy(&result, &wide, sizeof(result));
  return result;
}

/// Rounds to nearest (ties to even) and saturates to [lo, hi]; NaN gives 0.
template <typename IntT> static IntT saturatingRound(double v) {
  if (std::isnan(v))
    return 0;
  double lo = static_cast<double>(std::numeric_limits<IntT>::min());
  double hi = static_cast<double>(std::numeric_limits<IntT>::max());
  double r = std::nearbyint(v);
  if (r <= lo)
    return std::numeric_limits<IntT>::min();
  if (r >= hi)
    return std::numeric_limits<IntT>::max();
  return static_cast<IntT>(r);
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t dim : shape)
    n *= dim;
  return n;
}

double HostTensor::getAsDouble(int64_t i) const {
  assert(i >= 0 && i < numElements() && "element index out of range");
  const uint8_t *p = data.data() + i * getElementSize(type);
  switch (type) {
  case ElementType::F32: {
    float v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  case ElementType::F16:
  case ElementType::BF16: {
    uint16_t v;
    std::memcpy(&v, p, sizeof(v));
    return type == ElementType::F16 ? f16ToFloat(v) : bf16ToFloat(v);
  }
  case ElementType::F64: {
    double v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  case ElementType::I32: {
    int32_t v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  case ElementType::I8:
    return static_cast<int8_t>(*p);
  case ElementType::I64: {
    int64_t v;
    std::memcpy(&v, p, sizeof(v));
    return static_cast<double>(v);
  }
  }
  return 0;
}

void HostTensor::setFromDouble(int64_t i, double v) {
  assert(i >= 0 && i < numElements() && "element index out of range");
  uint8_t *p = data.data() + i * getElementSize(type);
  switch (type) {
  case ElementType::F32: {
    float f = static_cast<float>(v); // The conversion rounds to nearest even.
    std::memcpy(p, &f, sizeof(f));
    return;
  }
  case ElementType::F16:
  case ElementType::BF16: {
    uint16_t h = type == ElementType::F16 ? roundToF16(v) : roundToBF16(v);
    std::memcpy(p, &h, sizeof(h));
    return;
  }
  case ElementType::F64:
    std::memcpy(p, &v, sizeof(v));
    return;
  case ElementType::I32: {
    int32_t x = saturatingRound<int32_t>(v);
    std::memcpy(p, &x, sizeof(x));
    return;
  }
  case ElementType::I8:
    *p = static_cast<uint8_t>(saturatingRound<int8_t>(v));
    return;
  case ElementType::I64: {
    int64_t x = saturatingRound<int64_t>(v);
    std::memcpy(p, &x, sizeof(x));
    return;
  }
  }
}

HostTensor HostTensor::zeros(std::vector<int64_t> shape, ElementType type) {
  HostTensor t;
  t.shape = std::move(shape);
  t.type = type;
  t.data.assign(t.numElements() * getElementSize(type), 0);
  return t;
}

std::string HostTensor::getTypeString() const {
  return formatTensorType(shape, type);
}

HostTensor HostTensor::fromDoubles(std::vector<int64_t> shape, ElementType type,
                                   const std::vector<double> &values) {
  HostTensor t = zeros(std::move(shape), type);
  assert(static_cast<int64_t>(values.size()) == t.numElements() &&
         "one value per element expected");
  for (int64_t i = 0, e = t.numElements(); i < e; ++i)
    t.setFromDouble(i, values[i]);
  return t;
}

HostTensor HostTensor::convertTo(ElementType newType) const {
  if (newType == type)
    return *this;
  HostTensor t = zeros(shape, newType);
  for (int64_t i = 0, e = numElements(); i < e; ++i)
    t.setFromDouble(i, getAsDouble(i));
  return t;
}

std::string mlir::boo::TensorSignature::toString() const {
  return formatTensorType(shape, type);
}
