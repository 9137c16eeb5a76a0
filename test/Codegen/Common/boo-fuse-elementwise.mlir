// RUN: boo-opt %s -split-input-file -boo-fuse-elementwise | FileCheck %s
// RUN: boo-opt %s -split-input-file -boo-fuse-elementwise=fuse-gathers=1 | FileCheck %s --check-prefix=GATHERS

#gather = affine_map<(d0, d1) -> (d0 * 600 + d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// boo.as_strided's copy (a linear storage index, rows 600 apart) stays a
// generic of its own: the product reads the dense copy through (d0, d2).
// With fuse-gathers, upstream's fusion: the product reads the storage.
// CHECK-LABEL: func.func @gather_into_product(
// CHECK:         %[[COPY:.+]] = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%{{.+}} : tensor<38440xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[COPY]], %{{.+}} : tensor<64x40xf32>, tensor<40x48xf32>)
// GATHERS-LABEL: func.func @gather_into_product(
// GATHERS-NOT:     tensor<64x40xf32>
// GATHERS:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<38440xf32>, tensor<40x48xf32>)
// GATHERS-NEXT:    ^bb0
// GATHERS:         return
func.func @gather_into_product(%s: tensor<38440xf32>, %b: tensor<40x48xf32>,
                               %acc: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %e = tensor.empty() : tensor<64x40xf32>
  %a = linalg.generic {indexing_maps = [#gather, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<38440xf32>) outs(%e : tensor<64x40xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<64x40xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x40xf32>, tensor<40x48xf32>)
      outs(%acc : tensor<64x48xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s2 = arith.addf %o, %m : f32
    linalg.yield %s2 : f32
  } -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}

// -----

#rev = affine_map<(d0, d1) -> (3 - d0, 7 - d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#lhs = affine_map<(d0, d1, d2) -> (d0, d2)>
#rhs = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>

// A reversal reads each dim through one loop: it fuses, as upstream's.
// CHECK:       #[[REV:.+]] = affine_map<(d0, d1, d2) -> (-d2 + 3, -d1 + 7)>
// CHECK-LABEL: func.func @reversal_into_product(
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[REV]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<8x4xf32>, tensor<4x8xf32>)
// CHECK-NOT:     linalg.generic
func.func @reversal_into_product(%w: tensor<4x8xf32>, %a: tensor<8x4xf32>,
                                 %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#rev, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#lhs, #rhs, #out],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>)
      outs(%acc : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
