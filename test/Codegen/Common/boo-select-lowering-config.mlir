// RUN: env BOO_TUNING_SPEC_PATH= boo-opt %s --boo-set-target=chip=gfx942 --boo-select-lowering-config | FileCheck %s --check-prefixes=CHECK,CDNA,GFX942
// RUN: env BOO_TUNING_SPEC_PATH= boo-opt %s --boo-set-target=chip=gfx90a --boo-select-lowering-config | FileCheck %s --check-prefixes=CHECK,CDNA,GFX90A
// RUN: env BOO_TUNING_SPEC_PATH= boo-opt %s --boo-set-target=chip=gfx950 --boo-select-lowering-config | FileCheck %s --check-prefixes=CHECK,CDNA,GFX950
// RUN: env BOO_TUNING_SPEC_PATH= boo-opt %s --boo-set-target=chip=gfx1100 --boo-select-lowering-config | FileCheck %s --check-prefixes=CHECK,RDNA,GFX1100
// RUN: env BOO_TUNING_SPEC_PATH= boo-opt %s --boo-set-target=chip=gfx1201 --boo-select-lowering-config | FileCheck %s --check-prefixes=CHECK,RDNA,GFX1201
// Smaller register tiles: the compile's fallback when a kernel does not fit
// the registers (kMaxTileShrinks).
// RUN: env BOO_TUNING_SPEC_PATH= boo-opt %s --boo-set-target=chip=gfx942 --boo-select-lowering-config=shrink-tiles=1 | FileCheck %s --check-prefix=SHRINK1
// RUN: env BOO_TUNING_SPEC_PATH= boo-opt %s --boo-set-target=chip=gfx942 --boo-select-lowering-config=shrink-tiles=2 | FileCheck %s --check-prefix=SHRINK2
// The chip is the module's #boo.target (boo-set-target); there is no default.
// RUN: not boo-opt %s --boo-select-lowering-config 2>&1 | FileCheck %s --check-prefix=NOTARGET

// The heuristic config of every kind of kernel (BOO_TUNING_SPEC_PATH= turns
// the default tuning spec off; boo-select-lowering-config-spec.mlir tests
// specs). Tile lists follow the loops of the kernel's root linalg.generic
// (docs/Lowering.md, #boo.lowering_config).

// NOTARGET: error: boo-select-lowering-config: no #boo.target on the module (run boo-set-target with chip=<chip>, or a pipeline with chip=, first)

// GFX942: module attributes {boo.target = #boo.target<chip = "gfx942">}
// GFX90A: module attributes {boo.target = #boo.target<chip = "gfx90a">}
// GFX950: module attributes {boo.target = #boo.target<chip = "gfx950">}
// GFX1100: module attributes {boo.target = #boo.target<chip = "gfx1100">}
// GFX1201: module attributes {boo.target = #boo.target<chip = "gfx1201">}

// bf16 NHWC 3x3 conv, loops (n, k, oh, ow, c, fh, fw). The implicit GEMM
// has M = ow, N = k, K = c; 32 channels per K step (64 with gfx950's
// 16x16x32). The output is contiguous along k, so on CDNA and RDNA4, whose
// lanes hold runs of consecutive accumulator rows, the intrinsic's M goes
// on k (mma_loops = [1, 3, 4]) and each run is one vector store; RDNA3's
// lanes hold every other row, so it keeps M = ow. On
// gfx942 (304 CUs) the 64x64 tile is halved to 32x32 to make enough
// workgroups; gfx90a (110 CUs) keeps 64x64 and 2x2 subgroups. RDNA uses
// WMMA with wave32.
// CHECK-LABEL: func.func @conv_bf16_nhwc(
// GFX942: #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [1, 3, 4], promote_operands = [0, 1], pipeline_depth = 2>
// GFX90A: #boo.lowering_config<workgroup = [1, 64, 1, 64, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [1, 3, 4], promote_operands = [0, 1], pipeline_depth = 2>
// GFX950: #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 64, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x32_BF16", mma_loops = [1, 3, 4], promote_operands = [0, 1], pipeline_depth = 2>
// RDNA: #boo.lowering_config<workgroup = [1, 64, 1, 64, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [128, 1, 1], subgroup_size = 32, mma = "WMMA_F32_16x16x16_BF16", mma_loops =
// GFX1100-SAME: [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>
// GFX1201-SAME: [1, 3, 4], promote_operands = [0, 1], pipeline_depth = 2>
func.func @conv_bf16_nhwc(%x: tensor<2x56x56x64xbf16>, %w: tensor<64x3x3x64xbf16>) -> tensor<2x56x56x64xbf16> {
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<2x56x56x64xbf16>, tensor<64x3x3x64xbf16> -> tensor<2x56x56x64xbf16>
  return %0 : tensor<2x56x56x64xbf16>
}

// A 1x1 conv with many channels: N = k tiles by 128, split over 2
// subgroups (4 on wave32 chips, so that 128 threads stage the tiles).
// CHECK-LABEL: func.func @conv_f16_big(
// GFX942: #boo.lowering_config<workgroup = [1, 128, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 64, 1, 32, 0, 0, 0], workgroup_size = [128, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [1, 3, 4], promote_operands = [0, 1], pipeline_depth = 2>
// GFX90A: #boo.lowering_config<workgroup = [1, 128, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 64, 1, 32, 0, 0, 0], workgroup_size = [128, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [1, 3, 4], promote_operands = [0, 1], pipeline_depth = 2>
// GFX950: #boo.lowering_config<workgroup = [1, 128, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 64, 1, 1], subgroup = [1, 64, 1, 32, 0, 0, 0], workgroup_size = [128, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x32_F16", mma_loops = [1, 3, 4], promote_operands = [0, 1], pipeline_depth = 2>
// RDNA: #boo.lowering_config<workgroup = [1, 128, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [128, 1, 1], subgroup_size = 32, mma = "WMMA_F32_16x16x16_F16", mma_loops =
// GFX1100-SAME: [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>
// GFX1201-SAME: [1, 3, 4], promote_operands = [0, 1], pipeline_depth = 2>
// With shrink-tiles=1 the K tile is one intrinsic's (16) and at most 32
// accumulators per lane; with 2, 16 per lane: 4 subgroups of 32x32.
// SHRINK1-LABEL: func.func @conv_f16_big(
// SHRINK1: #boo.lowering_config<workgroup = [1, 128, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 16, 1, 1], subgroup = [1, 64, 1, 32, 0, 0, 0], workgroup_size = [128, 1, 1]
// SHRINK2-LABEL: func.func @conv_f16_big(
// SHRINK2: #boo.lowering_config<workgroup = [1, 128, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 16, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [256, 1, 1]
func.func @conv_f16_big(%x: tensor<8x32x32x256xf16>, %w: tensor<512x1x1x256xf16>) -> tensor<8x32x32x512xf16> {
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<8x32x32x256xf16>, tensor<512x1x1x256xf16> -> tensor<8x32x32x512xf16>
  return %0 : tensor<8x32x32x512xf16>
}

// f32 has no MMA: the FMA path. The NCHW output is contiguous along ow:
// each thread computes a vector of ow outputs (the largest power of two up
// to 16 bytes that divides ow = 6: 2). The workgroup tile along ow divides
// it; the rest of the threads go to k, oh and n. A problem smaller than the
// workgroup widens the k tile (masked).
// CHECK-LABEL: func.func @conv_f32(
// CDNA: #boo.lowering_config<workgroup = [1, 32, 8, 2, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 1, 1], thread = [1, 1, 1, 2, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [1, 32, 8, 2, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 1, 1], thread = [1, 1, 1, 2, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 32>
// Shrunk: one output per thread.
// SHRINK1-LABEL: func.func @conv_f32(
// SHRINK1: thread = [1, 1, 1, 1, 0, 0, 0]
// SHRINK2-LABEL: func.func @conv_f32(
// SHRINK2: thread = [1, 1, 1, 1, 0, 0, 0]
func.func @conv_f32(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32> -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// Odd sizes: 3 input channels (K = 3 < 16, so FMA even in f16), 35 output
// channels, a 7x7 filter, 118x182 input. A vector of 8 ow (16 bytes) per
// thread. Tiles are powers of two; where they do not divide the problem
// (k, oh) partial tiles are masked.
// CHECK-LABEL: func.func @conv_odd(
// CDNA: #boo.lowering_config<workgroup = [1, 64, 2, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 1, 1], thread = [1, 1, 1, 8, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [1, 64, 2, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 1, 1], thread = [1, 1, 1, 8, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 32>
func.func @conv_odd(%x: tensor<1x3x118x182xf16>, %w: tensor<35x3x7x7xf16>) -> tensor<1x35x112x176xf16> {
  %0 = boo.conv %x, %w : tensor<1x3x118x182xf16>, tensor<35x3x7x7xf16> -> tensor<1x35x112x176xf16>
  return %0 : tensor<1x35x112x176xf16>
}

// Depthwise (groups = C): loops (n, g, k, oh, ow, c, fh, fw) with one channel
// per group. FMA; the NHWC output is contiguous along the groups: a vector
// of 8 groups per thread (16 bytes), 4 threads over them, then ow and oh.
// CHECK-LABEL: func.func @depthwise(
// CDNA: #boo.lowering_config<workgroup = [1, 32, 1, 8, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 0, 1, 1, 1], thread = [1, 8, 1, 1, 1, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [1, 32, 1, 8, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 0, 1, 1, 1], thread = [1, 8, 1, 1, 1, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 32>
func.func @depthwise(%x: tensor<1x7x7x32xf16>, %w: tensor<32x3x3x1xf16>) -> tensor<1x7x7x32xf16> {
  %0 = boo.conv %x, %w {groups = 32 : i64, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x7x7x32xf16>, tensor<32x3x3x1xf16> -> tensor<1x7x7x32xf16>
  return %0 : tensor<1x7x7x32xf16>
}

// 1-D: loops (n, k, ow, c, fw). A vector of 4 ow (16 bytes of f32) per
// thread.
// CHECK-LABEL: func.func @conv1d(
// CDNA: #boo.lowering_config<workgroup = [1, 32, 32, 0, 0], reduction = [0, 0, 0, 8, 1], thread = [1, 1, 4, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [1, 32, 32, 0, 0], reduction = [0, 0, 0, 8, 1], thread = [1, 1, 4, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 32>
func.func @conv1d(%x: tensor<4x16x100xf32>, %w: tensor<32x16x5xf32>) -> tensor<4x32x96xf32> {
  %0 = boo.conv %x, %w : tensor<4x16x100xf32>, tensor<32x16x5xf32> -> tensor<4x32x96xf32>
  return %0 : tensor<4x32x96xf32>
}

// 3-D, 2 groups: loops (n, g, k, od, oh, ow, c, fd, fh, fw). The output is
// 6x6x6: M = ow has 6 positions, so a 16-row MMA tile keeps 10 rows idle;
// from 4 rows (kMinMmaRows) the matrix cores still beat the FMA path. The
// NCDHW output is contiguous along ow, which stays the intrinsic's M.
// CHECK-LABEL: func.func @conv3d_grouped(
// CDNA: #boo.lowering_config<workgroup = [1, 1, 32, 1, 1, 16, 0, 0, 0, 0], reduction = [0, 0, 0, 0, 0, 0, 16, 1, 1, 1], subgroup = [1, 1, 32, 1, 1, 16, 0, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [5, 2, 6], promote_operands = [0, 1], pipeline_depth = 2>
// RDNA: #boo.lowering_config<workgroup = [1, 1, 32, 1, 1, 16, 0, 0, 0, 0], reduction = [0, 0, 0, 0, 0, 0, 16, 1, 1, 1], subgroup = [1, 1, 32, 1, 1, 16, 0, 0, 0, 0], workgroup_size = [32, 1, 1], subgroup_size = 32, mma = "WMMA_F32_16x16x16_BF16", mma_loops = [5, 2, 6], promote_operands = [0, 1], pipeline_depth = 2>
func.func @conv3d_grouped(%x: tensor<1x32x8x8x8xbf16>, %w: tensor<64x16x3x3x3xbf16>) -> tensor<1x64x6x6x6xbf16> {
  %0 = boo.conv %x, %w {groups = 2 : i64} : tensor<1x32x8x8x8xbf16>, tensor<64x16x3x3x3xbf16> -> tensor<1x64x6x6x6xbf16>
  return %0 : tensor<1x64x6x6x6xbf16>
}

// Backward data, loops (n, c, ih, iw, k, fh, fw): M = iw, N = c, K = k.
// With stride 2 the 56 iw positions are 2 phases of 28, each phase its own
// workgroups, so the M tile is sized for 28 (32), not 56 (64). Only the
// intrinsic's M can be split by phase, so M stays on iw although dx is
// contiguous along c.
// CHECK-LABEL: func.func @bwd_data(
// GFX942: #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>
// GFX90A: #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>
// GFX950: #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 64, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x32_F16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>
// RDNA: #boo.lowering_config<workgroup = [1, 32, 1, 32, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [32, 1, 1], subgroup_size = 32, mma = "WMMA_F32_16x16x16_F16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>
func.func @bwd_data(%dy: tensor<2x28x28x64xf16>, %w: tensor<64x3x3x32xf16>) -> tensor<2x56x56x32xf16> {
  %0 = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x28x28x64xf16>, tensor<64x3x3x32xf16> -> tensor<2x56x56x32xf16>
  return %0 : tensor<2x56x56x32xf16>
}

// Backward weight, loops (k, c, fh, fw, n, oh, ow): M = k, N = c, and the
// K step runs over ow (n and oh one at a time). The KYXC filter gradient is
// contiguous along c, which takes the intrinsic's M except on RDNA3. 2 x 1 x 9 = 18 output tiles
// of one wave each leave CUs idle, so the 2 x 56 x 2 = 224 reduction steps
// are split: by the smallest power of two that gives every CU a wave,
// keeping at least 8 steps per split (gfx942, 304 CUs: 16, as 32 would
// leave 7; gfx950, 256: 16; gfx90a, 110, and gfx1100, 96: 8; gfx1201, 64: 4).
// CHECK-LABEL: func.func @bwd_weight(
// GFX942: #boo.lowering_config<workgroup = [32, 32, 1, 1, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 32], subgroup = [32, 32, 1, 1, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [1, 0, 6], promote_operands = [0, 1], pipeline_depth = 2, split_k = 16>
// GFX90A: #boo.lowering_config<workgroup = [32, 32, 1, 1, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 32], subgroup = [32, 32, 1, 1, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [1, 0, 6], promote_operands = [0, 1], pipeline_depth = 2, split_k = 8>
// GFX950: #boo.lowering_config<workgroup = [32, 32, 1, 1, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 32], subgroup = [32, 32, 1, 1, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x32_BF16", mma_loops = [1, 0, 6], promote_operands = [0, 1], pipeline_depth = 2, split_k = 16>
// RDNA: #boo.lowering_config<workgroup = [32, 32, 1, 1, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 1, 32], subgroup = [32, 32, 1, 1, 0, 0, 0], workgroup_size = [32, 1, 1], subgroup_size = 32, mma = "WMMA_F32_16x16x16_BF16", mma_loops =
// GFX1100-SAME: [0, 1, 6], promote_operands = [0, 1], pipeline_depth = 2, split_k = 8>
// GFX1201-SAME: [1, 0, 6], promote_operands = [0, 1], pipeline_depth = 2, split_k = 4>
func.func @bwd_weight(%dy: tensor<2x56x56x64xbf16>, %x: tensor<2x56x56x32xbf16>) -> tensor<64x3x3x32xbf16> {
  %0 = boo.conv_bwd_weight %dy, %x {padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x56x56x64xbf16>, tensor<2x56x56x32xbf16> -> tensor<64x3x3x32xbf16>
  return %0 : tensor<64x3x3x32xbf16>
}

// Bias gradient: loops are dy's dims (n, h, w, c), c parallel. Threads go
// to the parallel loops only, 4 channels each; every thread walks n, h and
// w itself (no cross-thread combine yet); one wave for 16 channels.
// CHECK-LABEL: func.func @bwd_bias(
// CDNA: #boo.lowering_config<workgroup = [0, 0, 0, 256], reduction = [1, 1, 1, 0], thread = [0, 0, 0, 4], workgroup_size = [64, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [0, 0, 0, 128], reduction = [1, 1, 1, 0], thread = [0, 0, 0, 4], workgroup_size = [32, 1, 1], subgroup_size = 32>
func.func @bwd_bias(%dy: tensor<2x7x7x16xbf16>) -> tensor<16xbf16> {
  %0 = boo.conv_bwd_bias %dy {output_layout = "NHWC"} : tensor<2x7x7x16xbf16> -> tensor<16xbf16>
  return %0 : tensor<16xbf16>
}

// Layer norm: loops (rows, normalized). Each thread reduces whole rows, 4
// of them; 256 threads take 1024 rows.
// CHECK-LABEL: func.func @layer_norm(
// CDNA: #boo.lowering_config<workgroup = [1024, 0], reduction = [0, 1], thread = [4, 0], workgroup_size = [256, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [1024, 0], reduction = [0, 1], thread = [4, 0], workgroup_size = [256, 1, 1], subgroup_size = 32>
func.func @layer_norm(%x: tensor<4096x1024xf16>, %w: tensor<1024xf16>, %b: tensor<1024xf16>) -> tensor<4096x1024xf16> {
  %y, %m, %r = boo.layer_norm %x weight(%w : tensor<1024xf16>) bias(%b : tensor<1024xf16>) : tensor<4096x1024xf16> -> tensor<4096x1024xf16>, tensor<4096xf32>, tensor<4096xf32>
  return %y : tensor<4096x1024xf16>
}

// MIOpen's default layer norm shape: 32-element rows, each reduced by one
// thread; 4 rows per thread along the innermost row loop.
// CHECK-LABEL: func.func @layer_norm_small(
// CDNA: #boo.lowering_config<workgroup = [8, 4, 32, 0], reduction = [0, 0, 0, 1], thread = [1, 1, 4, 0], workgroup_size = [256, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [8, 4, 32, 0], reduction = [0, 0, 0, 1], thread = [1, 1, 4, 0], workgroup_size = [256, 1, 1], subgroup_size = 32>
func.func @layer_norm_small(%x: tensor<100x3x32x32xf32>) -> tensor<100x3x32x32xf32> {
  %y, %m, %r = boo.layer_norm %x : tensor<100x3x32x32xf32> -> tensor<100x3x32x32xf32>, tensor<100x3x32xf32>, tensor<100x3x32xf32>
  return %y : tensor<100x3x32x32xf32>
}

// Layer norm backward: the same loop nest (row reductions of g and g*xhat).
// CHECK-LABEL: func.func @layer_norm_bwd(
// CDNA: #boo.lowering_config<workgroup = [256, 0], reduction = [0, 1], thread = [4, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [128, 0], reduction = [0, 1], thread = [4, 0], workgroup_size = [32, 1, 1], subgroup_size = 32>
func.func @layer_norm_bwd(%dy: tensor<8x64xf32>, %x: tensor<8x64xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>, %w: tensor<64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %dx, %dw, %db = boo.layer_norm_bwd %dy, %x, %m, %r weight(%w : tensor<64xf32>) : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>
  return %dx, %dw, %db : tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>
}

// Element-wise ops outside a fusion are kernels too; 4 elements per thread
// along the innermost dim, 35 wide, so one partial 64-wide tile.
// CHECK-LABEL: func.func @elementwise(
// CDNA: #boo.lowering_config<workgroup = [1, 2, 8, 64], thread = [1, 1, 1, 4], workgroup_size = [256, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [1, 2, 8, 64], thread = [1, 1, 1, 4], workgroup_size = [256, 1, 1], subgroup_size = 32>
// CDNA: #boo.lowering_config<workgroup = [1, 2, 8, 64], thread = [1, 1, 1, 4], workgroup_size = [256, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [1, 2, 8, 64], thread = [1, 1, 1, 4], workgroup_size = [256, 1, 1], subgroup_size = 32>
func.func @elementwise(%x: tensor<2x7x7x35xf16>, %b: tensor<35xf16>) -> tensor<2x7x7x35xf16> {
  %0 = boo.add %x, %b {channel_dim = 3 : i64} : tensor<2x7x7x35xf16>, tensor<35xf16>
  %1 = boo.activation sigmoid %0 : tensor<2x7x7x35xf16>
  return %1 : tensor<2x7x7x35xf16>
}

// A rank-0 kernel has no loops: one wave, no tiles.
// CHECK-LABEL: func.func @scalar(
// CDNA: #boo.lowering_config<workgroup_size = [64, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup_size = [32, 1, 1], subgroup_size = 32>
func.func @scalar(%x: tensor<f32>) -> tensor<f32> {
  %0 = boo.activation relu %x : tensor<f32>
  return %0 : tensor<f32>
}

// A fusion is one kernel: the config goes on the boo.fusion, none on the
// conv inside. Its NHWC output is contiguous along k, which only the filter
// reads: a vector of all 8 k per thread (one thread along k, so that a
// wave shares its filter reads), the threads along ow, oh.
// CHECK-LABEL: func.func @fused(
// CHECK:         boo.conv
// CHECK-NOT:     boo.lowering_config
// CHECK:         boo.yield
// CDNA: #boo.lowering_config<workgroup = [1, 8, 8, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 1, 1], thread = [1, 8, 1, 1, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>
// RDNA: #boo.lowering_config<workgroup = [1, 8, 8, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 1, 1], thread = [1, 8, 1, 1, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 32>
func.func @fused(%x: tensor<1x8x8x4xf16>, %w: tensor<8x3x3x4xf16>, %b: tensor<8xf16>) -> tensor<1x8x8x8xf16> {
  %0 = boo.fusion -> tensor<1x8x8x8xf16> {
    %c = boo.conv %x, %w bias(%b : tensor<8xf16>) {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16> -> tensor<1x8x8x8xf16>
    %r = boo.activation relu %c : tensor<1x8x8x8xf16>
    boo.yield %r : tensor<1x8x8x8xf16>
  }
  return %0 : tensor<1x8x8x8xf16>
}
