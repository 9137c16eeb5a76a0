//===- HostTensor.h - A dense tensor in host memory -------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNNER_HOSTTENSOR_H
#define BOO_RUNNER_HOSTTENSOR_H

#include "Boo/ElementType.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::boo {

/// A dense, row-major tensor stored in host memory. `data` holds
/// `numElements() * getElementSize(type)` bytes in the element type's native
/// little-endian encoding (bf16: the upper 16 bits of an IEEE f32).
struct HostTensor {
  std::vector<int64_t> shape;
  ElementType type = ElementType::F32;
  std::vector<uint8_t> data;

  int64_t numElements() const;
  /// Element `i` (row-major linear index) converted to double.
  double getAsDouble(int64_t i) const;
  /// Stores `v` at linear index `i`, rounding to the element type
  /// (round-to-nearest-even for f16/bf16).
  void setFromDouble(int64_t i, double v);
  /// A zero-filled tensor.
  static HostTensor zeros(std::vector<int64_t> shape, ElementType type);
  /// "2x3xf32".
  std::string getTypeString() const;

  /// A tensor holding `values` (row-major, one per element) rounded to `type`
  /// as setFromDouble does.
  static HostTensor fromDoubles(std::vector<int64_t> shape, ElementType type,
                                const std::vector<double> &values);
  /// This tensor's values rounded to `newType` element by element (through
  /// double, which holds every value of every element type exactly).
  HostTensor convertTo(ElementType newType) const;
};

/// "2x3xf32" for `shape` and `type` ("f32" for rank 0).
std::string formatTensorType(const std::vector<int64_t> &shape,
                             ElementType type);

/// The type of one argument or result of a compiled function.
struct TensorSignature {
  std::vector<int64_t> shape;
  ElementType type;
  std::string toString() const; // "2x3xf32"
  /// Optional name for messages: the argument's (result's) `boo.name`
  /// string attribute, else the block argument's NameLoc; may be empty.
  std::string name;
};

//===----------------------------------------------------------------------===//
// Scalar conversions
//===----------------------------------------------------------------------===//
//
// setFromDouble rounds double to f16/bf16 directly (not through f32, which
// would round twice). Rounding is to nearest, ties to even; values too large
// for the format become infinities, values too small become (signed) zeros or
// subnormals; a NaN stays a quiet NaN with its sign.
//
// Integers: setFromDouble rounds to nearest (ties to even) and saturates to
// the type's range; NaN becomes 0.

/// IEEE binary16 bits nearest to `v`.
uint16_t roundToF16(double v);
/// bfloat16 bits nearest to `v`.
uint16_t roundToBF16(double v);
/// The value of IEEE binary16 bits `bits` (exact).
float f16ToFloat(uint16_t bits);
/// The value of bfloat16 bits `bits` (exact).
float bf16ToFloat(uint16_t bits);

} // namespace mlir::boo

#endif // BOO_RUNNER_HOSTTENSOR_H
