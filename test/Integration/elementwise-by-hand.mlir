// Element-wise ops run end to end on the CPU, on values whose results are
// exact in binary (the transcendental activations are checked against NumPy
// in activations-numpy.mlir).

// relu(-1.5, 0, 2.5) = (0, 0, 2.5); leaky_relu with alpha 0.25:
// (-0.375, 0, 2.5); clamp to [-1, 2]: (-1, 0, 2).
// RUN: boo-run-module --module=%s --function=piecewise \
// RUN:   --input="3xf16=-1.5 0 2.5" | FileCheck %s --check-prefix=PIECEWISE
// RUN: boo-run-module --module=%s --function=piecewise \
// RUN:   --cpu-pipeline-options="vectorize=false form-fusions=false" \
// RUN:   --input="3xf16=-1.5 0 2.5" | FileCheck %s --check-prefix=PIECEWISE
// PIECEWISE:      result[0]: 3xf16=0 0 2.5
// PIECEWISE-NEXT: result[1]: 3xf16=-0.375 0 2.5
// PIECEWISE-NEXT: result[2]: 3xf16=-1 0 2
func.func @piecewise(%x: tensor<3xf16>) -> (tensor<3xf16>, tensor<3xf16>, tensor<3xf16>) {
  %r = boo.activation relu %x : tensor<3xf16>
  %l = boo.activation leaky_relu %x {alpha = 0.25 : f32} : tensor<3xf16>
  %c = boo.activation clamp %x {min = -1.0 : f32, max = 2.0 : f32} : tensor<3xf16>
  return %r, %l, %c : tensor<3xf16>, tensor<3xf16>, tensor<3xf16>
}

// At 0 every smooth activation is exact: sigmoid(0) = 1/(1 + e^0) = 0.5,
// tanh(0) = 0, gelu(0) = 0.5 * 0 * (1 + erf(0)) = 0, gelu_tanh(0) = 0,
// silu(0) = 0 * 0.5 = 0.
// RUN: boo-run-module --module=%s --function=smooth_at_zero \
// RUN:   --input="2xbf16=0" | FileCheck %s --check-prefix=ZERO
// ZERO:      result[0]: 2xbf16=0.5 0.5
// ZERO-NEXT: result[1]: 2xbf16=0 0
// ZERO-NEXT: result[2]: 2xbf16=0 0
// ZERO-NEXT: result[3]: 2xbf16=0 0
// ZERO-NEXT: result[4]: 2xbf16=0 0
func.func @smooth_at_zero(%x: tensor<2xbf16>)
    -> (tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>) {
  %s = boo.activation sigmoid %x : tensor<2xbf16>
  %t = boo.activation tanh %x : tensor<2xbf16>
  %g = boo.activation gelu %x : tensor<2xbf16>
  %h = boo.activation gelu_tanh %x : tensor<2xbf16>
  %u = boo.activation silu %x : tensor<2xbf16>
  return %s, %t, %g, %h, %u
      : tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>
}

// Per-channel broadcast: lhs = [1 2 3][4 5 6];
// add [10 20 30] along dim 1 -> [11 22 33][14 25 36];
// then mul [10 100] along dim 0 -> [110 220 330][1400 2500 3600];
// then add itself (same shape) -> [220 440 660][2800 5000 7200].
// RUN: boo-run-module --module=%s --function=broadcast \
// RUN:   --input="2x3xf32=1 2 3 4 5 6" --input="3xf32=10 20 30" --input="2xf32=10 100" \
// RUN:   | FileCheck %s --check-prefix=BCAST
// RUN: boo-run-module --module=%s --function=broadcast \
// RUN:   --cpu-pipeline-options="vectorize=false form-fusions=false" \
// RUN:   --input="2x3xf32=1 2 3 4 5 6" --input="3xf32=10 20 30" --input="2xf32=10 100" \
// RUN:   | FileCheck %s --check-prefix=BCAST
// BCAST: result[0]: 2x3xf32=[220 440 660][2800 5000 7200]
func.func @broadcast(%x: tensor<2x3xf32>, %a: tensor<3xf32>, %m: tensor<2xf32>) -> tensor<2x3xf32> {
  %0 = boo.add %x, %a {channel_dim = 1 : i64} : tensor<2x3xf32>, tensor<3xf32>
  %1 = boo.mul %0, %m {channel_dim = 0 : i64} : tensor<2x3xf32>, tensor<2xf32>
  %2 = boo.add %1, %1 : tensor<2x3xf32>, tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
