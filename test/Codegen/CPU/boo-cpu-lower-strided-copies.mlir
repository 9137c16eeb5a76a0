// RUN: boo-opt %s -split-input-file -boo-cpu-lower-strided-copies | FileCheck %s

// A copy out of a strided view would lower to a call of MLIR's memrefCopy
// (a library the runtime does not load). A small static one whose rows are
// contiguous on both sides becomes one vector transfer each way.
// CHECK-LABEL: func.func @strided_source(
// CHECK-SAME:    %[[SRC:.+]]: memref<4x8xf32>, %[[DST:.+]]: memref<4x4xf32>)
// CHECK:         %[[VIEW:.+]] = memref.subview %[[SRC]]
// CHECK:         %[[V:.+]] = vector.transfer_read %[[VIEW]][%[[C0:.+]], %[[C0]]], %{{.+}} {in_bounds = [true, true]} : memref<4x4xf32, strided<[8, 1], offset: 2>>, vector<4x4xf32>
// CHECK-NEXT:    vector.transfer_write %[[V]], %[[DST]][%[[C0]], %[[C0]]] {in_bounds = [true, true]} : vector<4x4xf32>, memref<4x4xf32>
// CHECK-NOT:     memref.copy
// CHECK-NOT:     linalg.copy
func.func @strided_source(%src: memref<4x8xf32>, %dst: memref<4x4xf32>) {
  %v = memref.subview %src[0, 2] [4, 4] [1, 1]
      : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 2>>
  memref.copy %v, %dst : memref<4x4xf32, strided<[8, 1], offset: 2>> to memref<4x4xf32>
  return
}

// -----

// More than 4096 elements (a whole tensor, not a register tile): a
// linalg.copy, which becomes loops.
// CHECK-LABEL: func.func @large_strided_source(
// CHECK-SAME:    %[[SRC:.+]]: memref<64x130xf32>, %[[DST:.+]]: memref<64x128xf32>)
// CHECK:         %[[VIEW:.+]] = memref.subview %[[SRC]]
// CHECK-NEXT:    linalg.copy ins(%[[VIEW]] : memref<64x128xf32, strided<[130, 1], offset: 1>>) outs(%[[DST]] : memref<64x128xf32>)
// CHECK-NOT:     vector.transfer_read
func.func @large_strided_source(%src: memref<64x130xf32>, %dst: memref<64x128xf32>) {
  %v = memref.subview %src[0, 1] [64, 128] [1, 1]
      : memref<64x130xf32> to memref<64x128xf32, strided<[130, 1], offset: 1>>
  memref.copy %v, %dst : memref<64x128xf32, strided<[130, 1], offset: 1>> to memref<64x128xf32>
  return
}

// -----

// Into a view strided in its innermost dim: a linalg.copy.
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
