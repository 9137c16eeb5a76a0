//===- Passes.h - Passes the code generators share --------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_COMMON_PASSES_H
#define BOO_CODEGEN_COMMON_PASSES_H

#include "Boo/Dialect/Boo/IR/BooDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace boo {

#define GEN_PASS_DECL
#include "Boo/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Boo/Codegen/Common/Passes.h.inc"

} // namespace boo
} // namespace mlir

#endif // BOO_CODEGEN_COMMON_PASSES_H
