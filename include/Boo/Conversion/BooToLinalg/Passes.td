//===- Passes.td - Boo to linalg passes ---*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CONVERSION_BOOTOLINALG_PASSES_TD
#define BOO_CONVERSION_BOOTOLINALG_PASSES_TD

include "mlir/Pass/PassBase.td"

def BooConvertToLinalg : Pass<"boo-convert-to-linalg", "ModuleOp"> {
  let summary = "Lower every Boo op to linalg on tensors";
  let description = [{
    Lowers convolutions (forward, backward-data, backward-weight, bias
    gradient), layer norms (forward, backward), element-wise ops and the
    bodies of `boo.fusion` ops to `linalg.generic` ops on tensors whose
    indexing maps are derived from the layouts. Accumulation is in f32; the
    single rounding to the storage type happens in the epilogue. See
    docs/Lowering.md for the exact maps.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
}

#endif // BOO_CONVERSION_BOOTOLINALG_PASSES_TD
