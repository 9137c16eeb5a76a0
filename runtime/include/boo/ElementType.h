//===- ElementType.h - The element types of Boo tensors ---------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The one list of element types a Boo tensor can hold, shared by the
// compiler, the importer, the float64 reference, the host runner and the
// runtime. The values are the module format's dtype bytes
// (docs/ModuleFormat.md) and boo_dtype_t's (boo_runtime.h). Header only; it
// depends on nothing but the C++ library.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_ELEMENTTYPE_H
#define BOO_RUNTIME_ELEMENTTYPE_H

#include <cstdint>
#include <optional>
#include <string_view>

namespace boo {

enum class ElementType : uint8_t {
  F32 = 0,
  F16 = 1,
  BF16 = 2,
  F64 = 3,
  I32 = 4,
  I8 = 5,
  I64 = 6,
};
/// The largest value of ElementType (a stored byte above it is invalid).
inline constexpr uint8_t kMaxElementType = 6;

/// Size in bytes of one element.
constexpr int64_t getElementSize(ElementType type) {
  switch (type) {
  case ElementType::F64:
  case ElementType::I64:
    return 8;
  case ElementType::F32:
  case ElementType::I32:
    return 4;
  case ElementType::F16:
  case ElementType::BF16:
    return 2;
  case ElementType::I8:
    return 1;
  }
  return 0;
}

/// MLIR's spelling: "f32", "f16", "bf16", "f64", "i32", "i8", "i64".
constexpr const char *getElementTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::F16:
    return "f16";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F64:
    return "f64";
  case ElementType::I32:
    return "i32";
  case ElementType::I8:
    return "i8";
  case ElementType::I64:
    return "i64";
  }
  return "?";
}

/// PyTorch's spelling, which IREE BOO's function names use: "float32",
/// "float16", "bfloat16", "float64", "int32", "int8", "int64".
constexpr const char *getTorchTypeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "float32";
  case ElementType::F16:
    return "float16";
  case ElementType::BF16:
    return "bfloat16";
  case ElementType::F64:
    return "float64";
  case ElementType::I32:
    return "int32";
  case ElementType::I8:
    return "int8";
  case ElementType::I64:
    return "int64";
  }
  return "?";
}

/// The type named `name` in MLIR's spelling ("f32", ...), if any.
inline std::optional<ElementType> parseElementType(std::string_view name) {
  for (uint8_t v = 0; v <= kMaxElementType; ++v) {
    auto type = static_cast<ElementType>(v);
    if (name == getElementTypeName(type))
      return type;
  }
  return std::nullopt;
}

/// True for f32, f16, bf16 and f64.
constexpr bool isFloatType(ElementType type) {
  return type == ElementType::F32 || type == ElementType::F16 ||
         type == ElementType::BF16 || type == ElementType::F64;
}

} // namespace boo

#endif // BOO_RUNTIME_ELEMENTTYPE_H
