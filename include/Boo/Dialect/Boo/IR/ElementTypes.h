//===- ElementTypes.h - Boo element types as MLIR types ---------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The one mapping between Boo's element types (Boo/ElementType.h) and MLIR's
// builtin types, for the importer, the tuning-spec problem signature and the
// compiled-module manifest.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_ELEMENTTYPES_H
#define BOO_DIALECT_BOO_IR_ELEMENTTYPES_H

#include "Boo/ElementType.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace mlir::boo {

/// The element type MLIR type `type` is (f32, f16, bf16, f64, i32 or i8,
/// signless), if any.
std::optional<ElementType> getElementTypeOf(Type type);

/// The MLIR type of `type`.
Type getMLIRType(MLIRContext *context, ElementType type);

} // namespace mlir::boo

#endif // BOO_DIALECT_BOO_IR_ELEMENTTYPES_H
