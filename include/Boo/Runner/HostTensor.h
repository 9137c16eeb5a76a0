//===- HostTensor.h - A dense tensor in host memory -------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNNER_HOSTTENSOR_H
#define BOO_RUNNER_HOSTTENSOR_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::boo {

/// Element types a host tensor can hold.
enum class ElementType { F32, F16, BF16, F64, I32, I8 };

/// Size in bytes of one element.
int64_t getElementSize(ElementType type);
/// "f32", "f16", "bf16", "f64", "i32", "i8".
const char *getElementTypeName(ElementType type);

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
};

} // namespace mlir::boo

#endif // BOO_RUNNER_HOSTTENSOR_H
