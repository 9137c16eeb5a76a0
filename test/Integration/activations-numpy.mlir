// Every activation on 257 random values in [-8, 8] (where each one has left
// its linear region), run end to end on the CPU and compared with the
// float64 NumPy reference in Inputs/numerics_ref.py. f32 runs check the
// transcendental approximations to within 32 f32 ulps of |x| + |f(x)|; f16 and
// bf16 runs check the final rounding.

// RUN: rm -rf %t && mkdir -p %t

// RUN: %python %S/Inputs/numerics_ref.py gen %t/relu_f16 20 x=257:f16:-8:8
// RUN: boo-run-module --module=%s --function=relu_f16 --input=@%t/relu_f16/x.npy --output=@%t/relu_f16/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/relu_f16 f16 relu | FileCheck %s --check-prefix=RELU_F16
// RELU_F16: PASS relu: 257 elements
func.func @relu_f16(%x: tensor<257xf16>) -> tensor<257xf16> {
  %y = boo.activation relu %x : tensor<257xf16>
  return %y : tensor<257xf16>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/sigmoid_f16 21 x=257:f16:-8:8
// RUN: boo-run-module --module=%s --function=sigmoid_f16 --input=@%t/sigmoid_f16/x.npy --output=@%t/sigmoid_f16/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/sigmoid_f16 f16 sigmoid | FileCheck %s --check-prefix=SIGMOID_F16
// SIGMOID_F16: PASS sigmoid: 257 elements
func.func @sigmoid_f16(%x: tensor<257xf16>) -> tensor<257xf16> {
  %y = boo.activation sigmoid %x : tensor<257xf16>
  return %y : tensor<257xf16>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/tanh_f16 22 x=257:f16:-8:8
// RUN: boo-run-module --module=%s --function=tanh_f16 --input=@%t/tanh_f16/x.npy --output=@%t/tanh_f16/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/tanh_f16 f16 tanh | FileCheck %s --check-prefix=TANH_F16
// TANH_F16: PASS tanh: 257 elements
func.func @tanh_f16(%x: tensor<257xf16>) -> tensor<257xf16> {
  %y = boo.activation tanh %x : tensor<257xf16>
  return %y : tensor<257xf16>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/gelu_f16 23 x=257:f16:-8:8
// RUN: boo-run-module --module=%s --function=gelu_f16 --input=@%t/gelu_f16/x.npy --output=@%t/gelu_f16/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/gelu_f16 f16 gelu | FileCheck %s --check-prefix=GELU_F16
// GELU_F16: PASS gelu: 257 elements
func.func @gelu_f16(%x: tensor<257xf16>) -> tensor<257xf16> {
  %y = boo.activation gelu %x : tensor<257xf16>
  return %y : tensor<257xf16>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/gelu_tanh_bf16 24 x=257:bf16:-8:8
// RUN: boo-run-module --module=%s --function=gelu_tanh_bf16 --input=@%t/gelu_tanh_bf16/x.npy --output=@%t/gelu_tanh_bf16/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/gelu_tanh_bf16 bf16 gelu_tanh | FileCheck %s --check-prefix=GELU_TANH_BF16
// GELU_TANH_BF16: PASS gelu_tanh: 257 elements
func.func @gelu_tanh_bf16(%x: tensor<257xbf16>) -> tensor<257xbf16> {
  %y = boo.activation gelu_tanh %x : tensor<257xbf16>
  return %y : tensor<257xbf16>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/silu_bf16 25 x=257:bf16:-8:8
// RUN: boo-run-module --module=%s --function=silu_bf16 --input=@%t/silu_bf16/x.npy --output=@%t/silu_bf16/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/silu_bf16 bf16 silu | FileCheck %s --check-prefix=SILU_BF16
// SILU_BF16: PASS silu: 257 elements
func.func @silu_bf16(%x: tensor<257xbf16>) -> tensor<257xbf16> {
  %y = boo.activation silu %x : tensor<257xbf16>
  return %y : tensor<257xbf16>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/leaky_relu_bf16 26 x=257:bf16:-8:8
// RUN: boo-run-module --module=%s --function=leaky_relu_bf16 --input=@%t/leaky_relu_bf16/x.npy --output=@%t/leaky_relu_bf16/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/leaky_relu_bf16 bf16 leaky_relu --alpha 0.125 | FileCheck %s --check-prefix=LEAKY_RELU_BF16
// LEAKY_RELU_BF16: PASS leaky_relu: 257 elements
func.func @leaky_relu_bf16(%x: tensor<257xbf16>) -> tensor<257xbf16> {
  %y = boo.activation leaky_relu %x {alpha = 0.125 : f32} : tensor<257xbf16>
  return %y : tensor<257xbf16>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/clamp_f16 27 x=257:f16:-8:8
// RUN: boo-run-module --module=%s --function=clamp_f16 --input=@%t/clamp_f16/x.npy --output=@%t/clamp_f16/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/clamp_f16 f16 clamp --min -1.5 --max 2.25 | FileCheck %s --check-prefix=CLAMP_F16
// CLAMP_F16: PASS clamp: 257 elements
func.func @clamp_f16(%x: tensor<257xf16>) -> tensor<257xf16> {
  %y = boo.activation clamp %x {min = -1.5 : f32, max = 2.25 : f32} : tensor<257xf16>
  return %y : tensor<257xf16>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/sigmoid_f32 28 x=257:f32:-8:8
// RUN: boo-run-module --module=%s --function=sigmoid_f32 --input=@%t/sigmoid_f32/x.npy --output=@%t/sigmoid_f32/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/sigmoid_f32 f32 sigmoid | FileCheck %s --check-prefix=SIGMOID_F32
// SIGMOID_F32: PASS sigmoid: 257 elements
func.func @sigmoid_f32(%x: tensor<257xf32>) -> tensor<257xf32> {
  %y = boo.activation sigmoid %x : tensor<257xf32>
  return %y : tensor<257xf32>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/tanh_f32 29 x=257:f32:-8:8
// RUN: boo-run-module --module=%s --function=tanh_f32 --input=@%t/tanh_f32/x.npy --output=@%t/tanh_f32/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/tanh_f32 f32 tanh | FileCheck %s --check-prefix=TANH_F32
// TANH_F32: PASS tanh: 257 elements
func.func @tanh_f32(%x: tensor<257xf32>) -> tensor<257xf32> {
  %y = boo.activation tanh %x : tensor<257xf32>
  return %y : tensor<257xf32>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/gelu_f32 30 x=257:f32:-8:8
// RUN: boo-run-module --module=%s --function=gelu_f32 --input=@%t/gelu_f32/x.npy --output=@%t/gelu_f32/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/gelu_f32 f32 gelu | FileCheck %s --check-prefix=GELU_F32
// GELU_F32: PASS gelu: 257 elements
func.func @gelu_f32(%x: tensor<257xf32>) -> tensor<257xf32> {
  %y = boo.activation gelu %x : tensor<257xf32>
  return %y : tensor<257xf32>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/gelu_tanh_f32 31 x=257:f32:-8:8
// RUN: boo-run-module --module=%s --function=gelu_tanh_f32 --input=@%t/gelu_tanh_f32/x.npy --output=@%t/gelu_tanh_f32/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/gelu_tanh_f32 f32 gelu_tanh | FileCheck %s --check-prefix=GELU_TANH_F32
// GELU_TANH_F32: PASS gelu_tanh: 257 elements
func.func @gelu_tanh_f32(%x: tensor<257xf32>) -> tensor<257xf32> {
  %y = boo.activation gelu_tanh %x : tensor<257xf32>
  return %y : tensor<257xf32>
}

// RUN: %python %S/Inputs/numerics_ref.py gen %t/silu_f32 32 x=257:f32:-8:8
// RUN: boo-run-module --module=%s --function=silu_f32 --input=@%t/silu_f32/x.npy --output=@%t/silu_f32/out.npy
// RUN: %python %S/Inputs/numerics_ref.py activation %t/silu_f32 f32 silu | FileCheck %s --check-prefix=SILU_F32
// SILU_F32: PASS silu: 257 elements
func.func @silu_f32(%x: tensor<257xf32>) -> tensor<257xf32> {
  %y = boo.activation silu %x : tensor<257xf32>
  return %y : tensor<257xf32>
}
