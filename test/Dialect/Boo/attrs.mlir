// RUN: boo-opt %s | boo-opt | FileCheck %s

// #boo.target and #boo.lowering_config print as they parse; default-valued
// and empty fields are left out. The configs are valid for gfx942 (the
// module's target makes the verifier check them against the chip).

// CHECK: module attributes {boo.target = #boo.target<chip = "gfx942">}
module attributes {boo.target = #boo.target<chip = "gfx942">} {

  // MMA path. Loops of the conv: (n, k, oh, ow, c, fh, fw); M = ow (loop 3),
  // N = k (loop 1), K = c (loop 4).
  // CHECK-LABEL: func.func @conv_mma
  // CHECK: boo.conv
  // CHECK-SAME: boo.lowering_config = #boo.lowering_config<workgroup = [1, 64, 1, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 16, 0, 0, 0], workgroup_size = [128, 1, 1], subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4], promote_operands = [0, 1], pipeline_depth = 2>
  func.func @conv_mma(%x: tensor<1x16x16x32xbf16>, %w: tensor<64x3x3x32xbf16>) -> tensor<1x14x14x64xbf16> {
    %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC",
                          boo.lowering_config = #boo.lowering_config<
                              workgroup = [1, 64, 1, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1],
                              subgroup = [1, 32, 1, 16, 0, 0, 0], workgroup_size = [128, 1, 1],
                              subgroup_size = 64, mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4],
                              promote_operands = [0, 1], pipeline_depth = 2>}
        : tensor<1x16x16x32xbf16>, tensor<64x3x3x32xbf16> -> tensor<1x14x14x64xbf16>
    return %0 : tensor<1x14x14x64xbf16>
  }

  // FMA path; the fields may come in any order, and pipeline_depth = 1 is the
  // default.
  // CHECK-LABEL: func.func @relu_fma
  // CHECK: boo.activation relu
  // CHECK-SAME: boo.lowering_config = #boo.lowering_config<workgroup = [4, 64], thread = [1, 4], workgroup_size = [64, 1, 1], subgroup_size = 64>
  func.func @relu_fma(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
    %0 = boo.activation relu %x {boo.lowering_config = #boo.lowering_config<
             subgroup_size = 64, workgroup_size = [64, 1, 1], thread = [1, 4],
             workgroup = [4, 64]>} : tensor<4x64xf32>
    return %0 : tensor<4x64xf32>
  }

  // A fusion is one kernel: the config sits on the boo.fusion and describes
  // its anchor's loops. Layer norm loops: (rows, normalized); 64 threads
  // reduce a 256-element row slab, 4 elements each.
  // CHECK-LABEL: func.func @fused_layer_norm
  // CHECK: boo.fusion
  // CHECK: } {boo.lowering_config = #boo.lowering_config<workgroup = [1, 0], reduction = [0, 256], thread = [0, 4], workgroup_size = [64, 1, 1], subgroup_size = 64>}
  func.func @fused_layer_norm(%x: tensor<8x512xf16>) -> tensor<8x512xf16> {
    %0 = boo.fusion -> tensor<8x512xf16> {
      %y, %mean, %rstd = boo.layer_norm %x : tensor<8x512xf16> -> tensor<8x512xf16>, tensor<8xf32>, tensor<8xf32>
      %a = boo.activation gelu %y : tensor<8x512xf16>
      boo.yield %a : tensor<8x512xf16>
    } {boo.lowering_config = #boo.lowering_config<workgroup = [1, 0], reduction = [0, 256],
          thread = [0, 4], workgroup_size = [64, 1, 1], subgroup_size = 64>}
    return %0 : tensor<8x512xf16>
  }
}

// Every supported chip round-trips.
// CHECK: #boo.target<chip = "gfx90a">
// CHECK: #boo.target<chip = "gfx950">
// CHECK: #boo.target<chip = "gfx1100">
// CHECK: #boo.target<chip = "gfx1201">
module @chips attributes {
  test.a = #boo.target<chip = "gfx90a">, test.b = #boo.target<chip = "gfx950">,
  test.c = #boo.target<chip = "gfx1100">, test.d = #boo.target<chip = "gfx1201">} {
}

// #boo.stride_phases round-trips.
// CHECK: #boo.stride_phases<input_loops = [2, 3], tap_loops = [5, 6], strides = [2, 3], dilations = [1, 2], offsets = [1, -1]>
module @phases attributes {
  test.p = #boo.stride_phases<input_loops = [2, 3], tap_loops = [5, 6],
      strides = [2, 3], dilations = [1, 2], offsets = [1, -1]>} {
}
