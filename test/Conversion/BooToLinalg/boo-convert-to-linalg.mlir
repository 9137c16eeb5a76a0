// RUN: boo-opt %s -split-input-file -boo-convert-to-linalg | FileCheck %s

// NHWC/KYXC forward conv, stride 2, padding 1: pad, then one generic whose
// input map is (n, oh*2 + kh, ow*2 + kw, c), accumulating in f32, then the
// bias epilogue rounds once to bf16.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 * 2 + d5, d3 * 2 + d6, d4)>
// CHECK-DAG: #[[FIL:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d5, d6, d4)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
// CHECK-LABEL: func.func @conv_nhwc
// CHECK:       %[[PAD:.+]] = tensor.pad %{{.+}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK:       %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x5x5x16xf32>)
// CHECK:       %[[CONV:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[FIL]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:    ins(%[[PAD]], %{{.+}} : tensor<2x11x11x8xbf16>, tensor<16x3x3x8xbf16>) outs(%[[ACC]] : tensor<2x5x5x16xf32>)
// CHECK:         arith.extf
// CHECK:         arith.extf
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[CONV]], %{{.+}} : tensor<2x5x5x16xf32>, tensor<16xbf16>) outs(%{{.+}} : tensor<2x5x5x16xbf16>)
// CHECK:         arith.addf
// CHECK:         arith.truncf %{{.+}} : f32 to bf16
func.func @conv_nhwc(%x: tensor<2x9x9x8xbf16>, %w: tensor<16x3x3x8xbf16>, %b: tensor<16xbf16>) -> tensor<2x5x5x16xbf16> {
  %y = boo.conv %x, %w bias(%b : tensor<16xbf16>) {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x9x9x8xbf16>, tensor<16x3x3x8xbf16> -> tensor<2x5x5x16xbf16>
  return %y : tensor<2x5x5x16xbf16>
}

// -----

// Groups split the channel dims: input C -> (G, C/G), filter K -> (G, K/G).
// CHECK-LABEL: func.func @conv_grouped_nchw
// CHECK:       tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 6, 6]
// CHECK:       tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.+}} : tensor<1x2x3x4x4xf32>)
// CHECK:       tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x4x4xf32> into tensor<1x6x4x4xf32>
func.func @conv_grouped_nchw(%x: tensor<1x4x6x6xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %y = boo.conv %x, %w {groups = 2 : i64} : tensor<1x4x6x6xf32>, tensor<6x2x3x3xf32> -> tensor<1x6x4x4xf32>
  return %y : tensor<1x6x4x4xf32>
}

// -----

// Backward data with stride 2: zero-stuffed gradient (strided insert), padded
// by (F-1)*dil - pad, convolved with the spatially flipped filter. The
// accumulation says which taps read stuffed zeros: loops (n, c, ih, iw, k,
// fh, fw), offset (F-1)*dil - pad = 1.
// CHECK-DAG: #[[FLIP:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, -d2 + 2, -d3 + 2)>
// CHECK-LABEL: func.func @bwd_data_strided
// CHECK:       %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x7x7xf32>)
// CHECK:       %[[S:.+]] = tensor.insert_slice %{{.+}} into %[[Z]][0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK:       tensor.pad %[[S]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       linalg.generic {indexing_maps = [#[[FLIP]], #{{.+}}]
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.+}} : tensor<1x3x7x7xf32>)
// CHECK-SAME:    boo.stride_phases = #boo.stride_phases<input_loops = [2, 3], tap_loops = [5, 6], strides = [2, 2], dilations = [1, 1], offsets = [1, 1]>
func.func @bwd_data_strided(%dy: tensor<1x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x7x7xf32> {
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x3x7x7xf32>
  return %dx : tensor<1x3x7x7xf32>
}

// -----

// Backward weight: reductions over batch and output positions; the input is
// read at oh*stride + kh*dilation.
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5 * 2 + d2 * 2, d3 + d6)>
// CHECK-LABEL: func.func @bwd_weight
// CHECK:       linalg.generic {indexing_maps = [#{{.+}}, #[[X]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:    outs(%{{.+}} : tensor<4x3x3x3xf32>)
func.func @bwd_weight(%dy: tensor<2x4x3x5xf32>, %x: tensor<2x3x9x7xf32>) -> tensor<4x3x3x3xf32> {
  %dw = boo.conv_bwd_weight %dy, %x {strides = array<i64: 2, 1>, dilations = array<i64: 2, 1>} : tensor<2x4x3x5xf32>, tensor<2x3x9x7xf32> -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// Bias gradient: sum over every dim but the channel dim.
// CHECK-LABEL: func.func @bwd_bias
// CHECK:       linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
// CHECK:       arith.truncf %{{.+}} : f32 to f16
func.func @bwd_bias(%dy: tensor<2x5x5x8xf16>) -> tensor<8xf16> {
  %db = boo.conv_bwd_bias %dy {output_layout = "NHWC"} : tensor<2x5x5x8xf16> -> tensor<8xf16>
  return %db : tensor<8xf16>
}

// -----

// Layer norm: sum, mean, centered sum of squares, rstd, then y.
// CHECK-LABEL: func.func @layer_norm
// CHECK-COUNT-2: iterator_types = ["parallel", "reduction"]
// CHECK:       math.sqrt
// CHECK:       arith.divf
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.+}} : tensor<4x8xf32>)
func.func @layer_norm(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y, %m, %r = boo.layer_norm %x weight(%w : tensor<8xf32>) bias(%b : tensor<8xf32>) : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  return %y, %m, %r : tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Layer norm backward: two row sums for dx; dweight and dbias, the two
// reductions over rows, in one generic with two results (one kernel).
// CHECK-LABEL: func.func @layer_norm_bwd
// CHECK-COUNT-2: iterator_types = ["parallel", "reduction"]
// CHECK:       iterator_types = ["parallel", "parallel"]
// CHECK:       %{{.+}}:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK-SAME:    outs(%{{.+}}, %{{.+}} : tensor<8xf32>, tensor<8xf32>)
// CHECK-NOT:   iterator_types = ["reduction", "parallel"]
func.func @layer_norm_bwd(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %dw, %db = boo.layer_norm_bwd %dy, %x, %m, %r weight(%w : tensor<8xf32>) : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %dx, %dw, %db : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Batch norm in training, channels at dim 1 of 2x3x4: every generic runs
// over (channel, the reduced dims), x read through the permutation; sum,
// mean, centred sum of squares, rstd, y, then the running statistics
// (momentum 0.1; the variance unbiased, 0.1 / (8 - 1)).
// CHECK-DAG:   #[[X:.+]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG:   #[[C:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @batch_norm_training
// CHECK-DAG:   %[[VAR:.+]] = arith.constant 0.0142857144 : f32
// CHECK-DAG:   %[[KEEP:.+]] = arith.constant 0.899999976 : f32
// CHECK-DAG:   %[[INVM:.+]] = arith.constant 1.250000e-01 : f32
// CHECK:       %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[X]], #[[C]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK-SAME:    ins(%{{.+}} : tensor<2x3x4xf16>) outs(%{{.+}} : tensor<3xf32>)
// CHECK:       %[[MEAN:.+]] = linalg.generic
// CHECK-SAME:    ins(%[[SUM]] : tensor<3xf32>)
// CHECK:         arith.mulf %{{.+}}, %[[INVM]]
// CHECK:       %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[X]], #[[C]], #[[C]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK:       math.sqrt
// CHECK:       %[[Y:.+]] = linalg.generic {indexing_maps = [#[[X]], #[[C]], #[[C]], #[[C]], #[[X]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:    outs(%{{.+}} : tensor<2x3x4xf16>)
// CHECK:         arith.truncf
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.+}}, %[[MEAN]] : tensor<3xf32>, tensor<3xf32>)
// CHECK:         arith.mulf %{{.+}}, %[[KEEP]]
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%{{.+}}, %[[SQ]] : tensor<3xf32>, tensor<3xf32>)
// CHECK:         arith.mulf %{{.+}}, %[[VAR]]
func.func @batch_norm_training(%x: tensor<2x3x4xf16>, %w: tensor<3xf32>, %rm: tensor<3xf32>, %rv: tensor<3xf32>) -> (tensor<2x3x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %y, %m, %r, %nm, %nv = boo.batch_norm %x weight(%w : tensor<3xf32>) running(%rm, %rv : tensor<3xf32>, tensor<3xf32>) {feature_dims = array<i64: 1>, training} : tensor<2x3x4xf16> -> tensor<2x3x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  return %y, %m, %r, %nm, %nv : tensor<2x3x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Batch norm inference, NHWC: rstd from the running variance, then one
// element-wise generic over (channel, n, h, w); no reduction.
// CHECK-LABEL: func.func @batch_norm_inference
// CHECK-NOT:   "reduction"
// CHECK:       math.sqrt
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME:    outs(%{{.+}} : tensor<2x4x4x8xbf16>)
// CHECK-NOT:   "reduction"
func.func @batch_norm_inference(%x: tensor<2x4x4x8xbf16>, %b: tensor<8xbf16>, %rm: tensor<8xf32>, %rv: tensor<8xf32>) -> tensor<2x4x4x8xbf16> {
  %y, %m, %r = boo.batch_norm %x bias(%b : tensor<8xbf16>) running(%rm, %rv : tensor<8xf32>, tensor<8xf32>) {feature_dims = array<i64: 3>} : tensor<2x4x4x8xbf16> -> tensor<2x4x4x8xbf16>, tensor<8xf32>, tensor<8xf32>
  return %y : tensor<2x4x4x8xbf16>
}

// -----

// Batch norm backward, per-activation (features 1 and 2 of 4x3x5): the sums
// of dy and dy * xhat over the batch, then dx; dweight and dbias are the
// sums rounded to f16.
// CHECK-LABEL: func.func @batch_norm_bwd
// CHECK-COUNT-2: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK:       iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:    outs(%{{.+}} : tensor<4x3x5xf32>)
// CHECK:       arith.truncf %{{.+}} : f32 to f16
// CHECK:       arith.truncf %{{.+}} : f32 to f16
func.func @batch_norm_bwd(%dy: tensor<4x3x5xf32>, %x: tensor<4x3x5xf32>, %m: tensor<3x5xf32>, %r: tensor<3x5xf32>, %w: tensor<3x5xf16>) -> (tensor<4x3x5xf32>, tensor<3x5xf16>, tensor<3x5xf16>) {
  %dx, %dw, %db = boo.batch_norm_bwd %dy, %x, %m, %r weight(%w : tensor<3x5xf16>) {feature_dims = array<i64: 1, 2>} : tensor<4x3x5xf32>, tensor<4x3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32> -> tensor<4x3x5xf32>, tensor<3x5xf16>, tensor<3x5xf16>
  return %dx, %dw, %db : tensor<4x3x5xf32>, tensor<3x5xf16>, tensor<3x5xf16>
}

// -----

// argmax along dim 1: one generic, the value (from -inf) and the index (from
// 0) as accumulators; an element wins when greater, or NaN while the best
// is not; its index is linalg.index 1.
// CHECK-DAG:   #[[X:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[O:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @argmax
// CHECK-DAG:   arith.constant 0xFF800000 : f32
// CHECK:       %[[R:.+]]:2 = linalg.generic {indexing_maps = [#[[X]], #[[O]], #[[O]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME:    outs(%{{.+}}, %{{.+}} : tensor<4x16xf32>, tensor<4x16xi64>)
// CHECK:         arith.extf
// CHECK:         arith.cmpf ogt
// CHECK:         arith.cmpf uno
// CHECK:         arith.cmpf ord
// CHECK:         linalg.index 1
// CHECK:         arith.select
// CHECK:       return %[[R]]#1
func.func @argmax(%x: tensor<4x8x16xbf16>) -> tensor<4x16xi64> {
  %i = boo.argmax %x {dim = 1 : i64} : tensor<4x8x16xbf16> -> tensor<4x16xi64>
  return %i : tensor<4x16xi64>
}

// -----

// argmin of everything with keepdim: the index is the row-major position
// ((d0 * 8 + d1) * 16 + d2), the rank-0 result expanded to 1x1x1.
// CHECK-LABEL: func.func @argmin_all
// CHECK-DAG:   arith.constant 0x7F800000 : f32
// CHECK:       iterator_types = ["reduction", "reduction", "reduction"]
// CHECK:         arith.cmpf olt
// CHECK:         linalg.index 0
// CHECK:         arith.muli
// CHECK:         linalg.index 1
// CHECK:         arith.muli
// CHECK:         linalg.index 2
// CHECK:       tensor.expand_shape %{{.+}} [] output_shape [1, 1, 1] : tensor<i64> into tensor<1x1x1xi64>
func.func @argmin_all(%x: tensor<4x8x16xf32>) -> tensor<1x1x1xi64> {
  %i = boo.argmin %x {keepdim} : tensor<4x8x16xf32> -> tensor<1x1x1xi64>
  return %i : tensor<1x1x1xi64>
}

// -----

// argmax of all 2^15 elements of a 4x8192 input: few kept (none), a large
// extent: the input flattened and viewed as 1024 rows of 32 groups; a first
// generic keeps each group's best and its index in the input (row * 32 +
// group), a second reduces the 32 groups' bests, taking their indices, a
// tie going to the smaller index.
// CHECK-LABEL: func.func @argmax_rows
// CHECK:       %[[FLAT:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1]] : tensor<4x8192xf32> into tensor<32768xf32>
// CHECK:       %[[ROWS:.+]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [1024, 32] : tensor<32768xf32> into tensor<1024x32xf32>
// CHECK:       %[[P:.+]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[ROWS]] : tensor<1024x32xf32>) outs(%{{.+}}, %{{.+}} : tensor<32xf32>, tensor<32xi64>)
// CHECK:         linalg.index 0
// CHECK:         arith.muli %{{.+}}, %c32
// CHECK:         linalg.index 1
// CHECK:       %[[R:.+]]:2 = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[P]]#0, %[[P]]#1 : tensor<32xf32>, tensor<32xi64>) outs(%{{.+}}, %{{.+}} : tensor<f32>, tensor<i64>)
// CHECK-NOT:     linalg.index
// CHECK:         arith.cmpi slt
// CHECK:         arith.cmpf oeq
// CHECK:         arith.select
// CHECK:       return %[[R]]#1
func.func @argmax_rows(%x: tensor<4x8192xf32>) -> tensor<i64> {
  %i = boo.argmax %x : tensor<4x8192xf32> -> tensor<i64>
  return %i : tensor<i64>
}

// -----

// Inside a fusion, the epilogue consumes the f32 accumulator directly and
// the single rounding to f16 happens at the yield.
// CHECK-LABEL: func.func @fusion_f16
// CHECK:       %[[CONV:.+]] = linalg.generic
// CHECK-SAME:    outs(%{{.+}} : tensor<1x6x6x8xf32>)
// CHECK-NOT:   arith.truncf
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[CONV]] : tensor<1x6x6x8xf32>) outs(%{{.+}} : tensor<1x6x6x8xf32>)
// CHECK:         arith.maximumf
// CHECK:       linalg.generic
// CHECK-SAME:    outs(%{{.+}} : tensor<1x6x6x8xf16>)
// CHECK:         arith.truncf %{{.+}} : f32 to f16
// CHECK-NOT:   boo.
func.func @fusion_f16(%x: tensor<1x8x8x4xf16>, %w: tensor<8x3x3x4xf16>) -> tensor<1x6x6x8xf16> {
  %r = boo.fusion -> tensor<1x6x6x8xf16> {
    %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16> -> tensor<1x6x6x8xf16>
    %a = boo.activation relu %c : tensor<1x6x6x8xf16>
    boo.yield %a : tensor<1x6x6x8xf16>
  }
  return %r : tensor<1x6x6x8xf16>
}

// -----

// Activations and per-channel broadcast.
// CHECK-LABEL: func.func @elementwise
// CHECK:       math.erf
// CHECK:       math.tanh
// CHECK:       arith.cmpf oge
// CHECK:       arith.select
// CHECK:       arith.minimumf
// CHECK:       linalg.generic {indexing_maps = [#{{.+}}, #[[CH:.+]], #{{.+}}]
func.func @elementwise(%x: tensor<2x4xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = boo.activation gelu %x : tensor<2x4xf32>
  %1 = boo.activation gelu_tanh %0 : tensor<2x4xf32>
  %2 = boo.activation leaky_relu %1 {alpha = 0.1 : f32} : tensor<2x4xf32>
  %3 = boo.activation clamp %2 {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x4xf32>
  %4 = boo.add %3, %c {channel_dim = 1 : i64} : tensor<2x4xf32>, tensor<4xf32>
  return %4 : tensor<2x4xf32>
}

// -----

// Normalizing every dim: the statistics are rank-0 tensors, broadcast into
// the element-wise generic with an empty map result list.
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @layer_norm_all_dims
// CHECK:       linalg.generic {indexing_maps = [#{{.+}}, #[[SCALAR]], #[[SCALAR]], #{{.+}}, #{{.+}}], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:    outs(%{{.+}} : tensor<3x5xbf16>)
func.func @layer_norm_all_dims(%x: tensor<3x5xbf16>, %b: tensor<3x5xbf16>) -> (tensor<3x5xbf16>, tensor<f32>, tensor<bf16>) {
  %y, %m, %r = boo.layer_norm %x bias(%b : tensor<3x5xbf16>) {normalized_rank = 2 : i64} : tensor<3x5xbf16> -> tensor<3x5xbf16>, tensor<f32>, tensor<bf16>
  return %y, %m, %r : tensor<3x5xbf16>, tensor<f32>, tensor<bf16>
}

// -----

// A plain product: one generic over (m, n, k) accumulating in f32, read
// through its maps (no copies), then the single rounding to bf16.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul
// CHECK:       %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<32x64xf32>)
// CHECK:       %[[MM:.+]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:    ins(%{{.+}}, %{{.+}} : tensor<32x128xbf16>, tensor<128x64xbf16>) outs(%[[ACC]] : tensor<32x64xf32>)
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[MM]] : tensor<32x64xf32>) outs(%{{.+}} : tensor<32x64xbf16>)
// CHECK:         arith.truncf %{{.+}} : f32 to bf16
func.func @matmul(%a: tensor<32x128xbf16>, %b: tensor<128x64xbf16>) -> tensor<32x64xbf16> {
  %y = boo.matmul %a, %b : tensor<32x128xbf16>, tensor<128x64xbf16> -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}

// -----

// Batched, both operands transposed: the batch is the outermost loop of
// (b, m, n, k); lhs is read at (b, k, m) and rhs at (b, n, k). The bias
// [1, 32, 1] broadcasts along the batch and the columns (constant 0 index),
// scaled by beta after alpha scales the product.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1, d2) -> (0, d1, 0)>
// CHECK-LABEL: func.func @bmm_transposed_bias
// CHECK-DAG:   %[[ALPHA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:   %[[BETA:.+]] = arith.constant 5.000000e-01 : f32
// CHECK:       %[[MM:.+]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:    ins(%{{.+}}, %{{.+}} : tensor<3x128x32xf16>, tensor<3x64x128xf16>)
// CHECK:       linalg.generic {indexing_maps = [#[[ID]], #[[BIAS]], #[[ID]]]
// CHECK-SAME:    ins(%[[MM]], %{{.+}} : tensor<3x32x64xf32>, tensor<1x32x1xf16>) outs(%{{.+}} : tensor<3x32x64xf16>)
// CHECK:         %[[S:.+]] = arith.mulf %[[ALPHA]], %{{.+}} : f32
// CHECK:         %[[C16:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:         %[[T:.+]] = arith.mulf %[[BETA]], %[[C16]] : f32
// CHECK:         %[[SUM:.+]] = arith.addf %[[S]], %[[T]] : f32
// CHECK:         arith.truncf %[[SUM]] : f32 to f16
func.func @bmm_transposed_bias(%a: tensor<3x128x32xf16>, %b: tensor<3x64x128xf16>, %c: tensor<1x32x1xf16>) -> tensor<3x32x64xf16> {
  %y = boo.matmul %a, %b bias(%c : tensor<1x32x1xf16>) {transpose_lhs, transpose_rhs, alpha = 2.0, beta = 0.5} : tensor<3x128x32xf16>, tensor<3x64x128xf16> -> tensor<3x32x64xf16>
  return %y : tensor<3x32x64xf16>
}

// -----

// f64 operands accumulate in f64, and alpha and beta are f64 constants.
// CHECK-LABEL: func.func @mm_f64_bias
// CHECK-DAG:   %[[ALPHA:.+]] = arith.constant 1.000000e-01 : f64
// CHECK-DAG:   %[[BETA:.+]] = arith.constant 0.33333333333333331 : f64
// CHECK-DAG:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f64
// CHECK:       %[[FILL:.+]] = linalg.fill ins(%[[ZERO]] : f64) outs(%{{.+}} : tensor<3x7xf64>)
// CHECK:       %[[MM:.+]] = linalg.generic
// CHECK-SAME:    outs(%[[FILL]] : tensor<3x7xf64>)
// CHECK:         arith.mulf %{{.+}}, %{{.+}} : f64
// CHECK:         arith.addf %{{.+}}, %{{.+}} : f64
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[MM]], %{{.+}} : tensor<3x7xf64>, tensor<7xf64>) outs(%{{.+}} : tensor<3x7xf64>)
// CHECK:         arith.mulf %[[ALPHA]], %{{.+}} : f64
// CHECK:         arith.mulf %[[BETA]], %{{.+}} : f64
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     arith.extf
// CHECK:         linalg.yield
func.func @mm_f64_bias(%a: tensor<3x5xf64>, %b: tensor<5x7xf64>, %c: tensor<7xf64>) -> tensor<3x7xf64> {
  %y = boo.matmul %a, %b bias(%c : tensor<7xf64>) {alpha = 0.1, beta = 0.33333333333333331} : tensor<3x5xf64>, tensor<5x7xf64> -> tensor<3x7xf64>
  return %y : tensor<3x7xf64>
}

// -----

// boo.as_strided: a copy whose input map is the linear storage index
// (stride 0: the batch repeats the same matrix).
// CHECK-DAG:   #[[LIN:.+]] = affine_map<(d0, d1, d2) -> (d1 * 16 + d2 * 2)>
// CHECK-DAG:   #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @as_strided
// CHECK:       linalg.generic {indexing_maps = [#[[LIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:    ins(%{{.+}} : tensor<63xbf16>) outs(%{{.+}} : tensor<2x4x8xbf16>)
// CHECK-NEXT:  ^bb0(%[[IN:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:    linalg.yield %[[IN]] : bf16
func.func @as_strided(%s: tensor<63xbf16>) -> tensor<2x4x8xbf16> {
  %0 = boo.as_strided %s {strides = array<i64: 0, 16, 2>} : tensor<63xbf16> -> tensor<2x4x8xbf16>
  return %0 : tensor<2x4x8xbf16>
}

// -----

// A matmul anchors a fusion like a convolution: its f32 result flows into
// the epilogue and is rounded once, at the yield.
// CHECK-LABEL: func.func @matmul_fusion
// CHECK:       %[[MM:.+]] = linalg.generic
// CHECK-SAME:    outs(%{{.+}} : tensor<8x16xf32>)
// CHECK-NOT:   arith.truncf
// CHECK:       linalg.generic
// CHECK-SAME:    ins(%[[MM]], %{{.+}} : tensor<8x16xf32>, tensor<16xbf16>)
// CHECK-NOT:   arith.truncf
// CHECK:       arith.maximumf
// CHECK:       arith.truncf %{{.+}} : f32 to bf16
// CHECK-NOT:   boo.
func.func @matmul_fusion(%a: tensor<8x32xbf16>, %w: tensor<16x32xbf16>, %b: tensor<16xbf16>) -> tensor<8x16xbf16> {
  %r = boo.fusion -> tensor<8x16xbf16> {
    %m = boo.matmul %a, %w bias(%b : tensor<16xbf16>) {transpose_rhs} : tensor<8x32xbf16>, tensor<16x32xbf16> -> tensor<8x16xbf16>
    %y = boo.activation relu %m : tensor<8x16xbf16>
    boo.yield %y : tensor<8x16xbf16>
  }
  return %r : tensor<8x16xbf16>
}
