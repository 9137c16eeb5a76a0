// The README's example: a 3x3 NHWC convolution with bias and relu, which
// boo-form-fusions groups into one boo.fusion (one kernel).
func.func @conv_bias_relu(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x3x2xf32>,
                          %b: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %c = boo.conv %x, %w {padding_low = array<i64: 1, 1>,
                        padding_high = array<i64: 1, 1>,
                        input_layout = "NHWC", filter_layout = "KYXC",
                        output_layout = "NHWC"}
       : tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32> -> tensor<1x4x4x3xf32>
  %a = boo.add %c, %b {channel_dim = 3 : i64}
       : tensor<1x4x4x3xf32>, tensor<3xf32>
  %r = boo.activation relu %a : tensor<1x4x4x3xf32>
  return %r : tensor<1x4x4x3xf32>
}
