// RUN: boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-gpu-distribute --canonicalize --cse | FileCheck %s
// RUN: boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-gpu-distribute="workgroup-size=64" --canonicalize --cse | FileCheck %s --check-prefix=WG64
// RUN: not boo-opt %s -split-input-file --boo-gpu-distribute 2>&1 | FileCheck %s --check-prefix=NOTARGET

// The chip is the module's #boo.target (boo-set-target); without one the
// pass stops.
// NOTARGET: error: boo-gpu-distribute: no #boo.target on the module (run boo-set-target with chip=<chip>, or a pipeline with chip=, first)

// conv + bias + relu (as boo-convert-to-linalg and elementwise fusion leave
// it): the epilogue generic is the root; one workgroup loop and one thread
// loop; the fill and the accumulation are fused into the thread tile (one
// output element per thread, by default), so the epilogue reads the
// accumulator tile, not memory. The padded input is never built: the
// accumulation reads the unpadded input under a bounds check, and
// accumulates with an FMA. The output's innermost dim (the 35 channels,
// loop d3) is linear_dim_0: consecutive threads, consecutive stores.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<1x5x5x3xf32> {bufferization.writable = false}
// CHECK-NOT:     tensor.pad
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0, 0) to (1, 5, 5, 35) step (1, 1, 5, 35)
// CHECK:           scf.forall ({{.*}}) in (1, 1, 5, 35)
// CHECK:             %[[FILL:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x1x1xf32>)
// CHECK:             %[[ACC:.+]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:          outs(%[[FILL]] : tensor<1x1x1x1xf32>)
// CHECK:               arith.cmpi sge
// CHECK:               arith.cmpi slt
// CHECK:               scf.if %{{.+}} -> (f32) {
// CHECK:                 tensor.extract %[[X]]
// CHECK:               } else {
// CHECK:               math.fma
// CHECK:             %[[EPI:.+]] = linalg.generic {{.*}} ins(%[[ACC]], %{{.+}} : tensor<1x1x1x1xf32>, tensor<1xf32>)
// CHECK:               arith.maximumf
// CHECK:             tensor.parallel_insert_slice %[[EPI]]
// CHECK:           } {mapping = [#gpu.thread<linear_dim_3>, #gpu.thread<linear_dim_2>, #gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_3>, #gpu.block<linear_dim_2>, #gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}
// CHECK-NOT:     linalg.generic
// WG64-LABEL: func.func @conv_bias_relu(
// WG64:         scf.forall ({{.*}}) = (0, 0, 0, 0) to (1, 5, 5, 35) step (1, 1, 1, 35)
// WG64:           scf.forall ({{.*}}) in (1, 1, 1, 35)
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv_bias_relu(%arg0: tensor<1x5x5x3xf32>, %arg1: tensor<35x3x3x3xf32>, %arg2: tensor<35xf32>) -> tensor<1x5x5x35xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index):
    tensor.yield %cst : f32
  } : tensor<1x5x5x3xf32> to tensor<1x7x7x3xf32>
  %0 = tensor.empty() : tensor<1x5x5x35xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x5x5x35xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1x5x5x35xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %arg1 : tensor<1x7x7x3xf32>, tensor<35x3x3x3xf32>) outs(%1 : tensor<1x5x5x35xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in, %in_0 : f32
    %6 = arith.addf %out, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<1x5x5x35xf32>
  %3 = tensor.empty() : tensor<1x5x5x35xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %arg2 : tensor<1x5x5x35xf32>, tensor<35xf32>) outs(%3 : tensor<1x5x5x35xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    %6 = arith.maximumf %5, %cst : f32
    linalg.yield %6 : f32
  } -> tensor<1x5x5x35xf32>
  return %4 : tensor<1x5x5x35xf32>
}

// -----

// Backward data, stride 2: the zero-stuffed (strided insert) and padded
// gradient and the flipped filter are read in place: the stride becomes a
// divisibility test, the flip an index expression. Nothing is materialized;
// the filter taps and output channels, which no remaining operand indexes,
// keep their bounds through a never-read i8 operand inside the kernel.
// CHECK-LABEL: func.func @bwd_data_s2(
// CHECK-SAME:    %[[DY:[a-z0-9]+]]: tensor<1x4x4x4xf32> {{.*}}, %[[W:[a-z0-9]+]]: tensor<4x3x3x3xf32>
// CHECK-NOT:     tensor.insert_slice
// CHECK-NOT:     tensor.pad
// CHECK:         scf.forall
// CHECK:           %[[BOUNDS:.+]] = tensor.empty() : tensor<4x3x3xi8>
// CHECK:           scf.forall
// CHECK:             linalg.generic {{.*}} ins(%[[BOUNDS]] : tensor<4x3x3xi8>) outs(%{{.+}} : tensor<1x1x1x1xf32>)
// CHECK:               scf.if
// CHECK:                 arith.remsi %{{.+}}, %c2
// CHECK:                 scf.if
// CHECK:                   tensor.extract %[[DY]]
// CHECK:               affine.apply #{{.+}}()[%{{.+}}]
// CHECK:               tensor.extract %[[W]]
// CHECK:               math.fma
// CHECK-NOT:     linalg.generic
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, -d2 + 2, -d3 + 2)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0) -> (d0)>
#map6 = affine_map<(d0, d1) -> (d0, d1)>
#map7 = affine_map<(d0, d1) -> (d0)>
func.func @bwd_data_s2(%arg0: tensor<1x4x4x4xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x4x7x7xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x4x7x7xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1x4x7x7xf32>
  %inserted_slice = tensor.insert_slice %arg0 into %1[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x4x4xf32> into tensor<1x4x7x7xf32>
  %padded = tensor.pad %inserted_slice low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
    tensor.yield %cst : f32
  } : tensor<1x4x7x7xf32> to tensor<1x4x9x9xf32>
  %2 = tensor.empty() : tensor<4x3x3x3xf32>
  %3 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<4x3x3x3xf32>) outs(%2 : tensor<4x3x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x3x3x3xf32>
  %4 = tensor.empty() : tensor<1x3x7x7xf32>
  %5 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%4 : tensor<1x3x7x7xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1x3x7x7xf32>
  %6 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %3 : tensor<1x4x9x9xf32>, tensor<4x3x3x3xf32>) outs(%5 : tensor<1x3x7x7xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %7 = arith.mulf %in, %in_0 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<1x3x7x7xf32>
  return %6 : tensor<1x3x7x7xf32>
}

// -----

// Layer norm with rows of at least 64 columns: a row-reduction kernel.
// Its generics (fills, the two reductions, the row ops and the root) are
// marked with one kernel id and left whole for boo-gpu-row-reductions,
// which builds them after bufferization (a workgroup per row).
// CHECK-LABEL: func.func @layer_norm(
// CHECK-NOT:     scf.forall
// CHECK-COUNT-2: iterator_types = ["parallel", "reduction"]{{.*}}boo.row_reduction_kernel = 0
// CHECK:         math.sqrt
// CHECK:         boo.row_reduction_kernel = 0 : i64, boo.row_reduction_root
// CHECK-NOT:     scf.forall
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, -d2 + 2, -d3 + 2)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0) -> (d0)>
#map6 = affine_map<(d0, d1) -> (d0, d1)>
#map7 = affine_map<(d0, d1) -> (d0)>
func.func @layer_norm(%arg0: tensor<300x64xf32>) -> (tensor<300x64xf32>, tensor<300xf32>, tensor<300xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %cst_1 = arith.constant 9.99999974E-6 : f32
  %cst_2 = arith.constant 1.562500e-02 : f32
  %0 = tensor.empty() : tensor<300xf32>
  %1 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel"]} outs(%0 : tensor<300xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<300xf32>
  %2 = linalg.generic {indexing_maps = [#map6, #map7], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<300x64xf32>) outs(%1 : tensor<300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.addf %out, %in : f32
    linalg.yield %12 : f32
  } -> tensor<300xf32>
  %3 = tensor.empty() : tensor<300xf32>
  %4 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%2 : tensor<300xf32>) outs(%3 : tensor<300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.mulf %in, %cst_2 : f32
    linalg.yield %12 : f32
  } -> tensor<300xf32>
  %5 = tensor.empty() : tensor<300xf32>
  %6 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel"]} outs(%5 : tensor<300xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<300xf32>
  %7 = linalg.generic {indexing_maps = [#map6, #map7, #map7], iterator_types = ["parallel", "reduction"]} ins(%arg0, %4 : tensor<300x64xf32>, tensor<300xf32>) outs(%6 : tensor<300xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %12 = arith.subf %in, %in_3 : f32
    %13 = arith.mulf %12, %12 : f32
    %14 = arith.addf %out, %13 : f32
    linalg.yield %14 : f32
  } -> tensor<300xf32>
  %8 = tensor.empty() : tensor<300xf32>
  %9 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%7 : tensor<300xf32>) outs(%8 : tensor<300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.mulf %in, %cst_2 : f32
    %13 = arith.addf %12, %cst_1 : f32
    %14 = math.sqrt %13 : f32
    %15 = arith.divf %cst_0, %14 : f32
    linalg.yield %15 : f32
  } -> tensor<300xf32>
  %10 = tensor.empty() : tensor<300x64xf32>
  %11 = linalg.generic {indexing_maps = [#map6, #map7, #map7, #map6], iterator_types = ["parallel", "parallel"]} ins(%arg0, %4, %9 : tensor<300x64xf32>, tensor<300xf32>, tensor<300xf32>) outs(%10 : tensor<300x64xf32>) {
  ^bb0(%in: f32, %in_3: f32, %in_4: f32, %out: f32):
    %12 = arith.subf %in, %in_3 : f32
    %13 = arith.mulf %12, %in_4 : f32
    linalg.yield %13 : f32
  } -> tensor<300x64xf32>
  return %11, %4, %9 : tensor<300x64xf32>, tensor<300xf32>, tensor<300xf32>
}

// -----

// Layer norm with short rows (32 < 64 columns): every thread normalizes whole rows (the normalized loop d1 is
// not split, so the row statistics are computed once), and the mean and rstd
// it computes are also stored: one kernel with three results. 300 rows in
// workgroups of 256 threads: the second workgroup's tile is partial.
// CHECK-LABEL: func.func @layer_norm_short_rows(
// CHECK:         %{{.+}}:3 = scf.forall (%[[R:.+]]) = (0) to (300) step (256)
// CHECK:           %[[N:.+]] = affine.min #{{.+}}(%[[R]])
// CHECK:           %{{.+}}:3 = scf.forall (%{{.+}}) in (%[[N]])
// CHECK-COUNT-2:     iterator_types = ["reduction", "parallel"]
// CHECK:             math.sqrt
// CHECK:             scf.forall.in_parallel
// CHECK-COUNT-3:       tensor.parallel_insert_slice
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>]}
// CHECK-NOT:     linalg.generic
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, -d2 + 2, -d3 + 2)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0) -> (d0)>
#map6 = affine_map<(d0, d1) -> (d0, d1)>
#map7 = affine_map<(d0, d1) -> (d0)>
func.func @layer_norm_short_rows(%arg0: tensor<300x32xf32>) -> (tensor<300x32xf32>, tensor<300xf32>, tensor<300xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %cst_1 = arith.constant 9.99999974E-6 : f32
  %cst_2 = arith.constant 1.562500e-02 : f32
  %0 = tensor.empty() : tensor<300xf32>
  %1 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel"]} outs(%0 : tensor<300xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<300xf32>
  %2 = linalg.generic {indexing_maps = [#map6, #map7], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<300x32xf32>) outs(%1 : tensor<300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.addf %out, %in : f32
    linalg.yield %12 : f32
  } -> tensor<300xf32>
  %3 = tensor.empty() : tensor<300xf32>
  %4 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%2 : tensor<300xf32>) outs(%3 : tensor<300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.mulf %in, %cst_2 : f32
    linalg.yield %12 : f32
  } -> tensor<300xf32>
  %5 = tensor.empty() : tensor<300xf32>
  %6 = linalg.generic {indexing_maps = [#map5], iterator_types = ["parallel"]} outs(%5 : tensor<300xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<300xf32>
  %7 = linalg.generic {indexing_maps = [#map6, #map7, #map7], iterator_types = ["parallel", "reduction"]} ins(%arg0, %4 : tensor<300x32xf32>, tensor<300xf32>) outs(%6 : tensor<300xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %12 = arith.subf %in, %in_3 : f32
    %13 = arith.mulf %12, %12 : f32
    %14 = arith.addf %out, %13 : f32
    linalg.yield %14 : f32
  } -> tensor<300xf32>
  %8 = tensor.empty() : tensor<300xf32>
  %9 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = ["parallel"]} ins(%7 : tensor<300xf32>) outs(%8 : tensor<300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %12 = arith.mulf %in, %cst_2 : f32
    %13 = arith.addf %12, %cst_1 : f32
    %14 = math.sqrt %13 : f32
    %15 = arith.divf %cst_0, %14 : f32
    linalg.yield %15 : f32
  } -> tensor<300xf32>
  %10 = tensor.empty() : tensor<300x32xf32>
  %11 = linalg.generic {indexing_maps = [#map6, #map7, #map7, #map6], iterator_types = ["parallel", "parallel"]} ins(%arg0, %4, %9 : tensor<300x32xf32>, tensor<300xf32>, tensor<300xf32>) outs(%10 : tensor<300x32xf32>) {
  ^bb0(%in: f32, %in_3: f32, %in_4: f32, %out: f32):
    %12 = arith.subf %in, %in_3 : f32
    %13 = arith.mulf %12, %in_4 : f32
    linalg.yield %13 : f32
  } -> tensor<300x32xf32>
  return %11, %4, %9 : tensor<300x32xf32>, tensor<300xf32>, tensor<300xf32>
}

// -----

// With a #boo.lowering_config on the accumulation generic (loops n, k, oh,
// ow, c, kh, kw), the epilogue root is tiled as the config says, through the
// accumulation's output map: workgroup tiles of 8 rows x 16 columns x 32
// channels, 4x4 (k x ow) elements per thread. A register tile must be
// static: the columns (10 = 16 clamped) would give partial thread tiles, so
// they get one column per thread with the same 4 threads (a workgroup tile
// of 4 columns); the channels keep 4 per thread. The accumulation's
// reduction loops come first, its 1x1x1x4 output tile last.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK:         scf.forall ({{.*}}) = (0, 0, 0, 0) to (1, 10, 10, 32) step (1, 8, 4, 32)
// CHECK:           scf.forall ({{.*}}) = (0, 0, 0, 0) to (1, %{{.+}}, %{{.+}}, 32) step (1, 1, 1, 4)
// CHECK-NOT:         scf.for
// CHECK:             linalg.generic {{.*}} outs(%{{.+}} : tensor<1x1x1x4xf32>)
// CHECK:             linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction", "parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:          outs(%{{.+}} : tensor<1x1x1x4xf32>)
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv_bias_relu(%arg0: tensor<1x10x10x16xf32>, %arg1: tensor<32x3x3x16xf32>, %arg2: tensor<32xf32>) -> tensor<1x10x10x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index):
    tensor.yield %cst : f32
  } : tensor<1x10x10x16xf32> to tensor<1x12x12x16xf32>
  %0 = tensor.empty() : tensor<1x10x10x32xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x10x10x32xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1x10x10x32xf32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2, #map3], boo.lowering_config = #boo.lowering_config<workgroup = [1, 32, 8, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 8, 1, 1], thread = [1, 4, 1, 4, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64>, iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %arg1 : tensor<1x12x12x16xf32>, tensor<32x3x3x16xf32>) outs(%1 : tensor<1x10x10x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in, %in_0 : f32
    %6 = arith.addf %out, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<1x10x10x32xf32>
  %3 = tensor.empty() : tensor<1x10x10x32xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %arg2 : tensor<1x10x10x32xf32>, tensor<32xf32>) outs(%3 : tensor<1x10x10x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    %6 = arith.maximumf %5, %cst : f32
    linalg.yield %6 : f32
  } -> tensor<1x10x10x32xf32>
  return %4 : tensor<1x10x10x32xf32>
}

// -----

// Backward data, stride 2 (#boo.stride_phases): the tap loops fh, fw (d5,
// d6) shrink from 3 to ceil(3 / 2) = 2 iterations in the loop-bounds
// operand; each iteration's first tap is r = (1 - i) mod 2, computed as
// (9 - i) mod 2 (9 = 1 + 2 * ceil(7 / 2) keeps it unsigned), the tap is
// r + 2u, and a tap past the filter leaves the accumulator unchanged.
// CHECK-LABEL: func.func @bwd_data_stride2(
// CHECK:         scf.forall
// CHECK:           %[[BOUNDS:.+]] = tensor.empty() : tensor<8x2x2xi8>
// CHECK:           scf.forall
// CHECK:             linalg.generic {{.*}} ins(%[[BOUNDS]] : tensor<8x2x2xi8>)
// CHECK:               %[[IH:.+]] = affine.apply
// CHECK:               %[[UH:.+]] = linalg.index 1 : index
// CHECK:               %[[DH:.+]] = arith.subi %c9, %[[IH]] : index
// CHECK:               %[[RH:.+]] = arith.remui %[[DH]], %c2 : index
// CHECK:               %[[SH:.+]] = arith.muli %[[UH]], %c2 : index
// CHECK:               %[[FH:.+]] = arith.addi %[[RH]], %[[SH]] : index
// CHECK:               %[[INH:.+]] = arith.cmpi ult, %[[FH]], %c3 : index
// CHECK:               %[[INW:.+]] = arith.cmpi ult, %{{.+}}, %c3 : index
// CHECK:               %[[VALID:.+]] = arith.andi %[[INH]], %[[INW]] : i1
// CHECK:               arith.select %[[VALID]], %[[FH]], %c0 : index
// CHECK:               %[[FMA:.+]] = math.fma
// CHECK:               %[[KEPT:.+]] = arith.select %[[VALID]], %[[FMA]], %{{.+}} : f32
// CHECK:               linalg.yield %[[KEPT]] : f32
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, -d1 + 2, -d2 + 2, d3)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
func.func @bwd_data_stride2(%arg0: tensor<1x4x4x8xf32>, %arg1: tensor<8x3x3x8xf32>) -> tensor<1x7x7x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x7x7x8xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x7x7x8xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1x7x7x8xf32>
  %inserted_slice = tensor.insert_slice %arg0 into %1[0, 0, 0, 0] [1, 4, 4, 8] [1, 2, 2, 1] : tensor<1x4x4x8xf32> into tensor<1x7x7x8xf32>
  %padded = tensor.pad %inserted_slice low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
    tensor.yield %cst : f32
  } : tensor<1x7x7x8xf32> to tensor<1x9x9x8xf32>
  %2 = tensor.empty() : tensor<8x3x3x8xf32>
  %3 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<8x3x3x8xf32>) outs(%2 : tensor<8x3x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x3x3x8xf32>
  %4 = tensor.empty() : tensor<1x7x7x8xf32>
  %5 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%4 : tensor<1x7x7x8xf32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<1x7x7x8xf32>
  %6 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %3 : tensor<1x9x9x8xf32>, tensor<8x3x3x8xf32>) outs(%5 : tensor<1x7x7x8xf32>) attrs =  {boo.stride_phases = #boo.stride_phases<input_loops = [2, 3], tap_loops = [5, 6], strides = [2, 2], dilations = [1, 1], offsets = [1, 1]>} {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %7 = arith.mulf %in, %in_0 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<1x7x7x8xf32>
  return %6 : tensor<1x7x7x8xf32>
}

// -----

// A single-row layer norm (every dim normalized) with f16 statistics: the
// roundings of mean and rstd to f16 come after the root and only feed
// results; they join the row-reduction kernel (before, as roots of their
// own, they took the statistics out of it, and a rank-0 root had no
// parallel loop to distribute).
// CHECK-LABEL: func.func @single_row_f16_stats(
// CHECK-NOT:     scf.forall
// CHECK:         iterator_types = ["parallel", "parallel"]{{.*}}boo.row_reduction_kernel = 0 : i64, boo.row_reduction_root
// CHECK:         %[[MEAN:.+]] = linalg.generic {{.*}} iterator_types = []{{.*}}outs(%{{.+}} : tensor<f16>) attrs =  {boo.row_reduction_kernel = 0 : i64}
// CHECK:         %[[RSTD:.+]] = linalg.generic {{.*}} iterator_types = []{{.*}}outs(%{{.+}} : tensor<f16>) attrs =  {boo.row_reduction_kernel = 0 : i64}
// CHECK:         return %{{.+}}, %[[MEAN]], %[[RSTD]]
#map = affine_map<() -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> ()>
func.func @single_row_f16_stats(%arg0: tensor<1x300xf16>, %arg1: tensor<1x300xf16>) -> (tensor<1x300xf16>, tensor<f16>, tensor<f16>) {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %cst_1 = arith.constant 9.99999974E-6 : f32
  %cst_2 = arith.constant 0.00333333341 : f32
  %0 = tensor.empty() : tensor<f32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = []} outs(%0 : tensor<f32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<f32>
  %2 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["reduction", "reduction"]} ins(%arg0 : tensor<1x300xf16>) outs(%1 : tensor<f32>) {
  ^bb0(%in: f16, %out: f32):
    %16 = arith.extf %in : f16 to f32
    %17 = arith.addf %out, %16 : f32
    linalg.yield %17 : f32
  } -> tensor<f32>
  %3 = tensor.empty() : tensor<f32>
  %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%2 : tensor<f32>) outs(%3 : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %16 = arith.mulf %in, %cst_2 : f32
    linalg.yield %16 : f32
  } -> tensor<f32>
  %5 = tensor.empty() : tensor<f32>
  %6 = linalg.generic {indexing_maps = [#map], iterator_types = []} outs(%5 : tensor<f32>) {
  ^bb0(%out: f32):
    linalg.yield %cst : f32
  } -> tensor<f32>
  %7 = linalg.generic {indexing_maps = [#map1, #map2, #map2], iterator_types = ["reduction", "reduction"]} ins(%arg0, %4 : tensor<1x300xf16>, tensor<f32>) outs(%6 : tensor<f32>) {
  ^bb0(%in: f16, %in_3: f32, %out: f32):
    %16 = arith.extf %in : f16 to f32
    %17 = arith.subf %16, %in_3 : f32
    %18 = arith.mulf %17, %17 : f32
    %19 = arith.addf %out, %18 : f32
    linalg.yield %19 : f32
  } -> tensor<f32>
  %8 = tensor.empty() : tensor<f32>
  %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%7 : tensor<f32>) outs(%8 : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %16 = arith.mulf %in, %cst_2 : f32
    %17 = arith.addf %16, %cst_1 : f32
    %18 = math.sqrt %17 : f32
    %19 = arith.divf %cst_0, %18 : f32
    linalg.yield %19 : f32
  } -> tensor<f32>
  %10 = tensor.empty() : tensor<1x300xf16>
  %11 = linalg.generic {indexing_maps = [#map1, #map2, #map2, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %4, %9, %arg1 : tensor<1x300xf16>, tensor<f32>, tensor<f32>, tensor<1x300xf16>) outs(%10 : tensor<1x300xf16>) {
  ^bb0(%in: f16, %in_3: f32, %in_4: f32, %in_5: f16, %out: f16):
    %16 = arith.extf %in : f16 to f32
    %17 = arith.subf %16, %in_3 : f32
    %18 = arith.mulf %17, %in_4 : f32
    %19 = arith.extf %in_5 : f16 to f32
    %20 = arith.mulf %18, %19 : f32
    %21 = arith.truncf %20 : f32 to f16
    linalg.yield %21 : f16
  } -> tensor<1x300xf16>
  %12 = tensor.empty() : tensor<f16>
  %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%4 : tensor<f32>) outs(%12 : tensor<f16>) {
  ^bb0(%in: f32, %out: f16):
    %16 = arith.truncf %in : f32 to f16
    linalg.yield %16 : f16
  } -> tensor<f16>
  %14 = tensor.empty() : tensor<f16>
  %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%9 : tensor<f32>) outs(%14 : tensor<f16>) {
  ^bb0(%in: f32, %out: f16):
    %16 = arith.truncf %in : f32 to f16
    linalg.yield %16 : f16
  } -> tensor<f16>
  return %11, %13, %15 : tensor<1x300xf16>, tensor<f16>, tensor<f16>
}

// -----

// No parallel loop (an element-wise op on rank-0 tensors): one workgroup of
// one thread.
// CHECK-LABEL: func.func @scalar_relu(
// CHECK:         scf.forall ({{.*}}) in (1) shared_outs
// CHECK:           scf.forall ({{.*}}) in (1) shared_outs
// CHECK:             linalg.generic {{.*}} iterator_types = []
// CHECK:             tensor.parallel_insert_slice %{{.+}} into %{{.+}}[] [] [] : tensor<f32> into tensor<f32>
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_0>]}
#map = affine_map<() -> ()>
func.func @scalar_relu(%arg0: tensor<f32>) -> tensor<f32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<f32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%arg0 : tensor<f32>) outs(%0 : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = arith.maximumf %in, %cst : f32
    linalg.yield %2 : f32
  } -> tensor<f32>
  return %1 : tensor<f32>
}
