// RUN: boo-opt %s -split-input-file -verify-diagnostics -boo-gpu-row-reductions | FileCheck %s

// Layer norm over rows of 100 columns (bufferized, as boo-gpu-distribute
// marked it): one workgroup per row (4) and 128 threads (whole waves
// covering the columns), so one column per thread, and threads 100-127 have
// none (guarded). The row is read from memory once: the first reduction
// keeps each thread's x in a private array that the centred sum of squares
// and the normalization read again. Each reduction folds the thread's
// columns from the identity, then gpu.all_reduce combines the threads, then
// the init (the fill's 0, reached through the copy bufferization put between
// them) goes in. The mean and rstd results are stored once per row by
// thread 0. Nothing of the kernel stays outside the loops.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:[^:]+]]: memref<4x100xf32>, %[[Y:[^:]+]]: memref<4x100xf32>, %[[MEAN:[^:]+]]: memref<4xf32>, %[[RSTD:[^:]+]]: memref<4xf32>)
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     memref.copy
// CHECK:         scf.forall (%[[ROW:.+]]) in (4) {
// CHECK:           scf.forall (%[[TID:.+]]) in (128) {
// CHECK:             %[[CACHE:.+]] = memref.alloca() : memref<1xf32>
// CHECK:             %[[SUM:.+]] = scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32) {
// CHECK:               %[[COL:.+]] = arith.addi %[[TID]], %{{.+}} : index
// CHECK:               %[[IN:.+]] = arith.cmpi ult, %[[COL]], %{{.+}} : index
// CHECK:               scf.if %[[IN]] -> (f32) {
// CHECK:                 %[[V:.+]] = memref.load %[[X]]
// CHECK:                 memref.store %[[V]], %[[CACHE]][%[[J]]]
// CHECK:                 arith.addf %[[ACC]], %[[V]]
// CHECK:               } else {
// CHECK:                 scf.yield %[[ACC]]
// CHECK:             %[[ALL:.+]] = gpu.all_reduce add %[[SUM]] uniform
// CHECK:             %[[TOTAL:.+]] = arith.addf %{{.+}}, %[[ALL]] : f32
// CHECK:             %[[M:.+]] = arith.mulf %[[TOTAL]]
// CHECK:             %[[SQ:.+]] = scf.for
// CHECK-NOT:           memref.load %[[X]]
// CHECK:               %[[C:.+]] = memref.load %[[CACHE]]
// CHECK:               arith.subf %[[C]], %[[M]]
// CHECK:               math.fma
// CHECK:             gpu.all_reduce add %[[SQ]] uniform
// CHECK:             math.sqrt
// CHECK:             %[[R:.+]] = arith.divf
// CHECK:             scf.for
// CHECK-NOT:           memref.load %[[X]]
// CHECK:               memref.load %[[CACHE]]
// CHECK:               memref.store %{{.+}}, %[[Y]]
// CHECK:             %[[FIRST:.+]] = arith.cmpi eq, %[[TID]], %{{.+}} : index
// CHECK:             scf.if %[[FIRST]] {
// CHECK-DAG:           memref.store %[[R]], %[[RSTD]][%[[ROW]]]
// CHECK-DAG:           memref.store %[[M]], %[[MEAN]][%[[ROW]]]
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>]}
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @layer_norm(%arg0: memref<4x100xf32>, %arg1: memref<4x100xf32>, %arg2: memref<4xf32>, %arg3: memref<4xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 9.99999974E-6 : f32
    %cst_2 = arith.constant 0.00999999977 : f32
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%arg3 : memref<4xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
    memref.copy %arg3, %alloc : memref<4xf32> to memref<4xf32>
    linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<4x100xf32>) outs(%alloc : memref<4xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [256, 0], reduction = [0, 1], thread = [4, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>, boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %out, %in : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%alloc : memref<4xf32>) outs(%arg2 : memref<4xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %in, %cst_2 : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg2 : memref<4x100xf32>, memref<4xf32>) outs(%arg3 : memref<4xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %0 = arith.subf %in, %in_3 : f32
      %1 = math.fma %0, %0, %out : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg3 : memref<4xf32>) outs(%arg3 : memref<4xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %in, %cst_2 : f32
      %1 = arith.addf %0, %cst_1 : f32
      %2 = math.sqrt %1 : f32
      %3 = arith.divf %cst_0, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg2, %arg3 : memref<4x100xf32>, memref<4xf32>, memref<4xf32>) outs(%arg1 : memref<4x100xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64, boo.row_reduction_root} {
    ^bb0(%in: f32, %in_3: f32, %in_4: f32, %out: f32):
      %0 = arith.subf %in, %in_3 : f32
      %1 = arith.mulf %0, %in_4 : f32
      linalg.yield %1 : f32
    }
    return
  }
}

// -----

// Rows of 4096 columns: 256 threads, 16 columns each, more than are kept in
// registers, so each pass strides over the row from memory (x is read in
// all three loops).
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:[^:]+]]: memref<2x4096xf32>
// CHECK:         scf.forall (%{{.+}}) in (2) {
// CHECK:           scf.forall (%[[TID:.+]]) in (256) {
// CHECK-NOT:         memref.alloca
// CHECK:             scf.for %{{.+}} = %[[TID]] to %{{.+}} step %{{.+}} iter_args
// CHECK:               memref.load %[[X]]
// CHECK:             gpu.all_reduce add
// CHECK:             scf.for %{{.+}} = %[[TID]] to %{{.+}} step %{{.+}} iter_args
// CHECK:               memref.load %[[X]]
// CHECK:             gpu.all_reduce add
// CHECK:             scf.for %{{.+}} = %[[TID]] to
// CHECK:               memref.load %[[X]]
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @layer_norm(%arg0: memref<2x4096xf32>, %arg1: memref<2x4096xf32>, %arg2: memref<2xf32>, %arg3: memref<2xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 9.99999974E-6 : f32
    %cst_2 = arith.constant 2.44140625E-4 : f32
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%arg3 : memref<2xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2xf32>
    memref.copy %arg3, %alloc : memref<2xf32> to memref<2xf32>
    linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<2x4096xf32>) outs(%alloc : memref<2xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [64, 0], reduction = [0, 1], thread = [1, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>, boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %out, %in : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%alloc : memref<2xf32>) outs(%arg2 : memref<2xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %in, %cst_2 : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg2 : memref<2x4096xf32>, memref<2xf32>) outs(%arg3 : memref<2xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %0 = arith.subf %in, %in_3 : f32
      %1 = math.fma %0, %0, %out : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg3 : memref<2xf32>) outs(%arg3 : memref<2xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %in, %cst_2 : f32
      %1 = arith.addf %0, %cst_1 : f32
      %2 = math.sqrt %1 : f32
      %3 = arith.divf %cst_0, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg2, %arg3 : memref<2x4096xf32>, memref<2xf32>, memref<2xf32>) outs(%arg1 : memref<2x4096xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64, boo.row_reduction_root} {
    ^bb0(%in: f32, %in_3: f32, %in_4: f32, %out: f32):
      %0 = arith.subf %in, %in_3 : f32
      %1 = arith.mulf %0, %in_4 : f32
      linalg.yield %1 : f32
    }
    return
  }
}

// -----

// A reduction whose combiner has no workgroup-wide counterpart (a product)
// cannot be built.
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @product(%x: memref<4x100xf32>, %y: memref<4x100xf32>, %p: memref<4xf32>) {
    // expected-error@+1 {{boo-gpu-row-reductions: not a row op, row reduction or column op of the kernel}}
    linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x100xf32>) outs(%p : memref<4xf32>) attrs = {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %out, %in : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%x, %p : memref<4x100xf32>, memref<4xf32>) outs(%y : memref<4x100xf32>) attrs = {boo.row_reduction_kernel = 0 : i64, boo.row_reduction_root} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.mulf %in, %in_0 : f32
      linalg.yield %0 : f32
    }
    return
  }
}
