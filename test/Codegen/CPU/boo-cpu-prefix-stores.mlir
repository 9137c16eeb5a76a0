// RUN: boo-opt %s -split-input-file -boo-cpu-prefix-stores | FileCheck %s

// The tail of an output row of 7 columns written from 8 lanes at column 0,
// and of 12 columns from 8 lanes at column 8, are written as their first 7
// and 4 lanes, in bounds: no mask is left for convert-vector-to-llvm.
// CHECK-LABEL: func.func @row_tails
// CHECK-SAME:    %[[V:.+]]: vector<8xf32>, %[[P:.+]]: memref<7x7xf32, strided<[7, 1], offset: ?>>, %[[Q:.+]]: memref<12xf32>, %[[R:.+]]: index
// CHECK:         %[[S7:.+]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [7], strides = [1]} : vector<8xf32> to vector<7xf32>
// CHECK:         vector.transfer_write %[[S7]], %[[P]][%[[R]], %c0] {in_bounds = [true]} : vector<7xf32>, memref<7x7xf32, strided<[7, 1], offset: ?>>
// CHECK:         %[[S4:.+]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
// CHECK:         vector.transfer_write %[[S4]], %[[Q]][%c8] {in_bounds = [true]} : vector<4xf32>, memref<12xf32>
func.func @row_tails(%v: vector<8xf32>, %p: memref<7x7xf32, strided<[7, 1], offset: ?>>, %q: memref<12xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  vector.transfer_write %v, %p[%r, %c0] : vector<8xf32>, memref<7x7xf32, strided<[7, 1], offset: ?>>
  vector.transfer_write %v, %q[%c8] : vector<8xf32>, memref<12xf32>
  return
}

// -----

// Left as they are: a write in bounds, one that fits although marked out of
// bounds (the op's folder marks it in bounds), one past the row's end
// (nothing to write), one at a dynamic column, one into a dynamic row, one
// with a mask operand, and a 2-D one.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     vector.extract_strided_slice
// CHECK:         vector.transfer_write %{{.+}}, %{{.+}}[%c0] {in_bounds = [true]} : vector<8xf32>, memref<12xf32>
// CHECK:         vector.transfer_write %{{.+}}, %{{.+}}[%c0] {in_bounds = [true]} : vector<8xf32>, memref<12xf32>
// CHECK:         vector.transfer_write %{{.+}}, %{{.+}}[%c12] : vector<8xf32>, memref<12xf32>
// CHECK:         vector.transfer_write %{{.+}}, %{{.+}}[%{{.+}}] : vector<8xf32>, memref<12xf32>
// CHECK:         vector.transfer_write %{{.+}}, %{{.+}}[%c8] : vector<8xf32>, memref<?xf32>
// CHECK:         vector.transfer_write %{{.+}}, %{{.+}}[%c8], %{{.+}} : vector<8xf32>, memref<12xf32>
// CHECK:         vector.transfer_write %{{.+}}, %{{.+}}[%c0, %c8] {in_bounds = [true, false]} : vector<2x8xf32>, memref<2x12xf32>
func.func @kept(%v: vector<8xf32>, %w: vector<2x8xf32>, %q: memref<12xf32>, %d: memref<?xf32>, %m: memref<2x12xf32>, %i: index, %mask: vector<8xi1>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  vector.transfer_write %v, %q[%c0] {in_bounds = [true]} : vector<8xf32>, memref<12xf32>
  vector.transfer_write %v, %q[%c0] : vector<8xf32>, memref<12xf32>
  vector.transfer_write %v, %q[%c12] : vector<8xf32>, memref<12xf32>
  vector.transfer_write %v, %q[%i] : vector<8xf32>, memref<12xf32>
  vector.transfer_write %v, %d[%c8] : vector<8xf32>, memref<?xf32>
  vector.transfer_write %v, %q[%c8], %mask : vector<8xf32>, memref<12xf32>
  vector.transfer_write %w, %m[%c0, %c8] : vector<2x8xf32>, memref<2x12xf32>
  return
}
