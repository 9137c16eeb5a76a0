// RUN: boo-opt %s -split-input-file -boo-form-fusions | FileCheck %s

// conv + bias add + relu + residual add: the whole chain joins.
// CHECK-LABEL: func.func @conv_bias_relu_residual
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x8x4xf32>, %[[W:.+]]: tensor<8x3x3x4xf32>, %[[B:.+]]: tensor<8xf32>, %[[RES:.+]]: tensor<1x6x6x8xf32>)
// CHECK:      %[[F:.+]] = boo.fusion -> tensor<1x6x6x8xf32> {
// CHECK-NEXT:   %[[C:.+]] = boo.conv %[[X]], %[[W]]
// CHECK-NEXT:   %[[BA:.+]] = boo.add %[[C]], %[[B]] {channel_dim = 3 : i64}
// CHECK-NEXT:   %[[A:.+]] = boo.activation relu %[[BA]]
// CHECK-NEXT:   %[[S:.+]] = boo.add %[[A]], %[[RES]]
// CHECK-NEXT:   boo.yield %[[S]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @conv_bias_relu_residual(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>, %b: tensor<8xf32>, %res: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32> -> tensor<1x6x6x8xf32>
  %ba = boo.add %c, %b {channel_dim = 3 : i64} : tensor<1x6x6x8xf32>, tensor<8xf32>
  %a = boo.activation relu %ba : tensor<1x6x6x8xf32>
  %s = boo.add %a, %res : tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>
  return %s : tensor<1x6x6x8xf32>
}

// -----

// The conv result has two users: nothing joins; the conv alone is a fusion.
// CHECK-LABEL: func.func @multi_use
// CHECK:      %[[F:.+]] = boo.fusion -> tensor<1x6x6x8xf32> {
// CHECK-NEXT:   boo.conv
// CHECK-NEXT:   boo.yield
// CHECK-NEXT: }
// CHECK:      boo.activation relu %[[F]]
// CHECK:      boo.activation tanh %[[F]]
func.func @multi_use(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>) -> (tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>) {
  %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32> -> tensor<1x6x6x8xf32>
  %a = boo.activation relu %c : tensor<1x6x6x8xf32>
  %t = boo.activation tanh %c : tensor<1x6x6x8xf32>
  return %a, %t : tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>
}

// -----

// The residual is computed after the conv: the add cannot join without
// reordering, so the chain stops before it.
// CHECK-LABEL: func.func @late_operand
// CHECK:      %[[F:.+]] = boo.fusion -> tensor<1x6x6x8xf32> {
// CHECK-NEXT:   boo.conv
// CHECK-NEXT:   %[[A:.+]] = boo.activation relu
// CHECK-NEXT:   boo.yield %[[A]]
// CHECK-NEXT: }
// CHECK:      %[[T:.+]] = boo.activation tanh
// CHECK:      boo.add %[[F]], %[[T]]
func.func @late_operand(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>, %r: tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32> {
  %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32> -> tensor<1x6x6x8xf32>
  %a = boo.activation relu %c : tensor<1x6x6x8xf32>
  %t = boo.activation tanh %r : tensor<1x6x6x8xf32>
  %s = boo.add %a, %t : tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>
  return %s : tensor<1x6x6x8xf32>
}

// -----

// Layer norm: the epilogue joins y whether or not mean and rstd are used;
// of those, only the used ones are yielded.
// CHECK-LABEL: func.func @layer_norm_epilogue
// CHECK:      %[[F:.+]] = boo.fusion -> tensor<4x8xf32> {
// CHECK-NEXT:   %[[Y:.+]], %{{.+}}, %{{.+}} = boo.layer_norm
// CHECK-NEXT:   %[[G:.+]] = boo.activation gelu %[[Y]]
// CHECK-NEXT:   boo.yield %[[G]]
// CHECK:      %[[F2:.+]]:2 = boo.fusion -> tensor<4x8xf32>, tensor<4xf32> {
// CHECK-NEXT:   %[[Y2:.+]], %[[M2:.+]], %{{.+}} = boo.layer_norm
// CHECK-NEXT:   %[[G2:.+]] = boo.activation gelu %[[Y2]]
// CHECK-NEXT:   boo.yield %[[G2]], %[[M2]]
// CHECK:      return %[[F]], %[[F2]]#0, %[[F2]]#1
func.func @layer_norm_epilogue(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) {
  %y, %m, %r = boo.layer_norm %x : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  %g = boo.activation gelu %y : tensor<4x8xf32>
  %y2, %m2, %r2 = boo.layer_norm %x : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  %g2 = boo.activation gelu %y2 : tensor<4x8xf32>
  return %g, %g2, %m2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>
}

// -----

// Batch norm in training: relu joins y; the statistics and the running
// statistics' update are yielded after it.
// CHECK-LABEL: func.func @batch_norm_epilogue
// CHECK:      %[[F:.+]]:3 = boo.fusion -> tensor<2x8x5x5xbf16>, tensor<8xf32>, tensor<8xf32> {
// CHECK-NEXT:   %[[Y:.+]], %[[M:.+]], %{{.+}}, %[[UPD:.+]]:2 = boo.batch_norm
// CHECK-NEXT:   %[[A:.+]] = boo.activation relu %[[Y]]
// CHECK-NEXT:   boo.yield %[[A]], %[[M]], %[[UPD]]#1
// CHECK:      return %[[F]]#0, %[[F]]#1, %[[F]]#2
func.func @batch_norm_epilogue(%x: tensor<2x8x5x5xbf16>, %w: tensor<8xf32>, %rm: tensor<8xf32>, %rv: tensor<8xf32>) -> (tensor<2x8x5x5xbf16>, tensor<8xf32>, tensor<8xf32>) {
  %y, %m, %r, %nm, %nv = boo.batch_norm %x weight(%w : tensor<8xf32>) running(%rm, %rv : tensor<8xf32>, tensor<8xf32>) {feature_dims = array<i64: 1>, training} : tensor<2x8x5x5xbf16> -> tensor<2x8x5x5xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  %a = boo.activation relu %y : tensor<2x8x5x5xbf16>
  return %a, %m, %nv : tensor<2x8x5x5xbf16>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Element-wise ops without an anchor are left alone.
// CHECK-LABEL: func.func @no_anchor
// CHECK-NOT: boo.fusion
func.func @no_anchor(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = boo.activation relu %x : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// A matmul anchors like a conv: matmul + gelu join (nn.Linear + GELU).
// CHECK-LABEL: func.func @matmul_gelu
// CHECK:      %[[F:.+]] = boo.fusion -> tensor<8x16xbf16> {
// CHECK-NEXT:   %[[M:.+]] = boo.matmul
// CHECK-NEXT:   %[[G:.+]] = boo.activation gelu %[[M]]
// CHECK-NEXT:   boo.yield %[[G]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]
func.func @matmul_gelu(%a: tensor<8x32xbf16>, %w: tensor<16x32xbf16>, %b: tensor<16xbf16>) -> tensor<8x16xbf16> {
  %m = boo.matmul %a, %w bias(%b : tensor<16xbf16>) {transpose_rhs} : tensor<8x32xbf16>, tensor<16x32xbf16> -> tensor<8x16xbf16>
  %g = boo.activation gelu %m : tensor<8x16xbf16>
  return %g : tensor<8x16xbf16>
}
