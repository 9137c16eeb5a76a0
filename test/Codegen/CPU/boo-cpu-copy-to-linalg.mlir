// RUN: boo-opt %s -split-input-file -boo-cpu-copy-to-linalg | FileCheck %s

// A copy out of a strided view would lower to a call of MLIR's memrefCopy
// (a library the runtime does not load): it becomes a linalg.copy.
// CHECK-LABEL: func.func @strided_source(
// CHECK-SAME:    %[[SRC:.+]]: memref<4x8xf32>, %[[DST:.+]]: memref<4x4xf32>)
// CHECK:         %[[VIEW:.+]] = memref.subview %[[SRC]]
// CHECK-NEXT:    linalg.copy ins(%[[VIEW]] : memref<4x4xf32, strided<[8, 1], offset: 2>>) outs(%[[DST]] : memref<4x4xf32>)
// CHECK-NOT:     memref.copy
func.func @strided_source(%src: memref<4x8xf32>, %dst: memref<4x4xf32>) {
  %v = memref.subview %src[0, 2] [4, 4] [1, 1]
      : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  memref.copy %v, %dst : memref<4x4xf32, strided<[8, 1], offset: 2>> to memref<4x4xf32>
  return
}

// -----

// Into a strided view: the same.
// CHECK-LABEL: func.func @strided_target(
// CHECK:         linalg.copy
// CHECK-NOT:     memref.copy
func.func @strided_target(%src: memref<2x3xf32>, %dst: memref<2x6xf32>) {
  %v = memref.subview %dst[0, 0] [2, 3] [1, 2]
      : memref<2x6xf32> to memref<2x3xf32, strided<[6, 2]>>
  memref.copy %src, %v : memref<2x3xf32> to memref<2x3xf32, strided<[6, 2]>>
  return
}

// -----

// Contiguous on both sides (identity layouts, or a static row-major block at
// an offset) stays a memref.copy, which becomes llvm.memcpy.
// CHECK-LABEL: func.func @contiguous(
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<4x8xf32> to memref<4x8xf32>
// CHECK:         memref.copy %{{.+}}, %{{.+}} : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
// CHECK-NOT:     linalg.copy
func.func @contiguous(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<2x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  %rows = memref.subview %a[2, 0] [2, 8] [1, 1]
      : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  memref.copy %rows, %c : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
  return
}
