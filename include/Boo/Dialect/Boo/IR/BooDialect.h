//===- BooDialect.h - Boo dialect -------------------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_BOODIALECT_H
#define BOO_DIALECT_BOO_IR_BOODIALECT_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "Boo/Dialect/Boo/IR/BooOpsDialect.h.inc"

#endif // BOO_DIALECT_BOO_IR_BOODIALECT_H
