// RUN: boo-opt %s -split-input-file | boo-opt -split-input-file | FileCheck %s

// Round trip of every op in its custom assembly.

// CHECK-LABEL: func.func @conv_nhwc_grouped
// CHECK: boo.conv %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<16xbf16>) {filter_layout = "KYXC", groups = 2 : i64, input_layout = "NHWC", output_layout = "NHWC", padding_high = array<i64: 1, 1>, padding_low = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<2x9x9x8xbf16>, tensor<16x3x3x4xbf16> -> tensor<2x5x5x16xbf16>
func.func @conv_nhwc_grouped(%x: tensor<2x9x9x8xbf16>, %w: tensor<16x3x3x4xbf16>, %b: tensor<16xbf16>) -> tensor<2x5x5x16xbf16> {
  %y = boo.conv %x, %w bias(%b : tensor<16xbf16>) {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, groups = 2 : i64, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x9x9x8xbf16>, tensor<16x3x3x4xbf16> -> tensor<2x5x5x16xbf16>
  return %y : tensor<2x5x5x16xbf16>
}

// -----

// CHECK-LABEL: func.func @conv_1d_3d
// CHECK: boo.conv %{{.*}}, %{{.*}} : tensor<1x4x10xf16>, tensor<8x4x3xf16> -> tensor<1x8x8xf16>
// CHECK: boo.conv %{{.*}}, %{{.*}} {dilations = array<i64: 1, 2, 1>, filter_layout = "NDHWC", input_layout = "NDHWC", output_layout = "NDHWC"}
func.func @conv_1d_3d(%x: tensor<1x4x10xf16>, %w: tensor<8x4x3xf16>, %x3: tensor<1x5x9x9x4xf32>, %w3: tensor<8x3x3x3x4xf32>) {
  %a = boo.conv %x, %w : tensor<1x4x10xf16>, tensor<8x4x3xf16> -> tensor<1x8x8xf16>
  %b = boo.conv %x3, %w3 {dilations = array<i64: 1, 2, 1>, input_layout = "NDHWC", filter_layout = "NDHWC", output_layout = "NDHWC"} : tensor<1x5x9x9x4xf32>, tensor<8x3x3x3x4xf32> -> tensor<1x3x5x7x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @backward
// CHECK: boo.conv_bwd_data %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>} : tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x3x9x9xf32>
// CHECK: boo.conv_bwd_weight %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>} : tensor<1x4x4x4xf32>, tensor<1x3x9x9xf32> -> tensor<4x3x3x3xf32>
// CHECK: boo.conv_bwd_bias %{{.*}} : tensor<1x4x4x4xf32> -> tensor<4xf32>
func.func @backward(%dy: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x3xf32>, %x: tensor<1x3x9x9xf32>) {
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>} : tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x3x9x9xf32>
  %dw = boo.conv_bwd_weight %dy, %x {strides = array<i64: 2, 2>} : tensor<1x4x4x4xf32>, tensor<1x3x9x9xf32> -> tensor<4x3x3x3xf32>
  %db = boo.conv_bwd_bias %dy : tensor<1x4x4x4xf32> -> tensor<4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @layer_norm
// CHECK: boo.layer_norm %{{.*}} weight(%{{.*}} : tensor<64xf16>) bias(%{{.*}} : tensor<64xf16>) {epsilon = 1.000000e-03 : f32} : tensor<8x64xf16> -> tensor<8x64xf16>, tensor<8xf32>, tensor<8xf32>
// CHECK: boo.layer_norm_bwd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} weight(%{{.*}} : tensor<64xf16>) : tensor<8x64xf16>, tensor<8x64xf16>, tensor<8xf32>, tensor<8xf32> -> tensor<8x64xf16>, tensor<64xf16>, tensor<64xf16>
func.func @layer_norm(%x: tensor<8x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf16>, %dy: tensor<8x64xf16>) {
  %y, %m, %r = boo.layer_norm %x weight(%w : tensor<64xf16>) bias(%b : tensor<64xf16>) {epsilon = 1.0e-3 : f32} : tensor<8x64xf16> -> tensor<8x64xf16>, tensor<8xf32>, tensor<8xf32>
  %dx, %dw, %db = boo.layer_norm_bwd %dy, %x, %m, %r weight(%w : tensor<64xf16>) : tensor<8x64xf16>, tensor<8x64xf16>, tensor<8xf32>, tensor<8xf32> -> tensor<8x64xf16>, tensor<64xf16>, tensor<64xf16>
  return
}

// -----

// CHECK-LABEL: func.func @batch_norm
// CHECK: boo.batch_norm %{{.*}} weight(%{{.*}} : tensor<64xf32>) bias(%{{.*}} : tensor<64xf32>) running(%{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>) {feature_dims = array<i64: 3>, momentum = 2.000000e-01 : f32, training} : tensor<2x4x4x64xbf16> -> tensor<2x4x4x64xbf16>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK: boo.batch_norm %{{.*}} running(%{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>) {epsilon = 1.000000e-03 : f32, feature_dims = array<i64: 3>} : tensor<2x4x4x64xbf16> -> tensor<2x4x4x64xbf16>, tensor<64xf32>, tensor<64xf32>
// CHECK: boo.batch_norm_bwd %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} weight(%{{.*}} : tensor<64xf32>) {feature_dims = array<i64: 3>} : tensor<2x4x4x64xbf16>, tensor<2x4x4x64xbf16>, tensor<64xf32>, tensor<64xf32> -> tensor<2x4x4x64xbf16>, tensor<64xf32>, tensor<64xf32>
func.func @batch_norm(%x: tensor<2x4x4x64xbf16>, %w: tensor<64xf32>, %b: tensor<64xf32>, %rm: tensor<64xf32>, %rv: tensor<64xf32>, %dy: tensor<2x4x4x64xbf16>) {
  %y, %m, %r, %nm, %nv = boo.batch_norm %x weight(%w : tensor<64xf32>) bias(%b : tensor<64xf32>) running(%rm, %rv : tensor<64xf32>, tensor<64xf32>) {feature_dims = array<i64: 3>, training, momentum = 0.2 : f32} : tensor<2x4x4x64xbf16> -> tensor<2x4x4x64xbf16>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  %yi, %mi, %ri = boo.batch_norm %x running(%rm, %rv : tensor<64xf32>, tensor<64xf32>) {feature_dims = array<i64: 3>, epsilon = 1.0e-3 : f32} : tensor<2x4x4x64xbf16> -> tensor<2x4x4x64xbf16>, tensor<64xf32>, tensor<64xf32>
  %dx, %dw, %db = boo.batch_norm_bwd %dy, %x, %m, %r weight(%w : tensor<64xf32>) {feature_dims = array<i64: 3>} : tensor<2x4x4x64xbf16>, tensor<2x4x4x64xbf16>, tensor<64xf32>, tensor<64xf32> -> tensor<2x4x4x64xbf16>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

// CHECK-LABEL: func.func @arg_reductions
// CHECK: boo.argmax %{{.*}} {dim = 1 : i64} : tensor<4x8x16xf32> -> tensor<4x16xi64>
// CHECK: boo.argmin %{{.*}} {keepdim} : tensor<4x8x16xf32> -> tensor<1x1x1xi64>
func.func @arg_reductions(%x: tensor<4x8x16xf32>) {
  %0 = boo.argmax %x {dim = 1 : i64} : tensor<4x8x16xf32> -> tensor<4x16xi64>
  %1 = boo.argmin %x {keepdim} : tensor<4x8x16xf32> -> tensor<1x1x1xi64>
  return
}

// -----

// CHECK-LABEL: func.func @elementwise
// CHECK: boo.activation relu
// CHECK: boo.activation sigmoid
// CHECK: boo.activation tanh
// CHECK: boo.activation gelu %
// CHECK: boo.activation gelu_tanh
// CHECK: boo.activation silu
// CHECK: boo.activation leaky_relu %{{.*}} {alpha = 1.000000e-01 : f32}
// CHECK: boo.activation clamp %{{.*}} {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
// CHECK: boo.add %{{.*}}, %{{.*}} {channel_dim = 1 : i64} : tensor<2x4xf32>, tensor<4xf32>
// CHECK: boo.mul %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<2x4xf32>
func.func @elementwise(%x: tensor<2x4xf32>, %c: tensor<4xf32>) {
  %0 = boo.activation relu %x : tensor<2x4xf32>
  %1 = boo.activation sigmoid %0 : tensor<2x4xf32>
  %2 = boo.activation tanh %1 : tensor<2x4xf32>
  %3 = boo.activation gelu %2 : tensor<2x4xf32>
  %4 = boo.activation gelu_tanh %3 : tensor<2x4xf32>
  %5 = boo.activation silu %4 : tensor<2x4xf32>
  %6 = boo.activation leaky_relu %5 {alpha = 0.1 : f32} : tensor<2x4xf32>
  %7 = boo.activation clamp %6 {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x4xf32>
  %8 = boo.add %7, %c {channel_dim = 1 : i64} : tensor<2x4xf32>, tensor<4xf32>
  %9 = boo.mul %8, %x : tensor<2x4xf32>, tensor<2x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @fusion
// CHECK: %[[R:.+]] = boo.fusion -> tensor<1x8x8x16xf32> {
// CHECK:   %[[C:.+]] = boo.conv
// CHECK:   %[[A:.+]] = boo.activation relu %[[C]]
// CHECK:   boo.yield %[[A]] : tensor<1x8x8x16xf32>
// CHECK: return %[[R]]
func.func @fusion(%x: tensor<1x8x8x4xf32>, %w: tensor<16x1x1x4xf32>) -> tensor<1x8x8x16xf32> {
  %r = boo.fusion -> tensor<1x8x8x16xf32> {
    %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x8x8x4xf32>, tensor<16x1x1x4xf32> -> tensor<1x8x8x16xf32>
    %a = boo.activation relu %c : tensor<1x8x8x16xf32>
    boo.yield %a : tensor<1x8x8x16xf32>
  }
  return %r : tensor<1x8x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @matmuls
// CHECK: boo.matmul %{{.*}}, %{{.*}} : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
// CHECK: boo.matmul %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<64xbf16>) {transpose_rhs} : tensor<32x128xbf16>, tensor<64x128xbf16> -> tensor<32x64xbf16>
// CHECK: boo.matmul %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<1x32x1xf16>) {alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64, transpose_lhs} : tensor<3x128x32xf16>, tensor<3x128x64xf16> -> tensor<3x32x64xf16>
func.func @matmuls(%a: tensor<32x128xf32>, %b: tensor<128x64xf32>,
                   %x: tensor<32x128xbf16>, %w: tensor<64x128xbf16>,
                   %bias: tensor<64xbf16>, %p: tensor<3x128x32xf16>,
                   %q: tensor<3x128x64xf16>, %c: tensor<1x32x1xf16>) {
  %0 = boo.matmul %a, %b : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
  %1 = boo.matmul %x, %w bias(%bias : tensor<64xbf16>) {transpose_rhs} : tensor<32x128xbf16>, tensor<64x128xbf16> -> tensor<32x64xbf16>
  %2 = boo.matmul %p, %q bias(%c : tensor<1x32x1xf16>) {transpose_lhs, alpha = 2.0, beta = 0.5} : tensor<3x128x32xf16>, tensor<3x128x64xf16> -> tensor<3x32x64xf16>
  return
}

// -----

// f64 products (PyTorch's double bmm); alpha and beta keep f64 values.
// CHECK-LABEL: func.func @matmul_f64
// CHECK: boo.matmul %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<7xf64>) {alpha = 1.000000e-01 : f64, beta = 0.33333333333333331 : f64} : tensor<4x3x5xf64>, tensor<4x5x7xf64> -> tensor<4x3x7xf64>
func.func @matmul_f64(%a: tensor<4x3x5xf64>, %b: tensor<4x5x7xf64>, %c: tensor<7xf64>) -> tensor<4x3x7xf64> {
  %0 = boo.matmul %a, %b bias(%c : tensor<7xf64>) {alpha = 0.1, beta = 0.33333333333333331} : tensor<4x3x5xf64>, tensor<4x5x7xf64> -> tensor<4x3x7xf64>
  return %0 : tensor<4x3x7xf64>
}

// -----

// A view read from storage through strides (a gap of 1 between rows).
// CHECK-LABEL: func.func @as_strided
// CHECK: boo.as_strided %{{.*}} {strides = array<i64: 5, 1>} : tensor<19xf32> -> tensor<4x4xf32>
func.func @as_strided(%s: tensor<19xf32>) -> tensor<4x4xf32> {
  %0 = boo.as_strided %s {strides = array<i64: 5, 1>} : tensor<19xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
