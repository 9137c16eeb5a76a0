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

// -----

// A read of 16 channels of a KYX1 filter, 9 floats apart, becomes one
// scalar load per lane (convert-vector-to-scf would loop over the lanes).
// CHECK-LABEL: func.func @strided_read
// CHECK-NOT:     vector.transfer_read
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG:     %[[C15:.+]] = arith.constant 15 : index
// CHECK:         %[[L0:.+]] = memref.load %arg0[%arg1, %arg2, %arg3, %arg2]
// CHECK:         %[[I1:.+]] = arith.addi %arg1, %[[C1]]
// CHECK:         %[[L1:.+]] = memref.load %arg0[%[[I1]], %arg2, %arg3, %arg2]
// CHECK-COUNT-13: memref.load
// CHECK:         %[[I15:.+]] = arith.addi %arg1, %[[C15]]
// CHECK:         %[[L15:.+]] = memref.load %arg0[%[[I15]], %arg2, %arg3, %arg2]
// CHECK:         vector.from_elements %[[L0]], %[[L1]], {{.+}}, %[[L15]] : vector<16xf32>
// CHECK-NOT:     memref.load
func.func @strided_read(%f: memref<32x3x3x1xf32>, %c: index, %ky: index, %kx: index) -> vector<16xf32> {
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %f[%c, %ky, %kx, %ky], %z {in_bounds = [true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d0)>} : memref<32x3x3x1xf32>, vector<16xf32>
  return %v : vector<16xf32>
}

// -----

// A read that may leave the memref (not in bounds) or a contiguous one
// stays a transfer.
// CHECK-LABEL: func.func @strided_kept
// CHECK-COUNT-2: vector.transfer_read
// CHECK-NOT:     memref.load
func.func @strided_kept(%m: memref<8x8xf32>, %i: index) -> (vector<4xf32>, vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %a = vector.transfer_read %m[%i, %c0], %z {in_bounds = [false], permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<8x8xf32>, vector<4xf32>
  %b = vector.transfer_read %m[%c0, %i], %z {in_bounds = [true]} : memref<8x8xf32>, vector<4xf32>
  return %a, %b : vector<4xf32>, vector<4xf32>
}

// -----

// A tile of 16 channels x 3x3 taps written into a KCYX weight gradient:
// its rows of 3 floats are contiguous in the memref, and the write becomes
// one of 144 lanes into the collapsed memref (9 stores of 16 lanes on x86,
// not 48 of 3); its shape cast is unrolled into the 48 rows' inserts. A
// tile whose rows are 16 lanes wide is left as it is.
// CHECK-LABEL: func.func @narrow_rows_flattened
// CHECK-SAME:    %[[M:[a-z0-9]+]]: memref<32x32x3x3xf32>, %[[V:[a-z0-9]+]]: vector<16x3x3xf32>
// CHECK:         %[[FLAT:.+]] = memref.collapse_shape %[[M]] {{\[\[}}0], [1, 2, 3]] : memref<32x32x3x3xf32> into memref<32x288xf32>
// CHECK-COUNT-47: vector.insert_strided_slice {{.+}} : vector<3xf32> into vector<144xf32>
// CHECK:         %[[LANES:.+]] = vector.insert_strided_slice {{.+}} {offsets = [141], strides = [1]} : vector<3xf32> into vector<144xf32>
// CHECK:         vector.transfer_write %[[LANES]], %[[FLAT]]{{.+}} : vector<144xf32>, memref<32x288xf32>
// CHECK:         vector.transfer_write %{{.+}} : vector<4x16x1x1xf32>, memref<32x32x3x3xf32>
func.func @narrow_rows_flattened(%m: memref<32x32x3x3xf32>, %v: vector<16x3x3xf32>, %w: vector<4x16xf32>, %k: index, %c: index) {
  %c0 = arith.constant 0 : index
  vector.transfer_write %v, %m[%k, %c, %c0, %c0] {in_bounds = [true, true, true]} : vector<16x3x3xf32>, memref<32x32x3x3xf32>
  vector.transfer_write %w, %m[%k, %c, %c0, %c0] {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d0, d1)>} : vector<4x16xf32>, memref<32x32x3x3xf32>
  return
}

// -----

// A bf16 transpose moves its bits as i16: x86 has no bf16 vector shuffles.
// CHECK-LABEL: func.func @transpose_bf16
// CHECK:         %[[BITS:.+]] = arith.bitcast %{{.+}} : vector<4x8xbf16> to vector<4x8xi16>
// CHECK:         vector.shuffle {{.*}} : vector<32xi16>, vector<32xi16>
// CHECK:         arith.bitcast %{{.+}} : vector<8x4xi16> to vector<8x4xbf16>
// CHECK-NOT:     vector.shuffle {{.*}}bf16
func.func @transpose_bf16(%a: vector<4x8xbf16>) -> vector<8x4xbf16> {
  %t = vector.transpose %a, [1, 0] : vector<4x8xbf16> to vector<8x4xbf16>
  return %t : vector<8x4xbf16>
}
