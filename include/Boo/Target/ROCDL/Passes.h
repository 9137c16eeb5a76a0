//===- Passes.h - ROCDL serialization passes --------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TARGET_ROCDL_PASSES_H
#define BOO_TARGET_ROCDL_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace boo {

#define GEN_PASS_DECL
#include "Boo/Target/ROCDL/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Boo/Target/ROCDL/Passes.h.inc"

} // namespace boo
} // namespace mlir

#endif // BOO_TARGET_ROCDL_PASSES_H
