// RUN: boo-opt %s -split-input-file -verify-diagnostics

// Every message of the #boo.lowering_config verifier has a case here: first
// the checks of the attribute alone, then those against the kernel op, then
// those against the module's boo.target chip (#boo.target's own messages are
// in target-invalid.mlir).

//===----------------------------------------------------------------------===//
// The attribute alone
//===----------------------------------------------------------------------===//

// expected-error@+1 {{'reduction' has 3 tile sizes, but 'workgroup' has 2 (one per loop of the root linalg.generic)}}
#c = #boo.lowering_config<workgroup = [1, 64], reduction = [0, 0, 0], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{'workgroup' tile sizes must be non-negative, got -1 for loop 0}}
#c = #boo.lowering_config<workgroup = [-1, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{loop 1 has both a workgroup tile (64) and a reduction tile (8); a loop is either parallel or a reduction}}
#c = #boo.lowering_config<workgroup = [1, 64], reduction = [0, 8], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{subgroup_size must be 32 or 64, got 16}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 16>

// -----

// expected-error@+1 {{'workgroup_size' must be [x, y, z] with every entry >= 1}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 1], workgroup_size = [64, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{workgroup_size 64x32x1 has 2048 threads; no target allows more than 1024}}
#c = #boo.lowering_config<workgroup = [32, 64], thread = [1, 1], workgroup_size = [64, 32, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{workgroup_size 96x1x1 (96 threads) is not a multiple of subgroup_size 64}}
#c = #boo.lowering_config<workgroup = [1, 96], thread = [1, 1], workgroup_size = [96, 1, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{an MMA config distributes subgroups: it needs 'subgroup' tile sizes and no 'thread' tile sizes}}
#c = #boo.lowering_config<workgroup = [16, 16, 0], reduction = [0, 0, 16], thread = [1, 1, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [0, 1, 2]>

// -----

// expected-error@+1 {{an FMA config (no 'mma') distributes threads: it needs 'thread' tile sizes and no 'subgroup' tile sizes}}
#c = #boo.lowering_config<workgroup = [1, 64], subgroup = [1, 64], workgroup_size = [64, 1, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{thread tile 4 of loop 1 needs a non-zero workgroup or reduction tile to divide}}
#c = #boo.lowering_config<workgroup = [64, 0], thread = [1, 4], workgroup_size = [64, 1, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{thread tile 3 of loop 1 does not divide its workgroup tile 64}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 3], workgroup_size = [64, 1, 1], subgroup_size = 64>

// -----

// A thread tile on a reduction loop divides its reduction tile.
// expected-error@+1 {{thread tile 3 of loop 1 does not divide its reduction tile 256}}
#c = #boo.lowering_config<workgroup = [1, 0], reduction = [0, 256], thread = [0, 3], workgroup_size = [64, 1, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{the thread tiles make 128 threads (workgroup or reduction tile / thread tile, over the distributed loops), but workgroup_size has 256}}
#c = #boo.lowering_config<workgroup = [2, 256], thread = [1, 4], workgroup_size = [256, 1, 1], subgroup_size = 64>

// -----

// expected-error@+1 {{the subgroup tiles make 2 subgroups of 64 threads, but workgroup_size has 256 threads}}
#c = #boo.lowering_config<workgroup = [32, 16, 0], reduction = [0, 0, 16], subgroup = [16, 16, 0], workgroup_size = [256, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [0, 1, 2]>

// -----

// expected-error@+1 {{'mma_loops' is only allowed with 'mma'}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64, mma_loops = [0, 1, 2]>

// -----

// expected-error@+1 {{unknown mma intrinsic 'MFMA_F32_8x8x8_F16'; known: MFMA_F32_16x16x16_F16, MFMA_F32_32x32x8_F16, MFMA_F32_16x16x16_BF16, MFMA_F32_32x32x8_BF16, MFMA_F32_16x16x32_F16, MFMA_F32_32x32x16_F16, MFMA_F32_16x16x32_BF16, MFMA_F32_32x32x16_BF16, WMMA_F32_16x16x16_F16, WMMA_F32_16x16x16_BF16}}
#c = #boo.lowering_config<workgroup = [16, 16, 0], reduction = [0, 0, 16], subgroup = [16, 16, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_8x8x8_F16", mma_loops = [0, 1, 2]>

// -----

// expected-error@+1 {{'mma_loops' must name 3 distinct loops [m, n, k] in [0, 3)}}
#c = #boo.lowering_config<workgroup = [16, 16, 0], reduction = [0, 0, 16], subgroup = [16, 16, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [0, 0, 2]>

// -----

// expected-error@+1 {{workgroup tile 24 of loop 0 (mma M) is not a non-zero multiple of MFMA_F32_16x16x16_F16's M = 16}}
#c = #boo.lowering_config<workgroup = [24, 16, 0], reduction = [0, 0, 16], subgroup = [24, 16, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [0, 1, 2]>

// -----

// expected-error@+1 {{reduction tile 8 of loop 2 (mma K) is not a non-zero multiple of MFMA_F32_16x16x16_F16's K = 16}}
#c = #boo.lowering_config<workgroup = [16, 16, 0], reduction = [0, 0, 8], subgroup = [16, 16, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [0, 1, 2]>

// -----

// expected-error@+1 {{subgroup tile 8 of loop 1 (mma N) is not a non-zero multiple of MFMA_F32_16x16x16_F16's N = 16}}
#c = #boo.lowering_config<workgroup = [16, 16, 0], reduction = [0, 0, 16], subgroup = [16, 8, 0], workgroup_size = [128, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [0, 1, 2]>

// -----

// expected-error@+1 {{'promote_operands' must be strictly increasing non-negative input indices}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64, promote_operands = [1, 0]>

// -----

// expected-error@+1 {{pipeline_depth must be 1 (single-buffered) or 2 (double-buffered), got 3}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64, promote_operands = [0], pipeline_depth = 3>

// -----

// expected-error@+1 {{pipeline_depth 2 double-buffers the LDS copies, but 'promote_operands' is empty}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64, pipeline_depth = 2>

//===----------------------------------------------------------------------===//
// Against the kernel (no chip needed)
//===----------------------------------------------------------------------===//

// -----

// expected-error@+1 {{'promote_operands' needs an 'mma': only the MMA path stages operands through LDS (FMA kernels read them from global memory)}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64, promote_operands = [0]>

// -----

func.func @wrong_attr_kind(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  // expected-error@+1 {{'boo.activation' op 'boo.lowering_config' must be a #boo.lowering_config, got "fast"}}
  %0 = boo.activation relu %x {boo.lowering_config = "fast"} : tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Conv loops: (n, k, oh, ow, c, fh, fw).
func.func @loop_count(%x: tensor<1x16x16x32xbf16>, %w: tensor<64x3x3x32xbf16>) -> tensor<1x14x14x64xbf16> {
  // expected-error@+1 {{'boo.conv' op lowering config has 5 workgroup tile sizes, but the kernel's root linalg.generic has 7 loops (n, k, oh, ow, c, fh, fw)}}
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 64, 1, 1, 0], thread = [1, 1, 1, 1, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>} : tensor<1x16x16x32xbf16>, tensor<64x3x3x32xbf16> -> tensor<1x14x14x64xbf16>
  return %0 : tensor<1x14x14x64xbf16>
}

// -----

func.func @workgroup_on_reduction(%x: tensor<1x16x16x32xbf16>, %w: tensor<64x3x3x32xbf16>) -> tensor<1x14x14x64xbf16> {
  // expected-error@+1 {{'boo.conv' op workgroup tile 4 on loop 4 (c), which is a reduction}}
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 16, 1, 1, 4, 0, 0], thread = [1, 1, 1, 1, 1, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>} : tensor<1x16x16x32xbf16>, tensor<64x3x3x32xbf16> -> tensor<1x14x14x64xbf16>
  return %0 : tensor<1x14x14x64xbf16>
}

// -----

func.func @reduction_on_parallel(%x: tensor<1x16x16x32xbf16>, %w: tensor<64x3x3x32xbf16>) -> tensor<1x14x14x64xbf16> {
  // expected-error@+1 {{'boo.conv' op reduction tile 8 on loop 2 (oh), which is parallel}}
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 64, 0, 1, 0, 0, 0], reduction = [0, 0, 8, 0, 8, 1, 1], thread = [1, 1, 0, 1, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>} : tensor<1x16x16x32xbf16>, tensor<64x3x3x32xbf16> -> tensor<1x14x14x64xbf16>
  return %0 : tensor<1x14x14x64xbf16>
}

// -----

// Layer norm loops: (rows..., normalized...), here (d0, d1, d2).
func.func @mma_not_contraction(%x: tensor<4x16x64xf16>) -> tensor<4x16x64xf16> {
  // expected-error@+1 {{'boo.layer_norm' op mma needs a convolution (a contraction); this kernel's root generic is not one}}
  %y, %m, %r = boo.layer_norm %x {boo.lowering_config = #boo.lowering_config<workgroup = [16, 16, 0], reduction = [0, 0, 16], subgroup = [16, 16, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [0, 1, 2]>} : tensor<4x16x64xf16> -> tensor<4x16x64xf16>, tensor<4x16xf32>, tensor<4x16xf32>
  return %y : tensor<4x16x64xf16>
}

// -----

func.func @mma_loop_roles(%x: tensor<1x16x16x32xbf16>, %w: tensor<64x3x3x32xbf16>) -> tensor<1x14x14x64xbf16> {
  // expected-error@+1 {{'boo.conv' op mma_loops M and N = loops 2 (oh) and 3 (ow) must be one M and one N loop of the implicit GEMM (M: n, oh, ow; N: k)}}
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 1, 16, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 16, 1, 1], subgroup = [1, 1, 16, 16, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [2, 3, 4]>} : tensor<1x16x16x32xbf16>, tensor<64x3x3x32xbf16> -> tensor<1x14x14x64xbf16>
  return %0 : tensor<1x14x14x64xbf16>
}

// -----

func.func @mma_loop_k_role(%x: tensor<1x16x16x32xbf16>, %w: tensor<64x3x3x32xbf16>) -> tensor<1x14x14x64xbf16> {
  // expected-error@+1 {{'boo.conv' op mma_loops K = loop 5 (fh) is not one of the K loops of the implicit GEMM (c)}}
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 16, 1, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 1, 16, 1], subgroup = [1, 16, 1, 16, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [1, 3, 5]>} : tensor<1x16x16x32xbf16>, tensor<64x3x3x32xbf16> -> tensor<1x14x14x64xbf16>
  return %0 : tensor<1x14x14x64xbf16>
}

// -----

// Backward data with stride 2: iw has 2 stride phases, so it must be the
// intrinsic's M (loops n, c, ih, iw, k, fh, fw).
func.func @mma_phased_n(%dy: tensor<1x8x8x32xbf16>, %w: tensor<32x3x3x32xbf16>) -> tensor<1x16x16x32xbf16> {
  // expected-error@+1 {{'boo.conv_bwd_data' op mma_loops N = loop 3 (iw) has 2 stride phases; only the M loop can be split by phase}}
  %0 = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 0, 0>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 16, 1, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 16, 1, 1], subgroup = [1, 16, 1, 16, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [1, 3, 4]>} : tensor<1x8x8x32xbf16>, tensor<32x3x3x32xbf16> -> tensor<1x16x16x32xbf16>
  return %0 : tensor<1x16x16x32xbf16>
}

// -----

func.func @mma_input_type(%x: tensor<1x16x16x32xbf16>, %w: tensor<64x3x3x32xbf16>) -> tensor<1x14x14x64xbf16> {
  // expected-error@+1 {{'boo.conv' op mma intrinsic 'MFMA_F32_16x16x16_F16' takes f16 inputs, but the input is bf16}}
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 16, 1, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 16, 1, 1], subgroup = [1, 16, 1, 16, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_F16", mma_loops = [3, 1, 4]>} : tensor<1x16x16x32xbf16>, tensor<64x3x3x32xbf16> -> tensor<1x14x14x64xbf16>
  return %0 : tensor<1x14x14x64xbf16>
}

// -----

func.func @promote_out_of_range(%x: tensor<1x16x16x32xbf16>, %w: tensor<64x3x3x32xbf16>) -> tensor<1x14x14x64xbf16> {
  // expected-error@+1 {{'boo.conv' op promote_operands index 2 is out of range: the root generic has 2 inputs (input, filter)}}
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 16, 1, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 16, 1, 1], subgroup = [1, 16, 1, 16, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4], promote_operands = [0, 2]>} : tensor<1x16x16x32xbf16>, tensor<64x3x3x32xbf16> -> tensor<1x14x14x64xbf16>
  return %0 : tensor<1x14x14x64xbf16>
}

//===----------------------------------------------------------------------===//
// Against the chip of the module's boo.target
//===----------------------------------------------------------------------===//

// -----

module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @wave_size(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
    // expected-error@+1 {{'boo.activation' op subgroup_size 32 is not gfx942's wave size 64}}
    %0 = boo.activation relu %x {boo.lowering_config = #boo.lowering_config<workgroup = [2, 64], thread = [1, 4], workgroup_size = [32, 1, 1], subgroup_size = 32>} : tensor<4x64xf32>
    return %0 : tensor<4x64xf32>
  }
}

// -----

module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @mma_not_on_chip(%x: tensor<1x16x16x32xf16>, %w: tensor<64x3x3x32xf16>) -> tensor<1x14x14x64xf16> {
    // expected-error@+1 {{'boo.conv' op mma intrinsic 'MFMA_F32_16x16x32_F16' is not available on gfx942 (available: MFMA_F32_16x16x16_F16, MFMA_F32_32x32x8_F16, MFMA_F32_16x16x16_BF16, MFMA_F32_32x32x8_BF16)}}
    %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 16, 1, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 16, 1, 16, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x32_F16", mma_loops = [3, 1, 4]>} : tensor<1x16x16x32xf16>, tensor<64x3x3x32xf16> -> tensor<1x14x14x64xf16>
    return %0 : tensor<1x14x14x64xf16>
  }
}

// -----

// RDNA has WMMA, not MFMA.
module attributes {boo.target = #boo.target<chip = "gfx1100">} {
  func.func @mfma_on_rdna(%x: tensor<1x16x16x32xf16>, %w: tensor<64x3x3x32xf16>) -> tensor<1x14x14x64xf16> {
    // expected-error@+1 {{'boo.conv' op mma intrinsic 'MFMA_F32_16x16x16_F16' is not available on gfx1100 (available: WMMA_F32_16x16x16_F16, WMMA_F32_16x16x16_BF16)}}
    %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 16, 1, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 16, 1, 1], subgroup = [1, 16, 1, 16, 0, 0, 0], workgroup_size = [32, 1, 1], subgroup_size = 32, mma = "MFMA_F32_16x16x16_F16", mma_loops = [3, 1, 4]>} : tensor<1x16x16x32xf16>, tensor<64x3x3x32xf16> -> tensor<1x14x14x64xf16>
    return %0 : tensor<1x14x14x64xf16>
  }
}

// -----

// bf16 1x1 conv, 512x512 channels, 64x64 output positions: a 64 x 512 x
// 512 workgroup tile staged double-buffered is 2 x (64 x 512 + 512 x 512) x
// 2 bytes.
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @lds(%x: tensor<1x64x64x512xbf16>, %w: tensor<512x1x1x512xbf16>) -> tensor<1x64x64x512xbf16> {
    // expected-error@+1 {{'boo.conv' op the promoted tiles need 1179648 bytes of LDS (input: 65536 bytes, filter: 524288 bytes, times pipeline_depth 2), but gfx942 has 65536}}
    %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 512, 1, 64, 0, 0, 0], reduction = [0, 0, 0, 0, 512, 1, 1], subgroup = [1, 128, 1, 64, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>} : tensor<1x64x64x512xbf16>, tensor<512x1x1x512xbf16> -> tensor<1x64x64x512xbf16>
    return %0 : tensor<1x64x64x512xbf16>
  }
}

// -----

// Single-buffered with a 64-deep K slab: (64 x 64 + 512 x 64) bf16 =
// 73728 bytes, which would fit gfx950's 160 KiB but not gfx942's 64 KiB.
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  func.func @lds_single(%x: tensor<1x64x64x512xbf16>, %w: tensor<512x1x1x512xbf16>) -> tensor<1x64x64x512xbf16> {
    // expected-error@+1 {{'boo.conv' op the promoted tiles need 73728 bytes of LDS (input: 8192 bytes, filter: 65536 bytes, times pipeline_depth 1), but gfx942 has 65536}}
    %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", boo.lowering_config = #boo.lowering_config<workgroup = [1, 512, 1, 64, 0, 0, 0], reduction = [0, 0, 0, 0, 64, 1, 1], subgroup = [1, 128, 1, 64, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4], promote_operands = [0, 1]>} : tensor<1x64x64x512xbf16>, tensor<512x1x1x512xbf16> -> tensor<1x64x64x512xbf16>
    return %0 : tensor<1x64x64x512xbf16>
  }
}

// -----

// expected-error@+1 {{split_k must be at least 1, got 0}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64, split_k = 0>

// -----

// expected-error@+1 {{split_k 4 needs an 'mma': only the MMA path splits the reduction across workgroups}}
#c = #boo.lowering_config<workgroup = [1, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64, split_k = 4>
