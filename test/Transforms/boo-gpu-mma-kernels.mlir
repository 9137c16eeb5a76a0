// RUN: boo-opt %s -split-input-file --boo-gpu-mma-kernels --canonicalize --cse | FileCheck %s
// RUN: not boo-opt %s -split-input-file --boo-gpu-mma-kernels=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=CHIP

// The chip is the module's #boo.target (or the option; they must agree).
// CHIP: error: boo-gpu-mma-kernels: chip=gfx90a but the module targets gfx942

// Bufferized conv (1x1, 40 output columns x 48 channels, K = 64 input
// channels) + bias + relu, as boo-to-rocdl leaves it for this pass: the fill,
// the accumulation with its MMA config (M = ow, N = k, K = c; 32x32
// workgroup tiles, K tiles of 32, one subgroup, double-buffered LDS) and
// the epilogue. One workgroup per 32x32 tile (2 x 2, partial at the edges);
// the first K tile is staged before the loop, each step stages the next
// one into the other buffer while 2 x 2 MFMA tiles x 2 k-slices consume the
// current one; the epilogue (bias, relu, rounding) runs on each lane's
// results inside the problem and stores once. Nothing else is left.
// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-NOT:     linalg.generic
// CHECK:         scf.forall ({{.*}}) in (1, 2, 1, 2)
// CHECK:           %[[A:.+]] = memref.alloc() : memref<2x32x32xbf16, #gpu.address_space<workgroup>>
// CHECK:           %[[B:.+]] = memref.alloc() : memref<2x32x32xbf16, #gpu.address_space<workgroup>>
// CHECK:           scf.forall ({{.*}}) in (64)
// CHECK:             memref.store {{.*}}, %[[A]][%c0,
// CHECK:             memref.store {{.*}}, %[[B]][%c0,
// CHECK:             gpu.barrier
// CHECK:             scf.for {{.*}} to %c2 {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>)
// CHECK:               scf.if
// CHECK:                 memref.store {{.*}}, %[[A]]
// CHECK:                 memref.store {{.*}}, %[[B]]
// CHECK-COUNT-2:       vector.load %[[A]]{{.*}} vector<4xbf16>
// CHECK-COUNT-2:       vector.load %[[B]]{{.*}} vector<4xbf16>
// CHECK-COUNT-4:       amdgpu.mfma 16x16x16
// CHECK-COUNT-4:       amdgpu.mfma 16x16x16
// CHECK:               gpu.barrier
// CHECK:             scf.if
// CHECK:               vector.extract
// CHECK:               arith.addf
// CHECK:               arith.maximumf
// CHECK:               arith.truncf
// CHECK:               memref.store {{.*}}, %arg3
// CHECK:           } {mapping = [#gpu.thread<linear_dim_0>]}
// CHECK:         } {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>, #gpu.block<linear_dim_2>, #gpu.block<linear_dim_3>]}
// CHECK-NOT:     memref.alloc()
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @conv_bias_relu(%arg0: memref<1x1x40x64xbf16>, %arg1: memref<48x1x1x64xbf16>, %arg2: memref<48xbf16>, %arg3: memref<1x1x40x48xbf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x40x48xf32>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc : memref<1x1x40x48xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : memref<1x1x40x64xbf16>, memref<48x1x1x64xbf16>) outs(%alloc : memref<1x1x40x48xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>} {
    ^bb0(%in: bf16, %in_0: bf16, %out: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.extf %in_0 : bf16 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc, %arg2 : memref<1x1x40x48xf32>, memref<48xbf16>) outs(%arg3 : memref<1x1x40x48xbf16>) {
    ^bb0(%in: f32, %in_0: bf16, %out: bf16):
      %0 = arith.extf %in_0 : bf16 to f32
      %1 = arith.addf %in, %0 : f32
      %2 = arith.maximumf %1, %cst : f32
      %3 = arith.truncf %2 : f32 to bf16
      linalg.yield %3 : bf16
    }
    return
  }
}

// -----

// pipeline_depth = 1: one LDS buffer; every step synchronizes, stages,
// synchronizes and computes.
// CHECK-LABEL: func.func @single_buffer(
// CHECK:         memref.alloc() : memref<1x32x32xbf16, #gpu.address_space<workgroup>>
// CHECK:         scf.for {{.*}} to %c2
// CHECK-NEXT:      gpu.barrier
// CHECK:           memref.store
// CHECK:           gpu.barrier
// CHECK:           amdgpu.mfma
// CHECK-NOT:       gpu.barrier
// CHECK:           scf.yield
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @single_buffer(%arg0: memref<1x1x40x64xbf16>, %arg1: memref<48x1x1x64xbf16>, %arg2: memref<48xbf16>, %arg3: memref<1x1x40x48xbf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x40x48xf32>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc : memref<1x1x40x48xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : memref<1x1x40x64xbf16>, memref<48x1x1x64xbf16>) outs(%alloc : memref<1x1x40x48xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 1>} {
    ^bb0(%in: bf16, %in_0: bf16, %out: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.extf %in_0 : bf16 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc, %arg2 : memref<1x1x40x48xf32>, memref<48xbf16>) outs(%arg3 : memref<1x1x40x48xbf16>) {
    ^bb0(%in: f32, %in_0: bf16, %out: bf16):
      %0 = arith.extf %in_0 : bf16 to f32
      %1 = arith.addf %in, %0 : f32
      %2 = arith.maximumf %1, %cst : f32
      %3 = arith.truncf %2 : f32 to bf16
      linalg.yield %3 : bf16
    }
    return
  }
}

// -----

// No promoted operands: the fragments are read from global memory, each
// element guarded (0 outside the problem); no LDS, no barrier.
// CHECK-LABEL: func.func @unstaged(
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     gpu.barrier
// CHECK:         vector.from_elements {{.*}} : vector<4xbf16>
// CHECK:         amdgpu.mfma 16x16x16
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @unstaged(%arg0: memref<1x1x40x64xbf16>, %arg1: memref<48x1x1x64xbf16>, %arg2: memref<48xbf16>, %arg3: memref<1x1x40x48xbf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x40x48xf32>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc : memref<1x1x40x48xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : memref<1x1x40x64xbf16>, memref<48x1x1x64xbf16>) outs(%alloc : memref<1x1x40x48xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4]>} {
    ^bb0(%in: bf16, %in_0: bf16, %out: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.extf %in_0 : bf16 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc, %arg2 : memref<1x1x40x48xf32>, memref<48xbf16>) outs(%arg3 : memref<1x1x40x48xbf16>) {
    ^bb0(%in: f32, %in_0: bf16, %out: bf16):
      %0 = arith.extf %in_0 : bf16 to f32
      %1 = arith.addf %in, %0 : f32
      %2 = arith.maximumf %1, %cst : f32
      %3 = arith.truncf %2 : f32 to bf16
      linalg.yield %3 : bf16
    }
    return
  }
}

// -----

// RDNA3 (wave32): amdgpu.wmma, 16 inputs per lane (all of K), 8 results.
// CHECK-LABEL: func.func @wmma(
// CHECK:         scf.forall ({{.*}}) in (32)
// CHECK:           vector.load {{.*}} vector<16xbf16>
// CHECK:           amdgpu.wmma 16x16x16 {{.*}} : vector<16xbf16>, vector<16xbf16>, vector<8xf32>
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
module attributes {boo.target = #boo.target<chip = "gfx1100">} {
  func.func @wmma(%arg0: memref<1x1x40x64xbf16>, %arg1: memref<48x1x1x64xbf16>, %arg2: memref<48xbf16>, %arg3: memref<1x1x40x48xbf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x40x48xf32>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc : memref<1x1x40x48xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : memref<1x1x40x64xbf16>, memref<48x1x1x64xbf16>) outs(%alloc : memref<1x1x40x48xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [32, 1, 1], subgroup_size = 32, mma = "WMMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>} {
    ^bb0(%in: bf16, %in_0: bf16, %out: f32):
      %0 = arith.extf %in : bf16 to f32
      %1 = arith.extf %in_0 : bf16 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %out, %2 : f32
      linalg.yield %3 : f32
    }
    linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%alloc, %arg2 : memref<1x1x40x48xf32>, memref<48xbf16>) outs(%arg3 : memref<1x1x40x48xbf16>) {
    ^bb0(%in: f32, %in_0: bf16, %out: bf16):
      %0 = arith.extf %in_0 : bf16 to f32
      %1 = arith.addf %in, %0 : f32
      %2 = arith.maximumf %1, %cst : f32
      %3 = arith.truncf %2 : f32 to bf16
      linalg.yield %3 : bf16
    }
    return
  }
}
