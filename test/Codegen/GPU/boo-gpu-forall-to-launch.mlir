// RUN: boo-opt %s -split-input-file -verify-diagnostics --boo-gpu-forall-to-launch --canonicalize | FileCheck %s
// RUN: boo-opt %s -split-input-file -verify-diagnostics --boo-gpu-forall-to-launch --cse | FileCheck %s --check-prefix=CSE

// A workgroup loop of 3 tiles of 8 rows, each a thread loop over its
// (possibly partial: 20 = 8 + 8 + 4 rows) tile: 3 workgroups of 8 threads;
// the thread guard skips rows past the end; the per-thread temporary is a
// private alloca; the out-param is the kernel's argument (no copy).
// CHECK-LABEL: func.func @rows(
// CHECK-SAME:    %[[X:.+]]: memref<20x4xf32>, %[[Y:.+]]: memref<20xf32>)
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %c3, %{{[a-z0-9]+}} = %c1, %{{[a-z0-9]+}} = %c1)
// CHECK-SAME:      threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %c8, %{{[a-z0-9]+}} = %c1, %{{[a-z0-9]+}} = %c1)
// CHECK-SAME:      module(@rows_k0) function(@rows_k0)
// CHECK:           %[[N:.+]] = affine.min #{{.+}}()[%[[BX]]]
// CHECK:           %[[IN:.+]] = arith.cmpi slt, %[[TX]], %[[N]]
// CHECK:           scf.if %[[IN]] {
// CHECK:             memref.alloca() : memref<1xf32, #gpu.address_space<private>>
// CHECK:           gpu.terminator
// CHECK-NOT:     memref.copy
// CHECK:         return
#map = affine_map<(d0) -> (-d0 + 20, 8)>
func.func @rows(%x: memref<20x4xf32>, %y: memref<20xf32>) {
  scf.forall (%r) = (0) to (20) step (8) {
    %n = affine.min #map(%r)
    %xs = memref.subview %x[%r, 0] [%n, 4] [1, 1] : memref<20x4xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
    %ys = memref.subview %y[%r] [%n] [1] : memref<20xf32> to memref<?xf32, strided<[1], offset: ?>>
    scf.forall (%t) in (%n) {
      %acc = memref.alloc() : memref<1xf32>
      %xr = memref.subview %xs[%t, 0] [1, 4] [1, 1] : memref<?x4xf32, strided<[4, 1], offset: ?>> to memref<1x4xf32, strided<[4, 1], offset: ?>>
      linalg.reduce ins(%xr : memref<1x4xf32, strided<[4, 1], offset: ?>>) outs(%acc : memref<1xf32>) dimensions = [1]
        (%in: f32, %out: f32) {
          %s = arith.addf %in, %out : f32
          linalg.yield %s : f32
        }
      %yr = memref.subview %ys[%t] [1] [1] : memref<?xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
      memref.copy %acc, %yr : memref<1xf32> to memref<1xf32, strided<[1], offset: ?>>
    } {mapping = [#gpu.thread<linear_dim_0>]}
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// Two kernels, the second reading what the first wrote: the buffer between
// them is a device allocation, freed before returning. 2-D loops are
// linearized, linear_dim_0 fastest.
// CHECK-LABEL: func.func @two_kernels(
// CHECK:         %[[T:.+]] = gpu.alloc () : memref<6x8xf32>
// CHECK:         gpu.launch {{.*}} threads(%[[TX:[a-z0-9]+]], %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) in (%{{[a-z0-9]+}} = %c48
// CHECK-SAME:      module(@two_kernels_k0) function(@two_kernels_k0)
// CHECK:           %[[COL:.+]] = arith.remui %[[TX]], %c8
// CHECK:           %[[ROW:.+]] = arith.divui %[[TX]], %c8
// CHECK:           memref.store %{{.+}}, %[[T]][%[[ROW]], %[[COL]]]
// CHECK:         gpu.launch
// CHECK-SAME:      module(@two_kernels_k1) function(@two_kernels_k1)
// CHECK:           memref.load %[[T]]
// CHECK:         gpu.dealloc %[[T]] : memref<6x8xf32>
// CHECK-NEXT:    return
func.func @two_kernels(%y: memref<6x8xf32>) {
  %t = memref.alloc() : memref<6x8xf32>
  %cst = arith.constant 1.0 : f32
  scf.forall (%i, %j) = (0, 0) to (6, 8) step (6, 8) {
    scf.forall (%a, %b) in (6, 8) {
      memref.store %cst, %t[%a, %b] : memref<6x8xf32>
    } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
  } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
  scf.forall (%i, %j) = (0, 0) to (6, 8) step (6, 8) {
    scf.forall (%a, %b) in (6, 8) {
      %v = memref.load %t[%a, %b] : memref<6x8xf32>
      memref.store %v, %y[%a, %b] : memref<6x8xf32>
    } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
  } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
  return
}

// -----

// A result returned as a reshape of a temporary (grouped convolutions): the
// copy into the out-param is elided, the kernel writes through a view of the
// out-param, and the view is built inside the kernel, whose argument is the
// out-param itself.
// CHECK-LABEL: func.func @reshaped_result(
// CHECK-SAME:    %[[OUT:.+]]: memref<6xf32>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     gpu.alloc
// CHECK:         gpu.launch
// CHECK:           %[[V:.+]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1]] output_shape [2, 3]
// CHECK:           memref.store %{{.+}}, %[[V]]
// CHECK-NOT:     memref.copy
func.func @reshaped_result(%out: memref<6xf32>) {
  %t = memref.alloc() : memref<2x3xf32>
  %cst = arith.constant 1.0 : f32
  scf.forall (%i, %j) = (0, 0) to (2, 3) step (2, 3) {
    scf.forall (%a, %b) in (2, 3) {
      memref.store %cst, %t[%a, %b] : memref<2x3xf32>
    } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
  } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
  %c = memref.collapse_shape %t [[0, 1]] : memref<2x3xf32> into memref<6xf32>
  memref.copy %c, %out : memref<6xf32> to memref<6xf32>
  return
}

// -----

// A strided view of an argument made on the host (a padded backward-data
// convolution reads rows 2..2 of its gradient) is rebuilt inside the kernel
// and the host's copy is erased: left there, CSE (which looks into the
// launch) would swap the kernel's view back for it, and the strided view
// would become a kernel argument, which the bare-pointer kernel ABI cannot
// pass.
// CHECK-LABEL: func.func @host_view(
// CHECK-SAME:    %[[X:.+]]: memref<3x5xf32>
// CHECK-NOT:     memref.subview
// CHECK:         gpu.launch
// CHECK:           memref.subview %[[X]][0, 2] [3, 1] [1, 1]
// CSE-LABEL: func.func @host_view(
// CSE-SAME:    %[[X:.+]]: memref<3x5xf32>
// CSE-NOT:     memref.subview
// CSE:         gpu.launch
// CSE:           memref.subview %[[X]][0, 2] [3, 1] [1, 1]
func.func @host_view(%x: memref<3x5xf32>, %y: memref<3x1xf32>) {
  %v = memref.subview %x[0, 2] [3, 1] [1, 1] : memref<3x5xf32> to memref<3x1xf32, strided<[5, 1], offset: 2>>
  scf.forall (%i) = (0) to (3) step (3) {
    scf.forall (%t) in (3) {
      %c0 = arith.constant 0 : index
      %e = memref.load %v[%t, %c0] : memref<3x1xf32, strided<[5, 1], offset: 2>>
      memref.store %e, %y[%t, %c0] : memref<3x1xf32>
    } {mapping = [#gpu.thread<linear_dim_0>]}
  } {mapping = [#gpu.block<linear_dim_0>]}
  return
}

// -----

// Host code may not compute.
func.func @host_compute(%y: memref<4xf32>) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'memref.store' op boo-gpu-forall-to-launch: is left on the host outside any kernel}}
  memref.store %cst, %y[%c0] : memref<4xf32>
  return
}
