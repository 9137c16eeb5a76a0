// Kernels at the edges of the GPU pipeline, run on the emulated chips with
// expected values by hand:
// - a function that returns its argument: the host copy bufferization
//   leaves becomes a kernel (boo-gpu-forall-to-launch);
// - an inference batch norm that returns its mean, which is the running
//   mean itself (the same copy);
// - a batch norm of one channel stored last, [64, 1]: the workgroup-per-
//   channel kernel reads x along its first dim, contiguous in memory but
//   not along the memref's last dim, so element by element (a vector along
//   the last dim, of extent 1, would read out of bounds). x = 0, 1, ..., 63
//   (arange), mean 31.5, variance (64^2 - 1) / 12 = 341.25, so
//   y[0] = -31.5 / sqrt(341.25 + 1e-5) = -1.70520, y[1] = -30.5 / ... =
//   -1.65106, and y[63] = -y[0].

// RUN: boo-translate --emit-module --targets=emu:gfx942,emu:gfx1100 %s -o %t.boomod
// RUN: boo-run-module --module=%t.boomod --function=identity --device=emu:gfx942 --input="2x3xf16=[[1,2,3],[4,5,6]]" | FileCheck %s --check-prefix=ID
// RUN: boo-run-module --module=%t.boomod --function=inference_mean --device=emu:gfx1100 --input=3x4xf32=1 --input="4xf32=[1,2,3,4]" --input=4xf32=1 | FileCheck %s --check-prefix=MEAN
// RUN: boo-run-module --module=%t.boomod --function=one_channel_last --device=emu:gfx942 --input="64x1xf32=[[0],[1],[2],[3],[4],[5],[6],[7],[8],[9],[10],[11],[12],[13],[14],[15],[16],[17],[18],[19],[20],[21],[22],[23],[24],[25],[26],[27],[28],[29],[30],[31],[32],[33],[34],[35],[36],[37],[38],[39],[40],[41],[42],[43],[44],[45],[46],[47],[48],[49],[50],[51],[52],[53],[54],[55],[56],[57],[58],[59],[60],[61],[62],[63]]" | FileCheck %s --check-prefix=ONE

// ID: result[0]: 2x3xf16={{\[}}1 2 3]{{\[}}4 5 6]
func.func @identity(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  return %x : tensor<2x3xf16>
}

// MEAN: result[0]: 4xf32=1 2 3 4
func.func @inference_mean(%x: tensor<3x4xf32>, %rm: tensor<4xf32>, %rv: tensor<4xf32>) -> tensor<4xf32> {
  %y, %m, %r = boo.batch_norm %x running(%rm, %rv : tensor<4xf32>, tensor<4xf32>) {feature_dims = array<i64: 1>} : tensor<3x4xf32> -> tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>
  return %m : tensor<4xf32>
}

// ONE: result[0]: 64x1xf32={{\[}}-1.7052]{{\[}}-1.65106]{{.*}}{{\[}}1.65106]{{\[}}1.7052]{{$}}
func.func @one_channel_last(%x: tensor<64x1xf32>) -> tensor<64x1xf32> {
  %y, %m, %r = boo.batch_norm %x {feature_dims = array<i64: 1>, training} : tensor<64x1xf32> -> tensor<64x1xf32>, tensor<1xf32>, tensor<1xf32>
  return %y : tensor<64x1xf32>
}
