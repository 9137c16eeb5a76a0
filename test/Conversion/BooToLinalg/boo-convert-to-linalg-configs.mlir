// RUN: boo-opt %s -split-input-file --boo-convert-to-linalg | FileCheck %s

// A kernel's #boo.lowering_config moves to the linalg.generic the lowering
// builds from the kernel's loop nest (getOpLoopNest): a convolution's
// accumulation, inside a fusion too; a layer norm's first row sum; an
// element-wise op's generic. No other generic gets it.

// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME:      boo.lowering_config = #boo.lowering_config<workgroup = [1, 8, 8, 16, 0, 0, 0]
// CHECK:         linalg.generic
// CHECK-NOT:       boo.lowering_config
// CHECK:         return
func.func @conv_bias_relu(%x: tensor<1x8x8x4xf32>, %w: tensor<8x3x3x4xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  %0 = boo.fusion -> tensor<1x6x6x8xf32> {
    %c = boo.conv %x, %w bias(%b : tensor<8xf32>) {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x8x8x4xf32>, tensor<8x3x3x4xf32> -> tensor<1x6x6x8xf32>
    %r = boo.activation relu %c : tensor<1x6x6x8xf32>
    boo.yield %r : tensor<1x6x6x8xf32>
  } {boo.lowering_config = #boo.lowering_config<workgroup = [1, 8, 8, 16, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 1, 1], thread = [1, 4, 1, 4, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 64>}
  return %0 : tensor<1x6x6x8xf32>
}

// -----

// CHECK-LABEL: func.func @norm(
// CHECK:         linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      boo.lowering_config = #boo.lowering_config<workgroup = [1, 0]
// CHECK-NOT:     boo.lowering_config
// CHECK:         return
func.func @norm(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4xf32>, tensor<4xf32>) {
  %y, %m, %r = boo.layer_norm %x {boo.lowering_config = #boo.lowering_config<workgroup = [1, 0], reduction = [0, 64], thread = [1, 1], workgroup_size = [64, 1, 1], subgroup_size = 64>} : tensor<4x64xf32> -> tensor<4x64xf32>, tensor<4xf32>, tensor<4xf32>
  return %y, %m, %r : tensor<4x64xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @relu(
// CHECK:         linalg.generic
// CHECK-SAME:      boo.lowering_config = #boo.lowering_config<workgroup = [4, 64], thread = [1, 4]
func.func @relu(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = boo.activation relu %x {boo.lowering_config = #boo.lowering_config<workgroup = [4, 64], thread = [1, 4], workgroup_size = [64, 1, 1], subgroup_size = 64>} : tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}
