// RUN: boo-opt %s -split-input-file -verify-diagnostics -boo-gpu-row-reductions | FileCheck %s

// Layer norm over rows of 99 columns (bufferized, as boo-gpu-distribute
// marked it): one workgroup per row (4) and 128 threads (whole waves
// covering the columns). 99 is odd, so a thread takes one column at a time
// (no chunks of consecutive columns): one column per thread, and threads
// 99-127 have none (guarded). The row is read from memory once: the first reduction
// keeps each thread's x in a private array that the centred sum of squares
// and the normalization read again. Each reduction folds the thread's
// columns from the identity, then gpu.all_reduce combines the threads, then
// the init (the fill's 0, reached through the copy bufferization put between
// them) goes in. The mean and rstd results are stored once per row by
// thread 0. Nothing of the kernel stays outside the loops.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:[^:]+]]: memref<4x99xf32>, %[[Y:[^:]+]]: memref<4x99xf32>, %[[MEAN:[^:]+]]: memref<4xf32>, %[[RSTD:[^:]+]]: memref<4xf32>)
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
  func.func @layer_norm(%arg0: memref<4x99xf32>, %arg1: memref<4x99xf32>, %arg2: memref<4xf32>, %arg3: memref<4xf32>) {
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
    linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<4x99xf32>) outs(%alloc : memref<4xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [256, 0], reduction = [0, 1], thread = [4, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>, boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %out, %in : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%alloc : memref<4xf32>) outs(%arg2 : memref<4xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %in, %cst_2 : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg2 : memref<4x99xf32>, memref<4xf32>) outs(%arg3 : memref<4xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
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
    linalg.generic {indexing_maps = [#map1, #map2, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg2, %arg3 : memref<4x99xf32>, memref<4xf32>, memref<4xf32>) outs(%arg1 : memref<4x99xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64, boo.row_reduction_root} {
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
// all three loops). A thread takes chunks of 4 consecutive f32 columns (16
// bytes): x is read one vector.load per chunk and y written one
// vector.store per chunk (wide loads).
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME:    %[[X:[^:]+]]: memref<2x4096xf32>
// CHECK:         scf.forall (%{{.+}}) in (2) {
// CHECK:           scf.forall (%[[TID:.+]]) in (256) {
// CHECK-NOT:         memref.alloca
// CHECK:             scf.for %{{.+}} = %[[TID]] to %c1024 step %c256 iter_args
// CHECK:               %[[V:.+]] = vector.load %[[X]]{{.+}} : memref<2x4096xf32>, vector<4xf32>
// CHECK-COUNT-4:       vector.extract %[[V]]
// CHECK:             gpu.all_reduce add
// CHECK:             scf.for %{{.+}} = %[[TID]] to %c1024{{.*}} step %c256{{.*}} iter_args
// CHECK:               vector.load %[[X]]
// CHECK:             gpu.all_reduce add
// CHECK:             scf.for %{{.+}} = %[[TID]] to %c1024{{.*}} step
// CHECK:               vector.load %[[X]]
// CHECK:               %[[OUT:.+]] = vector.from_elements
// CHECK:               vector.store %[[OUT]], %{{.+}} : memref<2x4096xf32>, vector<4xf32>
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

// bf16 rows of 2048 columns: chunks of 8 consecutive columns (16 bytes), so
// 256 chunks for 256 threads, one each: few enough to keep in registers.
// The first pass reads a thread's chunk with one vector.load and keeps its
// 8 values in the private array (slots j * 8 + v); the later passes read
// them from there, and the normalization writes the chunk with one
// vector.store.
// CHECK-LABEL: func.func @layer_norm_bf16(
// CHECK-SAME:    %[[X:[^:]+]]: memref<2x2048xbf16>, %[[Y:[^:]+]]: memref<2x2048xbf16>
// CHECK:         scf.forall (%{{.+}}) in (2) {
// CHECK:           scf.forall (%[[TID:.+]]) in (256) {
// CHECK:             %[[CACHE:.+]] = memref.alloca() : memref<8xbf16>
// CHECK:             scf.for
// CHECK:               %[[V:.+]] = vector.load %[[X]]{{.+}} : memref<2x2048xbf16>, vector<8xbf16>
// CHECK-COUNT-8:       memref.store %{{.+}}, %[[CACHE]]
// CHECK:             gpu.all_reduce add
// CHECK:             scf.for
// CHECK-NOT:           vector.load %[[X]]
// CHECK-COUNT-8:       memref.load %[[CACHE]]
// CHECK:             gpu.all_reduce add
// CHECK:             scf.for
// CHECK-NOT:           vector.load %[[X]]
// CHECK:               %[[OUT:.+]] = vector.from_elements {{.+}} : vector<8xbf16>
// CHECK:               vector.store %[[OUT]], %[[Y]]{{.+}} : memref<2x2048xbf16>, vector<8xbf16>
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @layer_norm_bf16(%arg0: memref<2x2048xbf16>, %arg1: memref<2x2048xbf16>, %arg2: memref<2xf32>, %arg3: memref<2xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 9.99999974E-6 : f32
    %cst_2 = arith.constant 4.8828125E-4 : f32
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%arg3 : memref<2xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<2xf32>
    memref.copy %arg3, %alloc : memref<2xf32> to memref<2xf32>
    linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : memref<2x2048xbf16>) outs(%alloc : memref<2xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [64, 0], reduction = [0, 1], thread = [1, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>, boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: bf16, %out: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.addf %out, %0 : f32
      linalg.yield %1 : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%alloc : memref<2xf32>) outs(%arg2 : memref<2xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %in, %cst_2 : f32
      linalg.yield %0 : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg2 : memref<2x2048xbf16>, memref<2xf32>) outs(%arg3 : memref<2xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: bf16, %in_3: f32, %out: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.subf %0, %in_3 : f32
      %2 = math.fma %1, %1, %out : f32
      linalg.yield %2 : f32
    }
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg3 : memref<2xf32>) outs(%arg3 : memref<2xf32>) attrs =  {boo.row_reduction_kernel = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.mulf %in, %cst_2 : f32
      %1 = arith.addf %0, %cst_1 : f32
      %2 = math.sqrt %1 : f32
      %3 = arith.divf %cst_0, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg2, %arg3 : memref<2x2048xbf16>, memref<2xf32>, memref<2xf32>) outs(%arg1 : memref<2x2048xbf16>) attrs =  {boo.row_reduction_kernel = 0 : i64, boo.row_reduction_root} {
    ^bb0(%in: bf16, %in_3: f32, %in_4: f32, %out: bf16):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.subf %0, %in_3 : f32
      %2 = arith.mulf %1, %in_4 : f32
      %3 = arith.truncf %2 : f32 to bf16
      linalg.yield %3 : bf16
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
