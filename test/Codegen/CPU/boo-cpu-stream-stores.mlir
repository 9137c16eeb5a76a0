// RUN: boo-opt %s -split-input-file -boo-cpu-stream-stores | FileCheck %s

// In a loop marked boo.stream_stores, a store of whole 64-byte lines
// (16 floats) into a view of a function argument is non-temporal when its
// address is a multiple of 64 at run time, and as before otherwise; the
// iteration ends with a store fence, and the mark is removed. The store of
// 4 floats (a part of a line) and the store into a temporary stay.
// CHECK-LABEL: func.func @marked
// CHECK-SAME:    %[[V:.+]]: vector<16xf32>, %[[W:.+]]: vector<4xf32>, %[[Y:.+]]: memref<8x64xf32>
// CHECK:         scf.forall (%[[I:.+]]) in (8) {
// CHECK:           %[[ROW:.+]] = memref.subview %[[Y]][%[[I]], 0] [1, 64] [1, 1]
// CHECK:           %[[BASE:.+]], %[[OFFSET:.+]], %{{.+}}:2, %[[STRIDES:.+]]:2 = memref.extract_strided_metadata %[[ROW]]
// CHECK:           %[[P:.+]] = memref.extract_aligned_pointer_as_index %[[ROW]]
// CHECK:           %[[LOW:.+]] = arith.andi %{{.+}}, %c63
// CHECK:           %[[ALIGNED:.+]] = arith.cmpi eq, %[[LOW]], %{{.+}} : index
// CHECK:           scf.if %[[ALIGNED]] {
// CHECK-NEXT:        vector.store %[[V]], %[[ROW]][%c0, %c16] {alignment = 64 : i64, nontemporal = true}
// CHECK-NEXT:      } else {
// CHECK-NEXT:        vector.transfer_write %[[V]], %[[ROW]][%c0, %c16] {in_bounds = [true]}
// CHECK-NEXT:      }
// CHECK-NEXT:      vector.transfer_write %[[W]], %[[ROW]][%c0, %c0] {in_bounds = [true]}
// CHECK-NEXT:      vector.transfer_write %[[V]], %{{.+}}[%c0] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
// CHECK-NEXT:      llvm.call_intrinsic "llvm.x86.sse.sfence"() : () -> ()
// CHECK-NEXT:    }
// CHECK-NOT:     boo.stream_stores
func.func @marked(%v: vector<16xf32>, %w: vector<4xf32>, %y: memref<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %tmp = memref.alloca() : memref<64xf32>
  scf.forall (%i) in (8) {
    %row = memref.subview %y[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    vector.transfer_write %v, %row[%c0, %c16] {in_bounds = [true]} : vector<16xf32>, memref<1x64xf32, strided<[64, 1], offset: ?>>
    vector.transfer_write %w, %row[%c0, %c0] {in_bounds = [true]} : vector<4xf32>, memref<1x64xf32, strided<[64, 1], offset: ?>>
    vector.transfer_write %v, %tmp[%c0] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  } {boo.stream_stores}
  return
}

// -----

// An unmarked loop is left alone, and so is a marked loop with nothing to
// stream (a column of a matrix is no contiguous line): no fence.
// CHECK-LABEL: func.func @unmarked
// CHECK-NOT:     nontemporal
// CHECK-NOT:     sfence
// CHECK-NOT:     boo.stream_stores
// CHECK:         return
func.func @unmarked(%v: vector<16xf32>, %y: memref<8x64xf32>, %z: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  scf.forall (%i) in (4) {
    %row = memref.subview %y[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    vector.transfer_write %v, %row[%c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x64xf32, strided<[64, 1], offset: ?>>
  }
  scf.forall (%i) in (4) {
    vector.transfer_write %v, %z[%c0, %i] {in_bounds = [true], permutation_map = affine_map<(d0, d1) -> (d0)>} : vector<16xf32>, memref<16x16xf32>
  } {boo.stream_stores}
  return
}
