// RUN: boo-opt %s -split-input-file -boo-set-target=chip=gfx942 -boo-gpu-lower-mma -verify-diagnostics

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

gpu.module @kernels {
  gpu.func @wmma_on_cdna(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) kernel {
    // expected-error@+1 {{MMA intrinsic 'WMMA_F32_16x16x16_F16' is not available on gfx942}}
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<16x16xf16>, memref<16x16xf16>) outs(%c : memref<16x16xf32>) attrs = {boo.mma = "WMMA_F32_16x16x16_F16"} {
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

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

gpu.module @kernels {
  gpu.func @unknown(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) kernel {
    // expected-error@+1 {{unknown MMA intrinsic 'MFMA_F32_8x8x8_F16'}}
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<16x16xf16>, memref<16x16xf16>) outs(%c : memref<16x16xf32>) attrs = {boo.mma = "MFMA_F32_8x8x8_F16"} {
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

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

gpu.module @kernels {
  gpu.func @shape(%a: memref<16x32xf16>, %b: memref<32x16xf16>, %c: memref<16x16xf32>) kernel {
    // expected-error@+1 {{tile 16x16x32 does not match MFMA_F32_16x16x16_F16}}
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<16x32xf16>, memref<32x16xf16>) outs(%c : memref<16x16xf32>) attrs = {boo.mma = "MFMA_F32_16x16x16_F16"} {
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

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

gpu.module @kernels {
  gpu.func @types(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>, %c: memref<16x16xf32>) kernel {
    // expected-error@+1 {{operand types do not match MFMA_F32_16x16x16_F16}}
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>) outs(%c : memref<16x16xf32>) attrs = {boo.mma = "MFMA_F32_16x16x16_F16"} {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xe = arith.extf %x : bf16 to f32
      %ye = arith.extf %y : bf16 to f32
      %p = arith.mulf %xe, %ye : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    gpu.return
  }
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

gpu.module @kernels {
  gpu.func @not_mac(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) kernel {
    // expected-error@+1 {{boo.mma needs a multiply-accumulate contraction with one reduction loop}}
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<16x16xf16>, memref<16x16xf16>) outs(%c : memref<16x16xf32>) attrs = {boo.mma = "MFMA_F32_16x16x16_F16"} {
    ^bb0(%x: f16, %y: f16, %acc: f32):
      %xe = arith.extf %x : f16 to f32
      %s = arith.maximumf %acc, %xe : f32
      linalg.yield %s : f32
    }
    gpu.return
  }
}
