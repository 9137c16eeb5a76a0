//===- Passes.h - Boo passes ------------------------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TRANSFORMS_PASSES_H
#define BOO_TRANSFORMS_PASSES_H

#include "Boo/Dialect/Boo/IR/BooDialect.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace boo {

#define GEN_PASS_DECL
#include "Boo/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Boo/Transforms/Passes.h.inc"

/// Patterns that lower each Boo op (outside boo.fusion) to linalg on tensors.
void populateBooToLinalgPatterns(RewritePatternSet &patterns);

/// Patterns that wrap anchors and their element-wise consumers in boo.fusion.
void populateBooFormFusionsPatterns(RewritePatternSet &patterns);

} // namespace boo
} // namespace mlir

#endif // BOO_TRANSFORMS_PASSES_H
