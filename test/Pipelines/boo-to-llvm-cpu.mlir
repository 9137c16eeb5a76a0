// RUN: boo-opt %s -split-input-file --boo-to-llvm-cpu | FileCheck %s
// RUN: boo-opt %s -split-input-file --boo-to-llvm-cpu="vectorize=false" | FileCheck %s --check-prefix=SCALAR

// conv + bias + relu becomes one LLVM function whose result is a trailing
// out-param memref (descriptor fields expanded); the 3x3 conv's tiles are
// 32-lane FMAs; nothing but LLVM dialect is left.
// CHECK-LABEL: llvm.func @conv_bias_relu(
// CHECK-SAME:    %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64
// CHECK:         llvm.intr.fmuladd(%{{.+}}, %{{.+}}, %{{.+}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK:         llvm.fcmp
// CHECK:         llvm.select
// CHECK-NOT:     {{(boo|linalg|tensor|memref|vector|scf|func)\.}}
// SCALAR-LABEL: llvm.func @conv_bias_relu(
// SCALAR-NOT:    vector<
// SCALAR:        llvm.fmul %{{.+}}, %{{.+}} : f32
func.func @conv_bias_relu(%x: tensor<1x10x10x16xf32>, %w: tensor<32x3x3x16xf32>, %b: tensor<32xf32>) -> tensor<1x8x8x32xf32> {
  %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x10x10x16xf32>, tensor<32x3x3x16xf32> -> tensor<1x8x8x32xf32>
  %a = boo.add %c, %b {channel_dim = 3 : i64} : tensor<1x8x8x32xf32>, tensor<32xf32>
  %r = boo.activation relu %a : tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}

// -----

// Every op kind lowers (layer norm, backward convolutions, bf16, gelu).
// CHECK-LABEL: llvm.func @everything
// CHECK:         llvm.call @erff
// CHECK-NOT:     {{(boo|linalg|tensor|memref|vector|scf|func)\.}}
func.func @everything(%x: tensor<2x8xbf16>, %dy: tensor<1x4x4x4xf16>, %w: tensor<4x3x3x3xf16>, %xi: tensor<1x3x9x9xf16>) -> (tensor<2x8xbf16>, tensor<2xf32>, tensor<1x3x9x9xf16>, tensor<4x3x3x3xf16>, tensor<4xf16>) {
  %y, %m, %r = boo.layer_norm %x : tensor<2x8xbf16> -> tensor<2x8xbf16>, tensor<2xf32>, tensor<2xf32>
  %g = boo.activation gelu %y : tensor<2x8xbf16>
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>} : tensor<1x4x4x4xf16>, tensor<4x3x3x3xf16> -> tensor<1x3x9x9xf16>
  %dw = boo.conv_bwd_weight %dy, %xi {strides = array<i64: 2, 2>} : tensor<1x4x4x4xf16>, tensor<1x3x9x9xf16> -> tensor<4x3x3x3xf16>
  %db = boo.conv_bwd_bias %dy : tensor<1x4x4x4xf16> -> tensor<4xf16>
  return %g, %m, %dx, %dw, %db : tensor<2x8xbf16>, tensor<2xf32>, tensor<1x3x9x9xf16>, tensor<4x3x3x3xf16>, tensor<4xf16>
}
