// RUN: boo-opt %s -split-input-file -boo-verify-llvm-contract -verify-diagnostics | FileCheck %s

// Pure LLVM dialect passes unchanged.
// CHECK-LABEL: llvm.func @ok
llvm.func @ok(%a: f32) -> f32 {
  llvm.return %a : f32
}

// -----

// expected-error@+1 {{boo-verify-llvm-contract: 2 op(s) outside the LLVM dialect remain}}
module {
  // expected-error@+1 {{boo-verify-llvm-contract: 'func.func' was not lowered to the LLVM dialect by the CPU pipeline}}
  func.func @not_lowered(%a: f32) -> f32 {
    return %a : f32
  }
  llvm.func @half(%a: i64) -> !llvm.ptr {
    // expected-error@+1 {{boo-verify-llvm-contract: 'builtin.unrealized_conversion_cast' was not lowered}}
    %p = builtin.unrealized_conversion_cast %a : i64 to !llvm.ptr
    llvm.return %p : !llvm.ptr
  }
}
