//===- Passes.h - Boo-to-Boo rewrites ---------------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_TRANSFORMS_PASSES_H
#define BOO_DIALECT_BOO_TRANSFORMS_PASSES_H

#include "Boo/Dialect/Boo/IR/BooDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace boo {

#define GEN_PASS_DECL
#include "Boo/Dialect/Boo/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Boo/Dialect/Boo/Transforms/Passes.h.inc"

/// Patterns that wrap anchors and their element-wise consumers in boo.fusion.
void populateBooFormFusionsPatterns(RewritePatternSet &patterns);

} // namespace boo
} // namespace mlir

#endif // BOO_DIALECT_BOO_TRANSFORMS_PASSES_H
