//===- Passes.td - Boo-to-Boo rewrites passes ---*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_TRANSFORMS_PASSES_TD
#define BOO_DIALECT_BOO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def BooFormFusions : Pass<"boo-form-fusions", "func::FuncOp"> {
  let summary = "Group each conv, matmul or layer norm with its epilogue";
  let description = [{
    Wraps every convolution, matrix product or layer norm (forward or
    backward) and the chain of element-wise Boo ops that consume it into a
    `boo.fusion`, which later becomes exactly one kernel. Starting from the
    anchor, the chain grows while the current value has exactly one use and
    that use is a `boo.activation`, `boo.add` or `boo.mul` whose other
    operand (if any) is defined before the anchor (a bias vector, a residual
    tensor or a function argument). See docs/Fusion.md for what is and is
    not fused, and why.
  }];
  let dependentDialects = ["::mlir::boo::BooDialect"];
}

#endif // BOO_DIALECT_BOO_TRANSFORMS_PASSES_TD
