// RUN: boo-opt %s -split-input-file -verify-diagnostics --boo-expand-math | FileCheck %s

// erf and tanh (gelu, gelu_tanh, tanh activations) become polynomial or
// rational approximations made of FMAs, compares and selects: no
// __ocml_erf_f32 / __ocml_tanh_f32 device-library call is left.
// CHECK-LABEL: func.func @erf_tanh(
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.tanh
// CHECK:         math.fma
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.tanh
// CHECK:         return
func.func @erf_tanh(%x: f32, %v: vector<4xf32>) -> (f32, vector<4xf32>) {
  %0 = math.erf %x : f32
  %1 = math.tanh %v : vector<4xf32>
  return %0, %1 : f32, vector<4xf32>
}

// -----

// exp, log and sqrt on f32 have native AMDGPU lowerings and stay.
// CHECK-LABEL: func.func @native(
// CHECK:         math.exp %{{.+}} : f32
// CHECK:         math.log %{{.+}} : f32
// CHECK:         math.sqrt %{{.+}} : f32
func.func @native(%x: f32) -> (f32, f32, f32) {
  %0 = math.exp %x : f32
  %1 = math.log %x : f32
  %2 = math.sqrt %x : f32
  return %0, %1, %2 : f32, f32, f32
}

// -----

// Compositions of native ops: rsqrt = 1 / sqrt, log10 = log * log10(e),
// floor = -ceil(-x) with ceil expanded to truncation and compare.
// CHECK-LABEL: func.func @compositions(
// CHECK:         %[[S:.+]] = math.sqrt %{{.+}} : f32
// CHECK:         arith.divf %{{.+}}, %[[S]] : f32
// CHECK:         %[[L:.+]] = math.log %{{.+}} : f32
// CHECK:         arith.mulf %[[L]], %{{.+}} : f32
// CHECK-NOT:     math.rsqrt
// CHECK-NOT:     math.log10
// CHECK-NOT:     math.floor
// CHECK-NOT:     math.ceil
// CHECK:         return
func.func @compositions(%x: f32) -> (f32, f32, f32) {
  %0 = math.rsqrt %x : f32
  %1 = math.log10 %x : f32
  %2 = math.floor %x : f32
  return %0, %1, %2 : f32, f32, f32
}

// -----

// f16 math is computed in f32 (f16 exp would be __ocml_exp_f16).
// CHECK-LABEL: func.func @half(
// CHECK:         %[[E:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:         %[[R:.+]] = math.exp %[[E]] : f32
// CHECK:         arith.truncf %[[R]] : f32 to f16
func.func @half(%x: f16) -> f16 {
  %0 = math.exp %x : f16
  return %0 : f16
}

// -----

// What cannot be expanded is refused at the op.
func.func @remf(%x: f32, %y: f32) -> f32 {
  // expected-error@+1 {{'arith.remf' op has no lowering without the ROCm device libraries, and boo-expand-math cannot expand it for type 'f32'}}
  %0 = arith.remf %x, %y : f32
  return %0 : f32
}
