//===- ElementTypes.cpp - Boo element types as MLIR types -----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/ElementTypes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::boo;

std::optional<ElementType> mlir::boo::getElementTypeOf(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isF64())
    return ElementType::F64;
  if (type.isSignlessInteger(32))
    return ElementType::I32;
  if (type.isSignlessInteger(8))
    return ElementType::I8;
  if (type.isSignlessInteger(64))
    return ElementType::I64;
  return std::nullopt;
}

Type mlir::boo::getMLIRType(MLIRContext *context, ElementType type) {
  switch (type) {
  case ElementType::F32:
    return Float32Type::get(context);
  case ElementType::F16:
    return Float16Type::get(context);
  case ElementType::BF16:
    return BFloat16Type::get(context);
  case ElementType::F64:
    return Float64Type::get(context);
  case ElementType::I32:
    return IntegerType::get(context, 32);
  case ElementType::I8:
    return IntegerType::get(context, 8);
  case ElementType::I64:
    return IntegerType::get(context, 64);
  }
  llvm_unreachable("unknown ElementType");
}
