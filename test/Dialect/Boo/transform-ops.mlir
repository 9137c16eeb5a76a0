// RUN: boo-opt %s | boo-opt | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: boo-opt %s --transform-interpreter | FileCheck %s

// transform.boo.match.problem: the op round-trips, and under the transform
// interpreter it matches Boo kernels (not other ops) by the glob over their
// problem signature and, with `chip`, by the chip of the nearest enclosing
// #boo.target (a kernel without one never matches a chip pattern).

// ROUNDTRIP-LABEL: transform.named_sequence @match_conv_f16_cdna3
// ROUNDTRIP:         transform.boo.match.problem %{{.*}}, "conv_2d_float16_forward_*" chip "gfx94*" : !transform.any_op
// ROUNDTRIP-LABEL: transform.named_sequence @match_layer_norm
// ROUNDTRIP:         transform.boo.match.problem %{{.*}}, "layer_norm_1d_{float16,float32}_forward_4x64*" : !transform.any_op

// CHECK-LABEL: module @gfx942
// CHECK:         boo.conv %{{.*}}, %{{.*}} {conv_f16_cdna3, filter_layout
// CHECK:         boo.layer_norm %{{.*}} {layer_norm}
// CHECK:         boo.activation relu %{{.*}} {kernel}
// A matrix product by its gemm name: bf16, 64 x 128 x 32, B transposed, a
// bias; the f32 one does not match.
// CHECK:         boo.matmul %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<32xbf16>) {gemm_bf16, transpose_rhs}
// CHECK:         boo.matmul %{{.*}}, %{{.*}} {kernel}
// The f16 conv on another chip, and on no chip, is only "a kernel".
// CHECK-LABEL: module @gfx1100
// CHECK:         boo.conv %{{.*}}, %{{.*}} {filter_layout = "KYXC", input_layout = "NHWC", kernel, output_layout
// CHECK-LABEL: module @no_target
// CHECK:         boo.conv %{{.*}}, %{{.*}} {filter_layout = "KYXC", input_layout = "NHWC", kernel, output_layout
// CHECK:         boo.conv %{{.*}}, %{{.*}} {filter_layout = "KYXC", input_layout = "NHWC", kernel, output_layout
// Ops that are not Boo kernels match nothing.
// CHECK-NOT:     {kernel}
module attributes {transform.with_named_sequence} {
  module @gfx942 attributes {boo.target = #boo.target<chip = "gfx942">} {
    func.func @conv(%x: tensor<1x8x8x4xf16>, %w: tensor<8x3x3x4xf16>) -> tensor<1x8x8x8xf16> {
      %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16> -> tensor<1x8x8x8xf16>
      return %0 : tensor<1x8x8x8xf16>
    }
    func.func @ln(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
      %y, %mean, %rstd = boo.layer_norm %x : tensor<4x64xf32> -> tensor<4x64xf32>, tensor<4xf32>, tensor<4xf32>
      return %y : tensor<4x64xf32>
    }
    func.func @relu(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
      %0 = boo.activation relu %x : tensor<4x64xf32>
      return %0 : tensor<4x64xf32>
    }
    func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<32x128xbf16>, %b: tensor<32xbf16>) -> tensor<64x32xbf16> {
      %0 = boo.matmul %x, %w bias(%b : tensor<32xbf16>) {transpose_rhs} : tensor<64x128xbf16>, tensor<32x128xbf16> -> tensor<64x32xbf16>
      return %0 : tensor<64x32xbf16>
    }
    func.func @mm_f32(%x: tensor<64x128xf32>, %w: tensor<128x32xf32>) -> tensor<64x32xf32> {
      %0 = boo.matmul %x, %w : tensor<64x128xf32>, tensor<128x32xf32> -> tensor<64x32xf32>
      return %0 : tensor<64x32xf32>
    }
  }
  module @gfx1100 attributes {boo.target = #boo.target<chip = "gfx1100">} {
    func.func @conv(%x: tensor<1x8x8x4xf16>, %w: tensor<8x3x3x4xf16>) -> tensor<1x8x8x8xf16> {
      %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16> -> tensor<1x8x8x8xf16>
      return %0 : tensor<1x8x8x8xf16>
    }
  }
  module @no_target {
    func.func @conv(%x: tensor<1x8x8x4xf16>, %w: tensor<8x3x3x4xf16>) -> tensor<1x8x8x8xf16> {
      %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16> -> tensor<1x8x8x8xf16>
      return %0 : tensor<1x8x8x8xf16>
    }
    // Another signature: f32 does not match the f16 pattern on any chip.
    func.func @conv_f32(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>) -> tensor<1x8x8x8xf32> {
      %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32> -> tensor<1x8x8x8xf32>
      return %0 : tensor<1x8x8x8xf32>
    }
  }

  transform.named_sequence @match_conv_f16_cdna3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.boo.match.problem %op, "conv_2d_float16_forward_*" chip "gfx94*" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_layer_norm(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.boo.match.problem %op, "layer_norm_1d_{float16,float32}_forward_4x64*" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_gemm_bf16(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.boo.match.problem %op, "gemm_bfloat16_forward_64x128x32_transB_beta" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_any_kernel(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.boo.match.problem %op, "*" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @tag_conv(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "conv_f16_cdna3" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @tag_layer_norm(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "layer_norm" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @tag_gemm(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "gemm_bf16" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @tag_kernel(%op: !transform.any_op {transform.readonly}) {
    transform.annotate %op "kernel" : !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.consumed}) {
    %0 = transform.foreach_match in %root
        @match_conv_f16_cdna3 -> @tag_conv,
        @match_layer_norm -> @tag_layer_norm,
        @match_gemm_bf16 -> @tag_gemm,
        @match_any_kernel -> @tag_kernel
        : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
