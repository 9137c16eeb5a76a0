//===- ElementType.h - Element types in the compiler namespace -*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The compiler, the importer and the host runner use the runtime's element
// types (boo/ElementType.h) under their own namespace. Header only, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_ELEMENTTYPE_H
#define BOO_ELEMENTTYPE_H

#include "boo/ElementType.h"

namespace mlir::boo {
using ::boo::ElementType;
using ::boo::getElementSize;
using ::boo::getElementTypeName;
using ::boo::getTorchTypeName;
using ::boo::isFloatType;
using ::boo::parseElementType;
} // namespace mlir::boo

#endif // BOO_ELEMENTTYPE_H
