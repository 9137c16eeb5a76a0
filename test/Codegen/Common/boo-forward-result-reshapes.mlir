// RUN: boo-opt %s -split-input-file -boo-forward-result-reshapes | FileCheck %s

// A result computed in a local buffer and returned through a collapse is
// computed in the out-param instead: the buffer becomes its expansion.
// CHECK-LABEL: func.func @collapse(
// CHECK-SAME:    %[[IN:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<4x8xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         %[[VIEW:.+]] = memref.expand_shape %[[OUT]] {{\[\[}}0], [1, 2]] output_shape [4, 8, 1] : memref<4x8xf32> into memref<4x8x1xf32>
// CHECK:         linalg.copy ins(%{{.+}} : memref<4x8x1xf32>) outs(%[[VIEW]] : memref<4x8x1xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @collapse(%in: memref<4x8xf32>, %out: memref<4x8xf32>) {
  %a = memref.alloc() : memref<4x8x1xf32>
  %e = memref.expand_shape %in [[0], [1, 2]] output_shape [4, 8, 1] : memref<4x8xf32> into memref<4x8x1xf32>
  linalg.copy ins(%e : memref<4x8x1xf32>) outs(%a : memref<4x8x1xf32>)
  %c = memref.collapse_shape %a [[0], [1, 2]] : memref<4x8x1xf32> into memref<4x8xf32>
  memref.copy %c, %out : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// Through an expansion: the buffer becomes the out-param's collapse.
// CHECK-LABEL: func.func @expand(
// CHECK-SAME:    %[[IN:.+]]: memref<32xf32>, %[[OUT:.+]]: memref<4x8xf32>)
// CHECK:         %[[VIEW:.+]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]] : memref<4x8xf32> into memref<32xf32>
// CHECK:         linalg.copy ins(%[[IN]] : memref<32xf32>) outs(%[[VIEW]] : memref<32xf32>)
// CHECK-NOT:     memref.copy
func.func @expand(%in: memref<32xf32>, %out: memref<4x8xf32>) {
  %a = memref.alloc() : memref<32xf32>
  linalg.copy ins(%in : memref<32xf32>) outs(%a : memref<32xf32>)
  %e = memref.expand_shape %a [[0, 1]] output_shape [4, 8] : memref<32xf32> into memref<4x8xf32>
  memref.copy %e, %out : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// The buffer is read after the copy: left alone.
// CHECK-LABEL: func.func @used_after(
// CHECK:         memref.alloc
// CHECK:         memref.copy
func.func @used_after(%out: memref<4x8xf32>, %other: memref<4x8x1xf32>) {
  %a = memref.alloc() : memref<4x8x1xf32>
  %c = memref.collapse_shape %a [[0], [1, 2]] : memref<4x8x1xf32> into memref<4x8xf32>
  memref.copy %c, %out : memref<4x8xf32> to memref<4x8xf32>
  linalg.copy ins(%a : memref<4x8x1xf32>) outs(%other : memref<4x8x1xf32>)
  return
}

// -----

// The out-param has another use (it is also read): left alone.
// CHECK-LABEL: func.func @out_used(
// CHECK:         memref.alloc
// CHECK:         memref.copy
func.func @out_used(%out: memref<4x8xf32>, %other: memref<4x8xf32>) {
  linalg.copy ins(%out : memref<4x8xf32>) outs(%other : memref<4x8xf32>)
  %a = memref.alloc() : memref<4x8x1xf32>
  %c = memref.collapse_shape %a [[0], [1, 2]] : memref<4x8x1xf32> into memref<4x8xf32>
  memref.copy %c, %out : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// A copy without a reshape stays (buffer-results-to-out-params handles
// plain returned allocations itself).
// CHECK-LABEL: func.func @no_reshape(
// CHECK:         memref.alloc
// CHECK:         memref.copy
func.func @no_reshape(%out: memref<4x8xf32>) {
  %a = memref.alloc() : memref<4x8xf32>
  memref.copy %a, %out : memref<4x8xf32> to memref<4x8xf32>
  return
}
