//===- Passes.h - CPU code generation passes --------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_CPU_PASSES_H
#define BOO_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace boo {

#define GEN_PASS_DECL
#include "Boo/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Boo/Codegen/CPU/Passes.h.inc"

/// Unmasked, in-bounds 1-D vector reads of memrefs along a dim that is not
/// the innermost (strided lanes) as one scalar load per lane
/// (boo-cpu-lower-vectors), where convert-vector-to-scf makes a loop over
/// the lanes.
void populateUnrollStridedReadPatterns(RewritePatternSet &patterns);

} // namespace boo
} // namespace mlir

#endif // BOO_CODEGEN_CPU_PASSES_H
