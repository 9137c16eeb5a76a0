// Kernels without parallel loops (element-wise ops on rank-0 tensors) are
// one workgroup of one thread: they compile for every chip and compute the
// right value on the emulated GPUs. Expected values by hand: relu(-3.5) = 0,
// relu(2.25) = 2.25; (2.25 + 0.75) * 2 = 6. A layer norm of one element
// (its row kernel once refused the copy of a shared fill into a result):
// mean = x = 3, rstd = 1 / sqrt(0 + 0.25) = 2, y = (x - mean) * rstd = 0.

// RUN: boo-translate --emit-module --targets=emu:gfx942,emu:gfx1100 %s -o %t.boomod
// RUN: boo-run-module --module=%t.boomod --function=scalar_relu --device=emu:gfx942 --input=f32=-3.5 | FileCheck %s --check-prefix=NEG
// RUN: boo-run-module --module=%t.boomod --function=scalar_relu --device=emu:gfx1100 --input=f32=2.25 | FileCheck %s --check-prefix=POS
// RUN: boo-run-module --module=%t.boomod --function=scalar_chain --device=emu:gfx942 --input=f32=2.25 --input=f32=0.75 | FileCheck %s --check-prefix=CHAIN
// RUN: boo-run-module --module=%t.boomod --function=one_element_layer_norm --device=emu:gfx1100 --input=1xf32=3 | FileCheck %s --check-prefix=LN
// RUN: boo-opt %s --pass-pipeline="builtin.module(boo-to-rocdl{chip=gfx1201})" -o /dev/null

// NEG: result[0]: f32=0
// POS: result[0]: f32=2.25
// CHAIN: result[0]: f32=6
// LN:      result[0]: 1xf32=0
// LN-NEXT: result[1]: f32=3
// LN-NEXT: result[2]: f32=2

func.func @scalar_relu(%x: tensor<f32>) -> tensor<f32> {
  %0 = boo.activation relu %x : tensor<f32>
  return %0 : tensor<f32>
}

func.func @scalar_chain(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %0 = boo.add %x, %y : tensor<f32>, tensor<f32>
  %1 = boo.add %0, %0 : tensor<f32>, tensor<f32>
  return %1 : tensor<f32>
}

func.func @one_element_layer_norm(%x: tensor<1xf32>) -> (tensor<1xf32>, tensor<f32>, tensor<f32>) {
  %y, %m, %r = boo.layer_norm %x {epsilon = 0.25 : f32, normalized_rank = 1 : i64} : tensor<1xf32> -> tensor<1xf32>, tensor<f32>, tensor<f32>
  return %y, %m, %r : tensor<1xf32>, tensor<f32>, tensor<f32>
}
