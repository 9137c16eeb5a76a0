// Tiny convolutions run end to end on the CPU; every expected value is
// worked out by hand in the comments. Each function runs with the default
// (vectorized) pipeline and with scalar loops.

// [1 2 3] (*) [1 1]: out W = (3 - 1 - 1)/1 + 1 = 2; y = [1+2, 2+3] = [3 5].
// RUN: boo-run-module --module=%s --function=conv1d --device=cpu \
// RUN:   --input="1x1x3xf32=1 2 3" --input="1x1x2xf32=1 1" \
// RUN:   | FileCheck %s --check-prefix=CONV1D
// RUN: boo-run-module --module=%s --function=conv1d --device=cpu \
// RUN:   --cpu-pipeline-options="vectorize=false" \
// RUN:   --input="1x1x3xf32=1 2 3" --input="1x1x2xf32=1 1" \
// RUN:   | FileCheck %s --check-prefix=CONV1D
// CONV1D: result[0]: 1x1x2xf32={{\[\[}}3 5]]
func.func @conv1d(%x: tensor<1x1x3xf32>, %w: tensor<1x1x2xf32>) -> tensor<1x1x2xf32> {
  %y = boo.conv %x, %w : tensor<1x1x3xf32>, tensor<1x1x2xf32> -> tensor<1x1x2xf32>
  return %y : tensor<1x1x2xf32>
}

// Padding 1 on both sides reads [0 1 2 3 0]; out W = (3+2-1-1)/1+1 = 4:
// [0+1, 1+2, 2+3, 3+0] = [1 3 5 3], plus bias 0.5: [1.5 3.5 5.5 3.5].
// RUN: boo-run-module --module=%s --function=conv1d_pad_bias \
// RUN:   --input="1x1x3xf32=1 2 3" --input="1x1x2xf32=1 1" --input="1xf32=0.5" \
// RUN:   | FileCheck %s --check-prefix=PADBIAS
// RUN: boo-run-module --module=%s --function=conv1d_pad_bias \
// RUN:   --cpu-pipeline-options="vectorize=false" \
// RUN:   --input="1x1x3xf32=1 2 3" --input="1x1x2xf32=1 1" --input="1xf32=0.5" \
// RUN:   | FileCheck %s --check-prefix=PADBIAS
// PADBIAS: result[0]: 1x1x4xf32={{\[\[}}1.5 3.5 5.5 3.5]]
func.func @conv1d_pad_bias(%x: tensor<1x1x3xf32>, %w: tensor<1x1x2xf32>,
                           %b: tensor<1xf32>) -> tensor<1x1x4xf32> {
  %y = boo.conv %x, %w bias(%b : tensor<1xf32>) {
         padding_low = array<i64: 1>, padding_high = array<i64: 1>}
       : tensor<1x1x3xf32>, tensor<1x1x2xf32> -> tensor<1x1x4xf32>
  return %y : tensor<1x1x4xf32>
}

// Asymmetric padding (2 low, 0 high), dilation 2, stride 2:
// x = [1 2 3 4 5] padded to p = [0 0 1 2 3 4 5], w = [1 10] with taps
// p[2o] and p[2o + 2]; out W = (5+2+0-2-1)/2+1 = 3:
//   y0 = p0 + 10 p2 = 0 + 10 = 10, y1 = p2 + 10 p4 = 1 + 30 = 31,
//   y2 = p4 + 10 p6 = 3 + 50 = 53.
// RUN: boo-run-module --module=%s --function=conv1d_asym \
// RUN:   --input="1x1x5xf32=1 2 3 4 5" --input="1x1x2xf32=1 10" \
// RUN:   | FileCheck %s --check-prefix=ASYM
// RUN: boo-run-module --module=%s --function=conv1d_asym \
// RUN:   --cpu-pipeline-options="vectorize=false" \
// RUN:   --input="1x1x5xf32=1 2 3 4 5" --input="1x1x2xf32=1 10" \
// RUN:   | FileCheck %s --check-prefix=ASYM
// ASYM: result[0]: 1x1x3xf32={{\[\[}}10 31 53]]
func.func @conv1d_asym(%x: tensor<1x1x5xf32>, %w: tensor<1x1x2xf32>) -> tensor<1x1x3xf32> {
  %y = boo.conv %x, %w {strides = array<i64: 2>, dilations = array<i64: 2>,
                        padding_low = array<i64: 2>, padding_high = array<i64: 0>}
       : tensor<1x1x5xf32>, tensor<1x1x2xf32> -> tensor<1x1x3xf32>
  return %y : tensor<1x1x3xf32>
}

// NHWC, 1x1 filter [1 10] over C = 2: y = x_c0 + 10 x_c1. x in NHWC order
// (C fastest): pixels (1,2) (3,4) (5,6) (7,8) -> 21 43 65 87.
// RUN: boo-run-module --module=%s --function=conv2d_nhwc \
// RUN:   --input="1x2x2x2xf32=1 2 3 4 5 6 7 8" --input="1x1x1x2xf32=1 10" \
// RUN:   | FileCheck %s --check-prefix=NHWC
// NHWC: result[0]: 1x2x2x1xf32={{\[\[}}[21][43]]{{\[\[}}65][87]]]
func.func @conv2d_nhwc(%x: tensor<1x2x2x2xf32>, %w: tensor<1x1x1x2xf32>) -> tensor<1x2x2x1xf32> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC",
                        output_layout = "NHWC"}
       : tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32> -> tensor<1x2x2x1xf32>
  return %y : tensor<1x2x2x1xf32>
}

// Two groups, C = 4, K = 2: k0 sees c0, c1 with [1 10]; k1 sees c2, c3 with
// [100 1000]. x = [1 2 3 4]: y = [1 + 20, 300 + 4000] = [21 4300].
// RUN: boo-run-module --module=%s --function=conv_grouped \
// RUN:   --input="1x4x1xf32=1 2 3 4" --input="2x2x1xf32=1 10 100 1000" \
// RUN:   | FileCheck %s --check-prefix=GROUPED
// GROUPED: result[0]: 1x2x1xf32={{\[\[}}21][4300]]
func.func @conv_grouped(%x: tensor<1x4x1xf32>, %w: tensor<2x2x1xf32>) -> tensor<1x2x1xf32> {
  %y = boo.conv %x, %w {groups = 2 : i64}
       : tensor<1x4x1xf32>, tensor<2x2x1xf32> -> tensor<1x2x1xf32>
  return %y : tensor<1x2x1xf32>
}

// Depthwise in bf16 (all values exact): channel 0 [1 2 3] (*) [1 1] =
// [3 5]; channel 1 [4 5 6] (*) [1 -1] = [4-5, 5-6] = [-1 -1].
// RUN: boo-run-module --module=%s --function=depthwise_bf16 \
// RUN:   --input="1x2x3xbf16=1 2 3 4 5 6" --input="2x1x2xbf16=1 1 1 -1" \
// RUN:   | FileCheck %s --check-prefix=DEPTHWISE
// DEPTHWISE: result[0]: 1x2x2xbf16={{\[\[}}3 5][-1 -1]]
func.func @depthwise_bf16(%x: tensor<1x2x3xbf16>, %w: tensor<2x1x2xbf16>) -> tensor<1x2x2xbf16> {
  %y = boo.conv %x, %w {groups = 2 : i64}
       : tensor<1x2x3xbf16>, tensor<2x1x2xbf16> -> tensor<1x2x2xbf16>
  return %y : tensor<1x2x2xbf16>
}

// Backward data, stride 2, padding 1 on both sides, w = [1 2], W = 3:
// the forward reads p = [0 x0 x1 x2 0], out W = (3+2-1-1)/2+1 = 2,
// y0 = p0 + 2 p1 = 2 x0, y1 = p2 + 2 p3 = x1 + 2 x2. With dy = [1 10]:
// dx0 = 2 dy0 = 2, dx1 = dy1 = 10, dx2 = 2 dy1 = 20.
// RUN: boo-run-module --module=%s --function=bwd_data_stride_pad \
// RUN:   --input="1x1x2xf32=1 10" --input="1x1x2xf32=1 2" \
// RUN:   | FileCheck %s --check-prefix=BWDDATA
// RUN: boo-run-module --module=%s --function=bwd_data_stride_pad \
// RUN:   --cpu-pipeline-options="vectorize=false" \
// RUN:   --input="1x1x2xf32=1 10" --input="1x1x2xf32=1 2" \
// RUN:   | FileCheck %s --check-prefix=BWDDATA
// BWDDATA: result[0]: 1x1x3xf32={{\[\[}}2 10 20]]
func.func @bwd_data_stride_pad(%dy: tensor<1x1x2xf32>, %w: tensor<1x1x2xf32>) -> tensor<1x1x3xf32> {
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2>,
          padding_low = array<i64: 1>, padding_high = array<i64: 1>}
        : tensor<1x1x2xf32>, tensor<1x1x2xf32> -> tensor<1x1x3xf32>
  return %dx : tensor<1x1x3xf32>
}

// Stride 2 over W = 3 with w = [1 2] and no padding: out W = 1,
// y0 = x0 + 2 x1, and x2 is never read. dy = [5]: dx = [5 10 0].
// RUN: boo-run-module --module=%s --function=bwd_data_unread \
// RUN:   --input="1x1x1xf32=5" --input="1x1x2xf32=1 2" \
// RUN:   | FileCheck %s --check-prefix=UNREAD
// UNREAD: result[0]: 1x1x3xf32={{\[\[}}5 10 0]]
func.func @bwd_data_unread(%dy: tensor<1x1x1xf32>, %w: tensor<1x1x2xf32>) -> tensor<1x1x3xf32> {
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2>}
        : tensor<1x1x1xf32>, tensor<1x1x2xf32> -> tensor<1x1x3xf32>
  return %dx : tensor<1x1x3xf32>
}

// A tap that only ever reads padding: W = 1, a 1-tap filter, stride 2,
// padding 1 low: out W = (1+1-0-1)/2+1 = 1 and y0 reads p0 = padding, so
// the forward gives [0] and the input gradient is [0] whatever dy and w are.
// RUN: boo-run-module --module=%s --function=bwd_data_all_padding \
// RUN:   --input="1x1x1xf32=5" --input="1x1x1xf32=3" \
// RUN:   | FileCheck %s --check-prefix=ALLPAD
// RUN: boo-run-module --module=%s --function=bwd_data_all_padding \
// RUN:   --cpu-pipeline-options="vectorize=false" \
// RUN:   --input="1x1x1xf32=5" --input="1x1x1xf32=3" \
// RUN:   | FileCheck %s --check-prefix=ALLPAD
// ALLPAD: result[0]: 1x1x1xf32={{\[\[}}0]]
func.func @bwd_data_all_padding(%dy: tensor<1x1x1xf32>, %w: tensor<1x1x1xf32>) -> tensor<1x1x1xf32> {
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2>,
          padding_low = array<i64: 1>, padding_high = array<i64: 0>}
        : tensor<1x1x1xf32>, tensor<1x1x1xf32> -> tensor<1x1x1xf32>
  return %dx : tensor<1x1x1xf32>
}

// Backward weight: y0 = w0 x0 + w1 x1, y1 = w0 x1 + w1 x2. x = [1 2 3],
// dy = [1 1]: dw0 = x0 + x1 = 3, dw1 = x1 + x2 = 5.
// RUN: boo-run-module --module=%s --function=bwd_weight \
// RUN:   --input="1x1x2xf32=1 1" --input="1x1x3xf32=1 2 3" \
// RUN:   | FileCheck %s --check-prefix=BWDWEIGHT
// RUN: boo-run-module --module=%s --function=bwd_weight \
// RUN:   --cpu-pipeline-options="vectorize=false" \
// RUN:   --input="1x1x2xf32=1 1" --input="1x1x3xf32=1 2 3" \
// RUN:   | FileCheck %s --check-prefix=BWDWEIGHT
// BWDWEIGHT: result[0]: 1x1x2xf32={{\[\[}}3 5]]
func.func @bwd_weight(%dy: tensor<1x1x2xf32>, %x: tensor<1x1x3xf32>) -> tensor<1x1x2xf32> {
  %dw = boo.conv_bwd_weight %dy, %x
        : tensor<1x1x2xf32>, tensor<1x1x3xf32> -> tensor<1x1x2xf32>
  return %dw : tensor<1x1x2xf32>
}

// Bias gradient of dy = [[1 2][3 4]] [[5 6][7 8]] (N = 2): read as NCW,
// db = [1+2+5+6, 3+4+7+8] = [14 22]; read as NWC, db = [1+3+5+7, 2+4+6+8]
// = [16 20].
// RUN: boo-run-module --module=%s --function=bwd_bias_ncw \
// RUN:   --input="2x2x2xf32=1 2 3 4 5 6 7 8" | FileCheck %s --check-prefix=BIASNCW
// BIASNCW: result[0]: 2xf32=14 22
// RUN: boo-run-module --module=%s --function=bwd_bias_nwc \
// RUN:   --input="2x2x2xf32=1 2 3 4 5 6 7 8" | FileCheck %s --check-prefix=BIASNWC
// BIASNWC: result[0]: 2xf32=16 20
func.func @bwd_bias_ncw(%dy: tensor<2x2x2xf32>) -> tensor<2xf32> {
  %db = boo.conv_bwd_bias %dy : tensor<2x2x2xf32> -> tensor<2xf32>
  return %db : tensor<2xf32>
}
func.func @bwd_bias_nwc(%dy: tensor<2x2x2xf32>) -> tensor<2xf32> {
  %db = boo.conv_bwd_bias %dy {output_layout = "NWC"} : tensor<2x2x2xf32> -> tensor<2xf32>
  return %db : tensor<2xf32>
}

// A fused epilogue: x = [1 -2 3], w = [1 1], bias -0.5:
// conv = [1-2, -2+3] - 0.5 = [-1.5 0.5]; leaky_relu(alpha 0.25) =
// [-0.375 0.5]; plus the residual [1 1] = [0.625 1.5].
// RUN: boo-run-module --module=%s --function=fused_epilogue \
// RUN:   --input="1x1x3xf32=1 -2 3" --input="1x1x2xf32=1 1" --input="1xf32=-0.5" \
// RUN:   --input="1x1x2xf32=1 1" | FileCheck %s --check-prefix=FUSED
// RUN: boo-run-module --module=%s --function=fused_epilogue \
// RUN:   --cpu-pipeline-options="vectorize=false" \
// RUN:   --input="1x1x3xf32=1 -2 3" --input="1x1x2xf32=1 1" --input="1xf32=-0.5" \
// RUN:   --input="1x1x2xf32=1 1" | FileCheck %s --check-prefix=FUSED
// FUSED: result[0]: 1x1x2xf32={{\[\[}}0.625 1.5]]
func.func @fused_epilogue(%x: tensor<1x1x3xf32>, %w: tensor<1x1x2xf32>,
                          %b: tensor<1xf32>, %r: tensor<1x1x2xf32>) -> tensor<1x1x2xf32> {
  %0 = boo.fusion -> tensor<1x1x2xf32> {
    %c = boo.conv %x, %w bias(%b : tensor<1xf32>)
         : tensor<1x1x3xf32>, tensor<1x1x2xf32> -> tensor<1x1x2xf32>
    %a = boo.activation leaky_relu %c {alpha = 0.25 : f32} : tensor<1x1x2xf32>
    %s = boo.add %a, %r : tensor<1x1x2xf32>, tensor<1x1x2xf32>
    boo.yield %s : tensor<1x1x2xf32>
  }
  return %0 : tensor<1x1x2xf32>
}
