//===- Passes.h - Boo to linalg ---------------------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CONVERSION_BOOTOLINALG_PASSES_H
#define BOO_CONVERSION_BOOTOLINALG_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace boo {

#define GEN_PASS_DECL
#include "Boo/Conversion/BooToLinalg/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Boo/Conversion/BooToLinalg/Passes.h.inc"

/// Patterns that lower each Boo op (outside boo.fusion) to linalg on tensors.
void populateBooToLinalgPatterns(RewritePatternSet &patterns);

} // namespace boo
} // namespace mlir

#endif // BOO_CONVERSION_BOOTOLINALG_PASSES_H
