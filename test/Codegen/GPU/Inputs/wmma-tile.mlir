// Input of boo-gpu-lower-mma.mlir's RDNA runs (not a test by itself).
gpu.module @kernels {
  gpu.func @tile_f16(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) kernel {
    linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<16x16xf16>, memref<16x16xf16>) outs(%c : memref<16x16xf32>) attrs = {boo.mma = "WMMA_F32_16x16x16_F16"} {
    ^bb0(%x: f16, %y: f16, %acc: f32):
      %xe = arith.extf %x : f16 to f32
      %ye = arith.extf %y : f16 to f32
      %p = arith.mulf %xe, %ye : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    gpu.return
  }
}
