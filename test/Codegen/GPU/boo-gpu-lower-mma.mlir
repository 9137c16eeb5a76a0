// RUN: boo-opt %s -split-input-file -boo-set-target=chip=gfx942 -boo-gpu-lower-mma | FileCheck %s --check-prefix=MFMA
// RUN: boo-opt %S/Inputs/wmma-tile.mlir -boo-set-target=chip=gfx1100 -boo-gpu-lower-mma | FileCheck %s --check-prefix=WMMA11
// RUN: boo-opt %S/Inputs/wmma-tile.mlir -boo-set-target=chip=gfx1201 -boo-gpu-lower-mma | FileCheck %s --check-prefix=WMMA12
// RUN: boo-opt %s -split-input-file -boo-set-target=chip=gfx942 -boo-gpu-lower-mma \
// RUN:   | mlir-opt --allow-unregistered-dialect -split-input-file --pass-pipeline="builtin.module(rocdl-attach-target{chip=gfx942},gpu.module(lower-affine,convert-vector-to-llvm,convert-amdgpu-to-rocdl{chipset=gfx942},convert-gpu-to-rocdl{chipset=gfx942 runtime=HIP},reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | FileCheck %s --check-prefix=ISA942
// RUN: boo-opt %S/Inputs/wmma-tile.mlir -boo-set-target=chip=gfx1100 -boo-gpu-lower-mma \
// RUN:   | mlir-opt --allow-unregistered-dialect --pass-pipeline="builtin.module(rocdl-attach-target{chip=gfx1100},gpu.module(lower-affine,convert-vector-to-llvm,convert-amdgpu-to-rocdl{chipset=gfx1100},convert-gpu-to-rocdl{chipset=gfx1100 runtime=HIP},reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | FileCheck %s --check-prefix=ISA1100
// RUN: boo-opt %S/Inputs/wmma-tile.mlir -boo-set-target=chip=gfx1201 -boo-gpu-lower-mma \
// RUN:   | mlir-opt --allow-unregistered-dialect --pass-pipeline="builtin.module(rocdl-attach-target{chip=gfx1201},gpu.module(lower-affine,convert-vector-to-llvm,convert-amdgpu-to-rocdl{chipset=gfx1201},convert-gpu-to-rocdl{chipset=gfx1201 runtime=HIP},reconcile-unrealized-casts),gpu-module-to-binary{format=isa})" \
// RUN:   | FileCheck %s --check-prefix=ISA1201
// (mlir-opt does not know the boo dialect: --allow-unregistered-dialect lets
// it carry the module's #boo.target through.)

// A 16x16x16 f16 tile contraction executed by one wave (A is a strided
// view, as a tile of a larger matrix would be). On CDNA each lane loads 4
// elements of A at (lane % 16, 4 * (lane / 16) + i), 4 of B at
// (4 * (lane / 16) + i, lane % 16) and 4 of C at (4 * (lane / 16) + i,
// lane % 16); see docs/MMALayouts.md.

// MFMA-DAG: #[[ROW:.+]] = affine_map<(d0) -> (d0 mod 16)>
// MFMA-DAG: #[[K0:.+]] = affine_map<(d0) -> ((d0 floordiv 16) * 4)>
// MFMA-DAG: #[[K3:.+]] = affine_map<(d0) -> ((d0 floordiv 16) * 4 + 3)>
// MFMA-LABEL: gpu.func @tile_f16
// MFMA:         %[[LANE:.+]] = gpu.lane_id
// MFMA:         %[[R:.+]] = affine.apply #[[ROW]](%[[LANE]])
// MFMA:         %[[K:.+]] = affine.apply #[[K0]](%[[LANE]])
// MFMA:         memref.load %[[A:.+]][%[[R]], %[[K]]] : memref<16x16xf16, strided<[64, 1], offset: ?>>
// MFMA:         %[[K3V:.+]] = affine.apply #[[K3]](%[[LANE]])
// MFMA:         memref.load %[[A]][%{{.+}}, %[[K3V]]]
// MFMA:         %[[FA:.+]] = vector.from_elements %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : vector<4xf16>
// MFMA:         %[[FB:.+]] = vector.from_elements %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : vector<4xf16>
// MFMA:         %[[FC:.+]] = vector.from_elements %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : vector<4xf32>
// MFMA:         %[[D:.+]] = amdgpu.mfma 16x16x16 %[[FA]] * %[[FB]] + %[[FC]] {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// MFMA-COUNT-4: memref.store
// MFMA-NOT:     linalg.generic
// ISA942: v_mfma_f32_16x16x16_f16
gpu.module @kernels {
  gpu.func @tile_f16(%a: memref<16x16xf16, strided<[64, 1], offset: ?>>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) kernel {
    linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<16x16xf16, strided<[64, 1], offset: ?>>, memref<16x16xf16>) outs(%c : memref<16x16xf32>) attrs = {boo.mma = "MFMA_F32_16x16x16_F16"} {
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

// 32x32x8 bf16 with a transposed B (n, k): each lane holds 16 rows of D,
// in blocks of 4 per lane half.
// MFMA-DAG: #[[CROW15:.+]] = affine_map<(d0) -> ((d0 floordiv 32) * 4 + 27)>
// MFMA-LABEL: gpu.func @tile_bf16
// MFMA:         amdgpu.mfma 32x32x8 %{{.+}} * %{{.+}} + %{{.+}} {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// MFMA-COUNT-15: memref.store
// MFMA:         affine.apply #[[CROW15]]
// MFMA:         memref.store
// ISA942: v_mfma_f32_32x32x8_bf16
gpu.module @kernels {
  gpu.func @tile_bf16(%a: memref<32x8xbf16>, %b: memref<32x8xbf16>, %c: memref<32x32xf32>) kernel {
    linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x8xbf16>, memref<32x8xbf16>) outs(%c : memref<32x32xf32>) attrs = {boo.mma = "MFMA_F32_32x32x8_BF16"} {
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

// RDNA3: lanes hold all 16 K of their row/column; D rows interleave.
// WMMA11-DAG: #[[ODD:.+]] = affine_map<(d0) -> (d0 floordiv 16 + 14)>
// WMMA11-LABEL: gpu.func @tile_f16
// WMMA11:         amdgpu.wmma 16x16x16 %{{.+}} * %{{.+}} + %{{.+}} : vector<16xf16>, vector<16xf16>, vector<8xf32>
// WMMA11-COUNT-7: memref.store
// WMMA11:         affine.apply #[[ODD]]
// WMMA11:         memref.store
// ISA1100: v_wmma_f32_16x16x16_f16

// RDNA4: lanes 16-31 hold the second half of K and of D's rows.
// WMMA12-DAG: #[[HALF:.+]] = affine_map<(d0) -> ((d0 floordiv 16) * 8 + 7)>
// WMMA12-LABEL: gpu.func @tile_f16
// WMMA12:         amdgpu.wmma 16x16x16 %{{.+}} * %{{.+}} + %{{.+}} : vector<8xf16>, vector<8xf16>, vector<8xf32>
// WMMA12-COUNT-7: memref.store
// WMMA12:         affine.apply #[[HALF]]
// WMMA12:         memref.store
// ISA1201: v_wmma_f32_16x16x16_f16
