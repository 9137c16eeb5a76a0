// RUN: boo-opt %s --boo-to-rocdl=chip=gfx90a | FileCheck %s
// RUN: boo-opt %s --boo-to-rocdl=chip=gfx942 | FileCheck %s
// RUN: boo-opt %s --boo-to-rocdl=chip=gfx950 | FileCheck %s
// RUN: boo-opt %s --boo-to-rocdl=chip=gfx1100 | FileCheck %s
// RUN: boo-opt %s --boo-to-rocdl=chip=gfx1201 | FileCheck %s

// Every op kind compiles for every chip, with odd shapes (3 and 35
// channels, 7x7 filters, 118x182 images) whose tiles do not divide the
// problem. boo-verify-rocdl-contract (the pipeline's last pass) rejects any
// code object that uses scratch or spills, so passing also means none does.
// The kernels are not run here.

// f16 NHWC/KYXC, 35 channels (a partial workgroup tile), stride 2, padding 1, bias.
// M (the output width, 10) is under one 16-row MMA tile: the few tiles
// leave CUs idle on every chip, so the reduction is split and a second
// kernel adds the partial sums and the bias.
// CHECK-LABEL: func.func @conv_nhwc_35(
// CHECK:         gpu.launch_func @conv_nhwc_35_k0::@conv_nhwc_35_k0
// CHECK:         gpu.launch_func @conv_nhwc_35_k1::@conv_nhwc_35_k1
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv_nhwc_35_k0
// CHECK:       gpu.binary @conv_nhwc_35_k1
// CHECK-NOT:   gpu.binary
func.func @conv_nhwc_35(%x: tensor<2x17x19x35xf16>, %w: tensor<35x3x3x35xf16>, %b: tensor<35xf16>) -> tensor<2x9x10x35xf16> {
  %y = boo.conv %x, %w bias(%b : tensor<35xf16>) {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x17x19x35xf16>, tensor<35x3x3x35xf16> -> tensor<2x9x10x35xf16>
  return %y : tensor<2x9x10x35xf16>
}

// bf16 NCHW 7x7 stride 2 on a 118x182 image, 3 input channels.
// CHECK-LABEL: func.func @conv_nchw_7x7(
// CHECK:         gpu.launch_func @conv_nchw_7x7_k0::@conv_nchw_7x7_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv_nchw_7x7_k0
// CHECK-NOT:   gpu.binary
func.func @conv_nchw_7x7(%x: tensor<1x3x118x182xbf16>, %w: tensor<8x3x7x7xbf16>) -> tensor<1x8x59x91xbf16> {
  %y = boo.conv %x, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 3, 3>, padding_high = array<i64: 3, 3>} : tensor<1x3x118x182xbf16>, tensor<8x3x7x7xbf16> -> tensor<1x8x59x91xbf16>
  return %y : tensor<1x8x59x91xbf16>
}

// Grouped (2 groups): the kernel reads and writes the caller's buffers
// through reshapes (no copy, no temporary).
// CHECK-LABEL: func.func @conv_grouped(
// CHECK-NOT:     gpu.alloc
// CHECK:         gpu.launch_func @conv_grouped_k0::@conv_grouped_k0
// CHECK-SAME:      args(%{{.+}} : memref<1x4x6x6xf32>, %{{.+}} : memref<6x2x3x3xf32>, %{{.+}} : memref<1x6x4x4xf32>)
// CHECK-NOT:     gpu.alloc
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv_grouped_k0
// CHECK-NOT:   gpu.binary
func.func @conv_grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %y = boo.conv %x, %w {groups = 2 : i64} : tensor<1x4x6x6xf32>, tensor<6x2x3x3xf32> -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}

// 1-D.
// CHECK-LABEL: func.func @conv_1d(
// CHECK:         gpu.launch_func @conv_1d_k0::@conv_1d_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv_1d_k0
// CHECK-NOT:   gpu.binary
func.func @conv_1d(%x: tensor<2x5x33xf32>, %w: tensor<7x5x3xf32>) -> tensor<2x7x31xf32> {
  %y = boo.conv %x, %w : tensor<2x5x33xf32>, tensor<7x5x3xf32> -> tensor<2x7x31xf32>
  return %y : tensor<2x7x31xf32>
}

// 3-D with padding.
// CHECK-LABEL: func.func @conv_3d(
// CHECK:         gpu.launch_func @conv_3d_k0::@conv_3d_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv_3d_k0
// CHECK-NOT:   gpu.binary
func.func @conv_3d(%x: tensor<1x3x5x6x7xf32>, %w: tensor<4x3x3x3x3xf32>) -> tensor<1x4x5x6x7xf32> {
  %y = boo.conv %x, %w {padding_low = array<i64: 1, 1, 1>, padding_high = array<i64: 1, 1, 1>} : tensor<1x3x5x6x7xf32>, tensor<4x3x3x3x3xf32> -> tensor<1x4x5x6x7xf32>
  return %y : tensor<1x4x5x6x7xf32>
}

// Backward data, stride 2: the zero-stuffed, padded gradient is never
// materialized (guarded loads).
// CHECK-LABEL: func.func @bwd_data_s2(
// CHECK:         gpu.launch_func @bwd_data_s2_k0::@bwd_data_s2_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @bwd_data_s2_k0
// CHECK-NOT:   gpu.binary
func.func @bwd_data_s2(%dy: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32> {
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x3x7x7xf32>
  return %dx : tensor<1x3x7x7xf32>
}

// Backward data, grouped and strided.
// CHECK-LABEL: func.func @bwd_data_grouped(
// CHECK:         gpu.launch_func @bwd_data_grouped_k0::@bwd_data_grouped_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @bwd_data_grouped_k0
// CHECK-NOT:   gpu.binary
func.func @bwd_data_grouped(%dy: tensor<1x4x4x4xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x2x7x7xf32> {
  %dx = boo.conv_bwd_data %dy, %w {groups = 2 : i64, strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32> -> tensor<1x2x7x7xf32>
  return %dx : tensor<1x2x7x7xf32>
}

// Backward weight, strided and dilated.
// CHECK-LABEL: func.func @bwd_weight(
// CHECK:         gpu.launch_func @bwd_weight_k0::@bwd_weight_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @bwd_weight_k0
// CHECK-NOT:   gpu.binary
func.func @bwd_weight(%dy: tensor<2x4x3x5xf32>, %x: tensor<2x3x9x7xf32>) -> tensor<4x3x3x3xf32> {
  %dw = boo.conv_bwd_weight %dy, %x {strides = array<i64: 2, 1>, dilations = array<i64: 2, 1>} : tensor<2x4x3x5xf32>, tensor<2x3x9x7xf32> -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// Bias gradient (f16).
// CHECK-LABEL: func.func @bwd_bias(
// CHECK:         gpu.launch_func @bwd_bias_k0::@bwd_bias_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @bwd_bias_k0
// CHECK-NOT:   gpu.binary
func.func @bwd_bias(%dy: tensor<2x5x5x8xf16>) -> tensor<8xf16> {
  %db = boo.conv_bwd_bias %dy {output_layout = "NHWC"} : tensor<2x5x5x8xf16> -> tensor<8xf16>
  return %db : tensor<8xf16>
}

// Layer norm forward (bf16), mean and rstd returned.
// CHECK-LABEL: func.func @layer_norm(
// CHECK:         gpu.launch_func @layer_norm_k0::@layer_norm_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @layer_norm_k0
// CHECK-NOT:   gpu.binary
func.func @layer_norm(%x: tensor<4x8x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>) -> (tensor<4x8x64xbf16>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %y, %m, %r = boo.layer_norm %x weight(%w : tensor<64xbf16>) bias(%b : tensor<64xbf16>) : tensor<4x8x64xbf16> -> tensor<4x8x64xbf16>, tensor<4x8xf32>, tensor<4x8xf32>
  return %y, %m, %r : tensor<4x8x64xbf16>, tensor<4x8xf32>, tensor<4x8xf32>
}

// Layer norm backward: dx (rows) and the parameter gradients (columns)
// have different iteration spaces: two kernels, dweight and dbias computed
// together in the second.
// CHECK-LABEL: func.func @layer_norm_bwd(
// CHECK:         gpu.launch_func @layer_norm_bwd_k0::@layer_norm_bwd_k0
// CHECK:         gpu.launch_func @layer_norm_bwd_k1::@layer_norm_bwd_k1
// CHECK-SAME:      args(%arg0 : {{.*}}, %arg1 : {{.*}}, %arg6 : memref<8xf32>, %arg7 : memref<8xf32>
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @layer_norm_bwd_k0
// CHECK:       gpu.binary @layer_norm_bwd_k1
// CHECK-NOT:   gpu.binary
func.func @layer_norm_bwd(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %dw, %db = boo.layer_norm_bwd %dy, %x, %m, %r weight(%w : tensor<8xf32>) : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %dx, %dw, %db : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// Every activation, including gelu (erf) and tanh: one element-wise kernel.
// CHECK-LABEL: func.func @activations(
// CHECK:         gpu.launch_func @activations_k0::@activations_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @activations_k0
// CHECK-NOT:   gpu.binary
func.func @activations(%x: tensor<3x35xf32>, %c: tensor<35xf32>) -> tensor<3x35xf32> {
  %0 = boo.activation gelu %x : tensor<3x35xf32>
  %1 = boo.activation gelu_tanh %0 : tensor<3x35xf32>
  %2 = boo.activation tanh %1 : tensor<3x35xf32>
  %3 = boo.activation sigmoid %2 : tensor<3x35xf32>
  %4 = boo.activation silu %3 : tensor<3x35xf32>
  %5 = boo.activation leaky_relu %4 {alpha = 0.1 : f32} : tensor<3x35xf32>
  %6 = boo.activation clamp %5 {min = 0.0 : f32, max = 6.0 : f32} : tensor<3x35xf32>
  %7 = boo.add %6, %c {channel_dim = 1 : i64} : tensor<3x35xf32>, tensor<35xf32>
  %8 = boo.mul %7, %x : tensor<3x35xf32>, tensor<3x35xf32>
  return %8 : tensor<3x35xf32>
}

