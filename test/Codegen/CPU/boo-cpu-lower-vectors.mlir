// RUN: boo-opt %s -split-input-file -boo-cpu-lower-vectors -canonicalize | FileCheck %s

// A tile contraction becomes one FMA per (reduction step, row): 16 x 8
// vector.fma of 32 lanes, with the lhs element broadcast.
// CHECK-LABEL: func.func @contract
// CHECK-NOT:     vector.contract
// CHECK-COUNT-128: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<32xf32>
// CHECK-NOT:     vector.fma
func.func @contract(%a: vector<8x16xf32>, %b: vector<16x32xf32>, %c: vector<8x32xf32>) -> vector<8x32xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
  return %r : vector<8x32xf32>
}

// -----

// A row reduction (layer norm statistics) becomes element-wise adds over
// the parallel dim.
// CHECK-LABEL: func.func @row_sum
// CHECK-NOT:     vector.multi_reduction
// CHECK:         arith.addf %{{.+}}, %{{.+}} : vector<4xf32>
func.func @row_sum(%x: vector<4x8xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  %r = vector.multi_reduction <add>, %x, %acc [1] : vector<4x8xf32> to vector<4xf32>
  return %r : vector<4xf32>
}
