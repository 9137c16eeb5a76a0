// RUN: not boo-opt %s -split-input-file --boo-gpu-mma-kernels 2>&1 | FileCheck %s

// Kernels boo-gpu-mma-kernels cannot build are reported at the
// accumulation, never skipped.

// A max-reduction is not a multiply-accumulate.
// CHECK: error: 'linalg.generic' op boo-gpu-mma-kernels: the body is not an accumulation of a product
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @not_a_product(%arg0: memref<1x1x40x64xbf16>, %arg1: memref<48x1x1x64xbf16>, %arg2: memref<48xbf16>, %arg3: memref<1x1x40x48xbf16>) {
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
      %3 = arith.maximumf %out, %2 : f32
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

// f32 operands cannot feed a bf16 intrinsic.
// CHECK: error: 'linalg.generic' op boo-gpu-mma-kernels: the factors are not bf16 values, as 'MFMA_F32_16x16x16_BF16' needs
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @f32_factors(%arg0: memref<1x1x40x64xf32>, %arg1: memref<48x1x1x64xf32>, %arg2: memref<48xbf16>, %arg3: memref<1x1x40x48xbf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x40x48xf32>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc : memref<1x1x40x48xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : memref<1x1x40x64xf32>, memref<48x1x1x64xf32>) outs(%alloc : memref<1x1x40x48xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>} {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %2 = arith.mulf %in, %in_0 : f32
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

// The accumulator has no initial value.
// CHECK: error: 'linalg.generic' op boo-gpu-mma-kernels: the accumulator must be filled with an f32 value before the accumulation
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @no_fill(%arg0: memref<1x1x40x64xbf16>, %arg1: memref<48x1x1x64xbf16>, %arg2: memref<48xbf16>, %arg3: memref<1x1x40x48xbf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x40x48xf32>
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

// split_k must divide the reduction steps (here 2: K = 64 in tiles of 32).
// CHECK: error: 'linalg.generic' op boo-gpu-mma-kernels: split_k 3 does not divide the 2 reduction steps
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @split_k_uneven(%arg0: memref<1x1x40x64xbf16>, %arg1: memref<48x1x1x64xbf16>, %arg2: memref<48xbf16>, %arg3: memref<1x1x40x48xbf16>) {
    %cst = arith.constant 0.000000e+00 : f32
    %alloc = memref.alloc() {alignment = 64 : i64} : memref<1x1x40x48xf32>
    linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%alloc : memref<1x1x40x48xf32>) {
    ^bb0(%out: f32):
      linalg.yield %cst : f32
    }
    linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : memref<1x1x40x64xbf16>, memref<48x1x1x64xbf16>) outs(%alloc : memref<1x1x40x48xf32>) attrs =  {boo.lowering_config = #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2, split_k = 3>} {
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
