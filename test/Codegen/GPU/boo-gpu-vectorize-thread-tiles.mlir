// RUN: boo-opt %s --boo-gpu-vectorize-thread-tiles --canonicalize --cse | FileCheck %s
// RUN: boo-opt %s --boo-gpu-vectorize-thread-tiles=max-width=4 | FileCheck %s --check-prefix=NARROW

#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#filter = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
#acc = affine_map<(d0, d1, d2) -> (0, 0, 0, d2, 0)>
#ch = affine_map<(d0)[s0] -> (d0 + s0)>

// A depthwise conv's thread tile: 8 channels of an NHWC row (the
// accumulator's fill, the accumulation over a 3x3 filter, the epilogue's
// store). The guarded input read is contiguous along the channels: one
// vector load under the scalar guard. The filter's stride along them is 9:
// one scalar load per channel. The accumulator is read and written as one
// vector per tap (registers after LLVM's SROA).
// CHECK-LABEL: func.func @depthwise(
// CHECK-DAG:     %[[Z8:.+]] = arith.constant dense<0.000000e+00> : vector<8xbf16>
// CHECK-DAG:     %[[ZACC:.+]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK:         scf.forall (%[[H:.+]], %[[C:.+]]) = (0, 0) to (6, 16) step (1, 8)
// CHECK:           %[[ACC:.+]] = memref.collapse_shape %{{.+}} {{\[}}[0], [1], [2], [3, 4]]
// CHECK:           vector.store %[[ZACC]], %[[ACC]]
// CHECK:           %[[W:.+]] = memref.subview
// CHECK:           scf.for %[[FH:.+]] = %c0 to %c3 step %c1 {
// CHECK:             scf.for %[[FW:.+]] = %c0 to %c3 step %c1 {
// CHECK:               %[[COL:.+]] = arith.subi %[[FW]], %c1
// CHECK:               %[[IN:.+]] = scf.if %{{.+}} -> (vector<8xbf16>) {
// CHECK:                 %[[LOAD:.+]] = vector.load %arg0[%c0, %[[H]], %[[COL]], %[[C]]] : memref<1x6x6x16xbf16>, vector<8xbf16>
// CHECK:                 scf.yield %[[LOAD]]
// CHECK:               } else {
// CHECK:                 scf.yield %[[Z8]]
// CHECK:               }
// CHECK:               %[[A:.+]] = arith.extf %[[IN]] : vector<8xbf16> to vector<8xf32>
// CHECK-COUNT-8:       memref.load %[[W]][%{{.+}}, %[[FH]], %[[FW]]]
// CHECK:               %[[WV:.+]] = vector.from_elements
// CHECK:               %[[B:.+]] = arith.extf %[[WV]] : vector<8xbf16> to vector<8xf32>
// CHECK:               %[[OUT:.+]] = vector.load %[[ACC]][%c0, %c0, %c0, %c0] : memref<1x1x1x8xf32>, vector<8xf32>
// CHECK:               %[[FMA:.+]] = math.fma %[[A]], %[[B]], %[[OUT]] : vector<8xf32>
// CHECK:               vector.store %[[FMA]], %[[ACC]]
// CHECK:           %[[SUM:.+]] = vector.load %[[ACC]]
// CHECK:           %[[T:.+]] = arith.truncf %[[SUM]] : vector<8xf32> to vector<8xbf16>
// CHECK:           %[[Y:.+]] = memref.collapse_shape
// CHECK:           vector.store %[[T]], %[[Y]][%c0, %c0, %c0, %c0] : memref<1x1x1x8xbf16, strided<[576, 96, 16, 1], offset: ?>>, vector<8xbf16>
// CHECK-NOT:       linalg.generic
// Wider than max-width: left as it is.
// NARROW-LABEL: func.func @depthwise(
// NARROW-COUNT-3: linalg.generic
func.func @depthwise(%x: memref<1x6x6x16xbf16>, %w: memref<16x3x3xbf16>, %y: memref<1x6x6x16x1xbf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  %zbf = arith.constant 0.0 : bf16
  scf.forall (%h, %c) = (0, 0) to (6, 16) step (1, 8) {
    %acc = memref.alloc() : memref<1x1x1x8x1xf32>
    linalg.generic {indexing_maps = [#id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%acc : memref<1x1x1x8x1xf32>) {
    ^bb0(%out: f32):
      linalg.yield %zero : f32
    }
    %wv = memref.subview %w[%c, 0, 0] [8, 3, 3] [1, 1, 1] : memref<16x3x3xbf16> to memref<8x3x3xbf16, strided<[9, 3, 1], offset: ?>>
    linalg.generic {indexing_maps = [#filter, #acc], iterator_types = ["reduction", "reduction", "parallel"]} ins(%wv : memref<8x3x3xbf16, strided<[9, 3, 1], offset: ?>>) outs(%acc : memref<1x1x1x8x1xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %fw = linalg.index 1 : index
      %g = linalg.index 2 : index
      %chan = affine.apply #ch(%g)[%c]
      %col = arith.subi %fw, %c1 : index
      %lo = arith.cmpi sge, %col, %c0 : index
      %hi = arith.cmpi slt, %col, %c6 : index
      %inside = arith.andi %lo, %hi : i1
      %v = scf.if %inside -> (bf16) {
        %l = memref.load %x[%c0, %h, %col, %chan] : memref<1x6x6x16xbf16>
        scf.yield %l : bf16
      } else {
        scf.yield %zbf : bf16
      }
      %a = arith.extf %v : bf16 to f32
      %b = arith.extf %in : bf16 to f32
      %r = math.fma %a, %b, %out : f32
      linalg.yield %r : f32
    }
    %yv = memref.subview %y[0, %h, 0, %c, 0] [1, 1, 1, 8, 1] [1, 1, 1, 1, 1] : memref<1x6x6x16x1xbf16> to memref<1x1x1x8x1xbf16, strided<[576, 96, 16, 1, 1], offset: ?>>
    linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%acc : memref<1x1x1x8x1xf32>) outs(%yv : memref<1x1x1x8x1xbf16, strided<[576, 96, 16, 1, 1], offset: ?>>) {
    ^bb0(%in: f32, %out: bf16):
      %t = arith.truncf %in : f32 to bf16
      linalg.yield %t : bf16
    }
  } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
  return
}

// An NCHW row: 4 columns, whose padding guard depends on the column. The
// vector read is taken where the guard holds at its first and last column,
// else each column is read under its own guard.
// CHECK-LABEL: func.func @padded_row(
// CHECK:         scf.for %[[FW:.+]] = %c0 to %c3 step %c1 {
// CHECK:           %[[FIRST:.+]] = arith.subi %[[FW]], %c1
// CHECK:           %[[G0:.+]] = arith.andi
// CHECK:           %[[LAST:.+]] = arith.addi %[[FW]], %c2
// CHECK:           %[[G3:.+]] = arith.andi
// CHECK:           %[[BOTH:.+]] = arith.andi %[[G0]], %[[G3]]
// CHECK:           %[[V:.+]] = scf.if %[[BOTH]] -> (vector<4xf16>) {
// CHECK:             vector.load %arg0[%[[FIRST]]] : memref<6xf16>, vector<4xf16>
// CHECK:           } else {
// CHECK-COUNT-4:     memref.load %arg0
// CHECK:             vector.from_elements
// CHECK:           }
// CHECK:           arith.extf %[[V]] : vector<4xf16> to vector<4xf32>
// CHECK:           vector.store %{{.+}}, %{{.+}}[%c0] : memref<4xf32, strided<[1], offset: ?>>, vector<4xf32>
#taps = affine_map<(d0, d1) -> (d0)>
#win = affine_map<(d0, d1) -> (d1)>
func.func @padded_row(%x: memref<6xf16>, %y: memref<8xf32>, %taps: memref<3xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zh = arith.constant 0.0 : f16
  scf.forall (%t) in (2) {
    %yv = memref.subview %y[%t] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#taps, #win], iterator_types = ["reduction", "parallel"]} ins(%taps : memref<3xi8>) outs(%yv : memref<4xf32, strided<[1], offset: ?>>) {
    ^bb0(%unused: i8, %out: f32):
      %fw = linalg.index 0 : index
      %ow = linalg.index 1 : index
      %s = arith.addi %ow, %fw : index
      %col = arith.subi %s, %c1 : index
      %lo = arith.cmpi sge, %col, %c0 : index
      %hi = arith.cmpi slt, %col, %c6 : index
      %inside = arith.andi %lo, %hi : i1
      %v = scf.if %inside -> (f16) {
        %l = memref.load %x[%col] : memref<6xf16>
        scf.yield %l : f16
      } else {
        scf.yield %zh : f16
      }
      %a = arith.extf %v : f16 to f32
      %r = arith.addf %a, %out : f32
      linalg.yield %r : f32
    }
  } {mapping = [#gpu.thread<linear_dim_0>]}
  return
}

// Left alone: an output row with stride 2; an index the replay does not
// model (a stride-phase test); a generic outside a thread loop.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     vector.
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     vector.
#row = affine_map<(d0) -> (d0)>
func.func @left_alone(%a: memref<4xf32>, %s: memref<4xf32, strided<[2]>>, %p: memref<4xf32>) {
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  scf.forall (%t) in (2) {
    linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel"]} ins(%a : memref<4xf32>) outs(%s : memref<4xf32, strided<[2]>>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    linalg.generic {indexing_maps = [#row], iterator_types = ["parallel"]} outs(%p : memref<4xf32>) {
    ^bb0(%out: f32):
      %i = linalg.index 0 : index
      %r = arith.remui %i, %c2 : index
      %c = arith.index_cast %r : index to i32
      %f = arith.sitofp %c : i32 to f32
      linalg.yield %f : f32
    }
  } {mapping = [#gpu.thread<linear_dim_0>]}
  linalg.generic {indexing_maps = [#row], iterator_types = ["parallel"]} outs(%a : memref<4xf32>) {
  ^bb0(%out: f32):
    linalg.yield %one : f32
  }
  return
}

// A thread's private tile is accessed as vectors by all its generics or by
// none: the fill could be a vector store, but the accumulation reading the
// tile cannot be replayed (a stride-phase test on the row's index), so
// both stay scalar generics.
// CHECK-LABEL: func.func @shared_tile(
// CHECK-NOT:     vector.
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT:     vector.
func.func @shared_tile(%p: memref<4xf32>) {
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%t) in (2) {
    %tile = memref.alloc() : memref<4xf32>
    linalg.generic {indexing_maps = [#row], iterator_types = ["parallel"]} outs(%tile : memref<4xf32>) {
    ^bb0(%out: f32):
      linalg.yield %zero : f32
    }
    linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel"]} ins(%p : memref<4xf32>) outs(%tile : memref<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %i = linalg.index 0 : index
      %r = arith.remui %i, %c2 : index
      %c = arith.index_cast %r : index to i32
      %f = arith.sitofp %c : i32 to f32
      %s = arith.addf %f, %out : f32
      linalg.yield %s : f32
    }
  } {mapping = [#gpu.thread<linear_dim_0>]}
  return
}
