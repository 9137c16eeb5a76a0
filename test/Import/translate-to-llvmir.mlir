// boo-translate keeps mlirTranslateMain's translations next to
// --import-miopen; --mlir-to-llvmir turns an LLVM-dialect module (what
// boo-opt --boo-to-llvm-cpu produces) into LLVM IR.
// RUN: boo-translate --mlir-to-llvmir %s | FileCheck %s

// CHECK-LABEL: define float @scale(float %0)
// CHECK:         %[[R:.+]] = fmul float %0, 2.000000e+00
// CHECK:         ret float %[[R]]
llvm.func @scale(%x: f32) -> f32 {
  %c = llvm.mlir.constant(2.0 : f32) : f32
  %r = llvm.fmul %x, %c : f32
  llvm.return %r : f32
}
