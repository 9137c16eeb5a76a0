// RUN: boo-opt %s --boo-to-rocdl=chip=gfx90a | FileCheck %s --check-prefixes=CHECK
// RUN: boo-opt %s --boo-to-rocdl=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,SPLIT
// RUN: boo-opt %s --boo-to-rocdl=chip=gfx950 | FileCheck %s --check-prefixes=CHECK,SPLIT
// RUN: boo-opt %s --boo-to-rocdl=chip=gfx1100 | FileCheck %s --check-prefixes=CHECK
// RUN: boo-opt %s --boo-to-rocdl=chip=gfx1201 | FileCheck %s --check-prefixes=CHECK

// Compile sweep: 30 problem signatures (ResNet-50 layers in bf16 NHWC, a
// conv + bias + relu and a conv + residual + relu fusion, depthwise, 1x1,
// 7x7 stride 2, 1-D and 3-D, backward data/weight/bias, layer norms, gelu,
// and 4 random convolutions from a fixed seed) compile for every chip. The
// pipeline's contract check rejects scratch use and spills, so every kernel
// here has neither. Each function is one kernel, except layer_norm_bwd
// (dx, dweight, dbias: 3) and those that split K (a second kernel adds the
// partial sums). Compile time is about 50 ms per kernel (see
// docs/GPUPipeline.md). Nothing is run.

// CHECK-LABEL: func.func @r50_conv1_7x7s2(
// CHECK:         gpu.launch_func @r50_conv1_7x7s2_k0::@r50_conv1_7x7s2_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_conv1_7x7s2_k0
func.func @r50_conv1_7x7s2(%x: tensor<2x224x224x3xbf16>, %w: tensor<64x7x7x3xbf16>) -> tensor<2x112x112x64xbf16> {
  %y = boo.conv %x, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 3, 3>, padding_high = array<i64: 3, 3>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x224x224x3xbf16>, tensor<64x7x7x3xbf16> -> tensor<2x112x112x64xbf16>
  return %y : tensor<2x112x112x64xbf16>
}

// CHECK-LABEL: func.func @r50_l1_1x1_64(
// CHECK:         gpu.launch_func @r50_l1_1x1_64_k0::@r50_l1_1x1_64_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_l1_1x1_64_k0
func.func @r50_l1_1x1_64(%x: tensor<2x56x56x64xbf16>, %w: tensor<64x1x1x64xbf16>) -> tensor<2x56x56x64xbf16> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x56x56x64xbf16>, tensor<64x1x1x64xbf16> -> tensor<2x56x56x64xbf16>
  return %y : tensor<2x56x56x64xbf16>
}

// CHECK-LABEL: func.func @r50_l1_3x3_64(
// CHECK:         gpu.launch_func @r50_l1_3x3_64_k0::@r50_l1_3x3_64_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_l1_3x3_64_k0
func.func @r50_l1_3x3_64(%x: tensor<2x56x56x64xbf16>, %w: tensor<64x3x3x64xbf16>) -> tensor<2x56x56x64xbf16> {
  %y = boo.conv %x, %w {padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x56x56x64xbf16>, tensor<64x3x3x64xbf16> -> tensor<2x56x56x64xbf16>
  return %y : tensor<2x56x56x64xbf16>
}

// CHECK-LABEL: func.func @r50_l1_1x1_256(
// CHECK:         gpu.launch_func @r50_l1_1x1_256_k0::@r50_l1_1x1_256_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_l1_1x1_256_k0
func.func @r50_l1_1x1_256(%x: tensor<2x56x56x64xbf16>, %w: tensor<256x1x1x64xbf16>) -> tensor<2x56x56x256xbf16> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x56x56x64xbf16>, tensor<256x1x1x64xbf16> -> tensor<2x56x56x256xbf16>
  return %y : tensor<2x56x56x256xbf16>
}

// Batch 2 at 28x28 leaves gfx942's 304 and gfx950's 256 CUs without
// enough waves: these two split their reduction (split-K), a second kernel
// adds the partial sums.
// CHECK-LABEL: func.func @r50_l2_3x3s2_128(
// CHECK:         gpu.launch_func @r50_l2_3x3s2_128_k0::@r50_l2_3x3s2_128_k0
// SPLIT:         gpu.launch_func @r50_l2_3x3s2_128_k1::@r50_l2_3x3s2_128_k1
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_l2_3x3s2_128_k0
func.func @r50_l2_3x3s2_128(%x: tensor<2x56x56x128xbf16>, %w: tensor<128x3x3x128xbf16>) -> tensor<2x28x28x128xbf16> {
  %y = boo.conv %x, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x56x56x128xbf16>, tensor<128x3x3x128xbf16> -> tensor<2x28x28x128xbf16>
  return %y : tensor<2x28x28x128xbf16>
}

// CHECK-LABEL: func.func @r50_l2_1x1_512(
// CHECK:         gpu.launch_func @r50_l2_1x1_512_k0::@r50_l2_1x1_512_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_l2_1x1_512_k0
func.func @r50_l2_1x1_512(%x: tensor<2x28x28x128xbf16>, %w: tensor<512x1x1x128xbf16>) -> tensor<2x28x28x512xbf16> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x28x28x128xbf16>, tensor<512x1x1x128xbf16> -> tensor<2x28x28x512xbf16>
  return %y : tensor<2x28x28x512xbf16>
}

// An M of 14 (the output width) under a 16-row MMA tile: few tiles,
// so gfx942 and gfx950 split the reduction here too.
// CHECK-LABEL: func.func @r50_l3_3x3_256(
// CHECK:         gpu.launch_func @r50_l3_3x3_256_k0::@r50_l3_3x3_256_k0
// SPLIT:         gpu.launch_func @r50_l3_3x3_256_k1::@r50_l3_3x3_256_k1
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_l3_3x3_256_k0
func.func @r50_l3_3x3_256(%x: tensor<2x14x14x256xbf16>, %w: tensor<256x3x3x256xbf16>) -> tensor<2x14x14x256xbf16> {
  %y = boo.conv %x, %w {padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x14x14x256xbf16>, tensor<256x3x3x256xbf16> -> tensor<2x14x14x256xbf16>
  return %y : tensor<2x14x14x256xbf16>
}

// CHECK-LABEL: func.func @r50_l4_1x1s2_2048(
// CHECK:         gpu.launch_func @r50_l4_1x1s2_2048_k0::@r50_l4_1x1s2_2048_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_l4_1x1s2_2048_k0
func.func @r50_l4_1x1s2_2048(%x: tensor<2x14x14x1024xbf16>, %w: tensor<2048x1x1x1024xbf16>) -> tensor<2x7x7x2048xbf16> {
  %y = boo.conv %x, %w {strides = array<i64: 2, 2>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x14x14x1024xbf16>, tensor<2048x1x1x1024xbf16> -> tensor<2x7x7x2048xbf16>
  return %y : tensor<2x7x7x2048xbf16>
}

// An M of 7 (the output width) under a 16-row MMA tile: few tiles,
// so gfx942 and gfx950 split the reduction here too.
// CHECK-LABEL: func.func @r50_l4_3x3_512(
// CHECK:         gpu.launch_func @r50_l4_3x3_512_k0::@r50_l4_3x3_512_k0
// SPLIT:         gpu.launch_func @r50_l4_3x3_512_k1::@r50_l4_3x3_512_k1
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_l4_3x3_512_k0
func.func @r50_l4_3x3_512(%x: tensor<2x7x7x512xbf16>, %w: tensor<512x3x3x512xbf16>) -> tensor<2x7x7x512xbf16> {
  %y = boo.conv %x, %w {padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x7x7x512xbf16>, tensor<512x3x3x512xbf16> -> tensor<2x7x7x512xbf16>
  return %y : tensor<2x7x7x512xbf16>
}

// CHECK-LABEL: func.func @r50_3x3_bias_relu_f16(
// CHECK:         gpu.launch_func @r50_3x3_bias_relu_f16_k0::@r50_3x3_bias_relu_f16_k0
// SPLIT:         gpu.launch_func @r50_3x3_bias_relu_f16_k1::@r50_3x3_bias_relu_f16_k1
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_3x3_bias_relu_f16_k0
func.func @r50_3x3_bias_relu_f16(%x: tensor<2x28x28x128xf16>, %w: tensor<128x3x3x128xf16>, %b: tensor<128xf16>) -> tensor<2x28x28x128xf16> {
  %y = boo.conv %x, %w {padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x28x28x128xf16>, tensor<128x3x3x128xf16> -> tensor<2x28x28x128xf16>
  %a = boo.add %y, %b {channel_dim = 3 : i64} : tensor<2x28x28x128xf16>, tensor<128xf16>
  %r = boo.activation relu %a : tensor<2x28x28x128xf16>
  return %r : tensor<2x28x28x128xf16>
}

// CHECK-LABEL: func.func @r50_1x1_residual_relu(
// CHECK:         gpu.launch_func @r50_1x1_residual_relu_k0::@r50_1x1_residual_relu_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @r50_1x1_residual_relu_k0
func.func @r50_1x1_residual_relu(%x: tensor<2x56x56x256xbf16>, %w: tensor<64x1x1x256xbf16>, %s: tensor<2x56x56x64xbf16>) -> tensor<2x56x56x64xbf16> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x56x56x256xbf16>, tensor<64x1x1x256xbf16> -> tensor<2x56x56x64xbf16>
  %a = boo.add %y, %s : tensor<2x56x56x64xbf16>, tensor<2x56x56x64xbf16>
  %r = boo.activation relu %a : tensor<2x56x56x64xbf16>
  return %r : tensor<2x56x56x64xbf16>
}

// CHECK-LABEL: func.func @depthwise_3x3(
// CHECK:         gpu.launch_func @depthwise_3x3_k0::@depthwise_3x3_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @depthwise_3x3_k0
func.func @depthwise_3x3(%x: tensor<1x112x112x32xbf16>, %w: tensor<32x3x3x1xbf16>) -> tensor<1x112x112x32xbf16> {
  %y = boo.conv %x, %w {padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, groups = 32 : i64, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x112x112x32xbf16>, tensor<32x3x3x1xbf16> -> tensor<1x112x112x32xbf16>
  return %y : tensor<1x112x112x32xbf16>
}

// CHECK-LABEL: func.func @depthwise_5x5s2(
// CHECK:         gpu.launch_func @depthwise_5x5s2_k0::@depthwise_5x5s2_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @depthwise_5x5s2_k0
func.func @depthwise_5x5s2(%x: tensor<1x96x56x56xf32>, %w: tensor<96x1x5x5xf32>) -> tensor<1x96x28x28xf32> {
  %y = boo.conv %x, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 2, 2>, padding_high = array<i64: 2, 2>, groups = 96 : i64, input_layout = "NCHW", filter_layout = "KCYX", output_layout = "NCHW"} : tensor<1x96x56x56xf32>, tensor<96x1x5x5xf32> -> tensor<1x96x28x28xf32>
  return %y : tensor<1x96x28x28xf32>
}

// CHECK-LABEL: func.func @pointwise_1x1(
// CHECK:         gpu.launch_func @pointwise_1x1_k0::@pointwise_1x1_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @pointwise_1x1_k0
func.func @pointwise_1x1(%x: tensor<1x112x112x32xbf16>, %w: tensor<16x1x1x32xbf16>) -> tensor<1x112x112x16xbf16> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x112x112x32xbf16>, tensor<16x1x1x32xbf16> -> tensor<1x112x112x16xbf16>
  return %y : tensor<1x112x112x16xbf16>
}

// CHECK-LABEL: func.func @conv_7x7s2_nchw(
// CHECK:         gpu.launch_func @conv_7x7s2_nchw_k0::@conv_7x7s2_nchw_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv_7x7s2_nchw_k0
func.func @conv_7x7s2_nchw(%x: tensor<1x3x230x230xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32> {
  %y = boo.conv %x, %w {strides = array<i64: 2, 2>, input_layout = "NCHW", filter_layout = "KCYX", output_layout = "NCHW"} : tensor<1x3x230x230xf32>, tensor<64x3x7x7xf32> -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// CHECK-LABEL: func.func @conv3d_3x3x3(
// CHECK:         gpu.launch_func @conv3d_3x3x3_k0::@conv3d_3x3x3_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv3d_3x3x3_k0
func.func @conv3d_3x3x3(%x: tensor<1x16x8x16x16xf32>, %w: tensor<32x16x3x3x3xf32>) -> tensor<1x32x8x16x16xf32> {
  %y = boo.conv %x, %w {padding_low = array<i64: 1, 1, 1>, padding_high = array<i64: 1, 1, 1>, input_layout = "NCDHW", filter_layout = "KCZYX", output_layout = "NCDHW"} : tensor<1x16x8x16x16xf32>, tensor<32x16x3x3x3xf32> -> tensor<1x32x8x16x16xf32>
  return %y : tensor<1x32x8x16x16xf32>
}

// CHECK-LABEL: func.func @conv3d_1x1x1_ndhwc(
// CHECK:         gpu.launch_func @conv3d_1x1x1_ndhwc_k0::@conv3d_1x1x1_ndhwc_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv3d_1x1x1_ndhwc_k0
func.func @conv3d_1x1x1_ndhwc(%x: tensor<2x4x8x8x32xf16>, %w: tensor<64x1x1x1x32xf16>) -> tensor<2x4x8x8x64xf16> {
  %y = boo.conv %x, %w {input_layout = "NDHWC", filter_layout = "KZYXC", output_layout = "NDHWC"} : tensor<2x4x8x8x32xf16>, tensor<64x1x1x1x32xf16> -> tensor<2x4x8x8x64xf16>
  return %y : tensor<2x4x8x8x64xf16>
}

// CHECK-LABEL: func.func @conv1d_k5s2(
// CHECK:         gpu.launch_func @conv1d_k5s2_k0::@conv1d_k5s2_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv1d_k5s2_k0
func.func @conv1d_k5s2(%x: tensor<4x16x100xf32>, %w: tensor<32x16x5xf32>) -> tensor<4x32x50xf32> {
  %y = boo.conv %x, %w {strides = array<i64: 2>, padding_low = array<i64: 2>, padding_high = array<i64: 2>, input_layout = "NCW", filter_layout = "KCX", output_layout = "NCW"} : tensor<4x16x100xf32>, tensor<32x16x5xf32> -> tensor<4x32x50xf32>
  return %y : tensor<4x32x50xf32>
}

// CHECK-LABEL: func.func @bwd_data_3x3s2(
// CHECK:         gpu.launch_func @bwd_data_3x3s2_k0::@bwd_data_3x3s2_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @bwd_data_3x3s2_k0
func.func @bwd_data_3x3s2(%dy: tensor<2x14x14x32xbf16>, %w: tensor<32x3x3x64xbf16>) -> tensor<2x28x28x64xbf16> {
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x14x14x32xbf16>, tensor<32x3x3x64xbf16> -> tensor<2x28x28x64xbf16>
  return %dx : tensor<2x28x28x64xbf16>
}

// CHECK-LABEL: func.func @bwd_data_1x1(
// CHECK:         gpu.launch_func @bwd_data_1x1_k0::@bwd_data_1x1_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @bwd_data_1x1_k0
func.func @bwd_data_1x1(%dy: tensor<2x128x14x14xf32>, %w: tensor<128x64x1x1xf32>) -> tensor<2x64x14x14xf32> {
  %dx = boo.conv_bwd_data %dy, %w {input_layout = "NCHW", filter_layout = "KCYX", output_layout = "NCHW"} : tensor<2x128x14x14xf32>, tensor<128x64x1x1xf32> -> tensor<2x64x14x14xf32>
  return %dx : tensor<2x64x14x14xf32>
}

// CHECK-LABEL: func.func @bwd_weight_3x3(
// CHECK:         gpu.launch_func @bwd_weight_3x3_k0::@bwd_weight_3x3_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @bwd_weight_3x3_k0
func.func @bwd_weight_3x3(%dy: tensor<2x14x14x64xbf16>, %x: tensor<2x14x14x64xbf16>) -> tensor<64x3x3x64xbf16> {
  %dw = boo.conv_bwd_weight %dy, %x {padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x14x14x64xbf16>, tensor<2x14x14x64xbf16> -> tensor<64x3x3x64xbf16>
  return %dw : tensor<64x3x3x64xbf16>
}

// CHECK-LABEL: func.func @bwd_weight_1x1_256_64(
// CHECK:         gpu.launch_func @bwd_weight_1x1_256_64_k0::@bwd_weight_1x1_256_64_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @bwd_weight_1x1_256_64_k0
func.func @bwd_weight_1x1_256_64(%dy: tensor<2x64x14x14xf32>, %x: tensor<2x256x14x14xf32>) -> tensor<64x256x1x1xf32> {
  %dw = boo.conv_bwd_weight %dy, %x {input_layout = "NCHW", filter_layout = "KCYX", output_layout = "NCHW"} : tensor<2x64x14x14xf32>, tensor<2x256x14x14xf32> -> tensor<64x256x1x1xf32>
  return %dw : tensor<64x256x1x1xf32>
}

// CHECK-LABEL: func.func @bias_grad(
// CHECK:         gpu.launch_func @bias_grad_k0::@bias_grad_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @bias_grad_k0
func.func @bias_grad(%dy: tensor<2x28x28x128xbf16>) -> tensor<128xbf16> {
  %db = boo.conv_bwd_bias %dy {output_layout = "NHWC"} : tensor<2x28x28x128xbf16> -> tensor<128xbf16>
  return %db : tensor<128xbf16>
}

// CHECK-LABEL: func.func @layer_norm_512x768(
// CHECK:         gpu.launch_func @layer_norm_512x768_k0::@layer_norm_512x768_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @layer_norm_512x768_k0
func.func @layer_norm_512x768(%x: tensor<512x768xbf16>, %w: tensor<768xbf16>, %b: tensor<768xbf16>) -> (tensor<512x768xbf16>, tensor<512xf32>, tensor<512xf32>) {
  %y, %m, %r = boo.layer_norm %x weight(%w : tensor<768xbf16>) bias(%b : tensor<768xbf16>) : tensor<512x768xbf16> -> tensor<512x768xbf16>, tensor<512xf32>, tensor<512xf32>
  return %y, %m, %r : tensor<512x768xbf16>, tensor<512xf32>, tensor<512xf32>
}

// CHECK-LABEL: func.func @layer_norm_bwd_128x1024(
// CHECK:         gpu.launch_func @layer_norm_bwd_128x1024_k0::@layer_norm_bwd_128x1024_k0
// CHECK:         gpu.launch_func @layer_norm_bwd_128x1024_k1::@layer_norm_bwd_128x1024_k1
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @layer_norm_bwd_128x1024_k0
// CHECK:       gpu.binary @layer_norm_bwd_128x1024_k1
func.func @layer_norm_bwd_128x1024(%dy: tensor<128x1024xf32>, %x: tensor<128x1024xf32>, %m: tensor<128xf32>, %r: tensor<128xf32>, %w: tensor<1024xf32>) -> (tensor<128x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) {
  %dx, %dw, %db = boo.layer_norm_bwd %dy, %x, %m, %r weight(%w : tensor<1024xf32>) : tensor<128x1024xf32>, tensor<128x1024xf32>, tensor<128xf32>, tensor<128xf32> -> tensor<128x1024xf32>, tensor<1024xf32>, tensor<1024xf32>
  return %dx, %dw, %db : tensor<128x1024xf32>, tensor<1024xf32>, tensor<1024xf32>
}

// CHECK-LABEL: func.func @gelu_4096x1024(
// CHECK:         gpu.launch_func @gelu_4096x1024_k0::@gelu_4096x1024_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @gelu_4096x1024_k0
func.func @gelu_4096x1024(%x: tensor<4096x1024xbf16>) -> tensor<4096x1024xbf16> {
  %y = boo.activation gelu %x : tensor<4096x1024xbf16>
  return %y : tensor<4096x1024xbf16>
}

// CHECK-LABEL: func.func @random_0(
// CHECK:         gpu.launch_func @random_0_k0::@random_0_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @random_0_k0
func.func @random_0(%x: tensor<2x5x53x15xf32>, %w: tensor<48x5x1x7xf32>) -> tensor<2x48x53x6xf32> {
  %y = boo.conv %x, %w {strides = array<i64: 1, 2>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 3>, input_layout = "NCHW", filter_layout = "KCYX", output_layout = "NCHW"} : tensor<2x5x53x15xf32>, tensor<48x5x1x7xf32> -> tensor<2x48x53x6xf32>
  return %y : tensor<2x48x53x6xf32>
}

// CHECK-LABEL: func.func @random_1(
// CHECK:         gpu.launch_func @random_1_k0::@random_1_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @random_1_k0
func.func @random_1(%x: tensor<1x3x15x48xf32>, %w: tensor<48x3x1x1xf32>) -> tensor<1x48x15x24xf32> {
  %y = boo.conv %x, %w {strides = array<i64: 1, 2>, input_layout = "NCHW", filter_layout = "KCYX", output_layout = "NCHW"} : tensor<1x3x15x48xf32>, tensor<48x3x1x1xf32> -> tensor<1x48x15x24xf32>
  return %y : tensor<1x48x15x24xf32>
}

// CHECK-LABEL: func.func @random_2(
// CHECK:         gpu.launch_func @random_2_k0::@random_2_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @random_2_k0
func.func @random_2(%x: tensor<3x3x47x55xbf16>, %w: tensor<35x1x1x3xbf16>) -> tensor<3x47x28x35xbf16> {
  %y = boo.conv %x, %w {strides = array<i64: 1, 2>, input_layout = "NCHW", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<3x3x47x55xbf16>, tensor<35x1x1x3xbf16> -> tensor<3x47x28x35xbf16>
  return %y : tensor<3x47x28x35xbf16>
}

// CHECK-LABEL: func.func @random_3(
// CHECK:         gpu.launch_func @random_3_k0::@random_3_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @random_3_k0
func.func @random_3(%x: tensor<2x16x49x41xf16>, %w: tensor<48x8x3x3xf16>) -> tensor<2x48x48x41xf16> {
  %y = boo.conv %x, %w {padding_low = array<i64: 0, 1>, padding_high = array<i64: 1, 1>, groups = 2 : i64, input_layout = "NCHW", filter_layout = "KCYX", output_layout = "NCHW"} : tensor<2x16x49x41xf16>, tensor<48x8x3x3xf16> -> tensor<2x48x48x41xf16>
  return %y : tensor<2x48x48x41xf16>
}
