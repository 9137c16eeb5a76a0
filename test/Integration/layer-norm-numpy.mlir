// Layer norms on random data, run end to end on the CPU and compared with
// the float64 NumPy reference in Inputs/numerics_ref.py.

// RUN: rm -rf %t && mkdir -p %t
// The same cases again from a compiled module on the runtime CPU backend.
// RUN: boo-translate --emit-module %s -o %t/m.boomod

// Forward, bf16, normalized over the trailing 2 dims (rows of 5x13 = 65,
// odd), with weight and bias, offset inputs.
// RUN: %python %S/Inputs/numerics_ref.py gen %t/f 11 x=3x5x13:bf16:1:4 w=5x13:bf16 b=5x13:bf16
// RUN: boo-run-module --module=%s --function=forward_bf16 --input=@%t/f/x.npy \
// RUN:   --input=@%t/f/w.npy --input=@%t/f/b.npy --output=@%t/f/y.npy \
// RUN:   --output=@%t/f/mean.npy --output=@%t/f/rstd.npy
// RUN: %python %S/Inputs/numerics_ref.py layer_norm %t/f bf16 --normalized-rank 2 \
// RUN:   --epsilon 1e-5 --weight --bias | FileCheck %s --check-prefix=FWD
// RUN: rm -f %t/f/y.npy %t/f/mean.npy %t/f/rstd.npy
// RUN: boo-run-module --module=%t/m.boomod --device=cpu:2 --function=forward_bf16 --input=@%t/f/x.npy \
// RUN:   --input=@%t/f/w.npy --input=@%t/f/b.npy --output=@%t/f/y.npy \
// RUN:   --output=@%t/f/mean.npy --output=@%t/f/rstd.npy
// RUN: %python %S/Inputs/numerics_ref.py layer_norm %t/f bf16 --normalized-rank 2 \
// RUN:   --epsilon 1e-5 --weight --bias | FileCheck %s --check-prefix=FWD
// FWD:      PASS y: 195 elements
// FWD-NEXT: PASS mean: 3 elements
// FWD-NEXT: PASS rstd: 3 elements
func.func @forward_bf16(%x: tensor<3x5x13xbf16>, %w: tensor<5x13xbf16>, %b: tensor<5x13xbf16>)
    -> (tensor<3x5x13xbf16>, tensor<3xf32>, tensor<3xf32>) {
  %y, %mean, %rstd = boo.layer_norm %x weight(%w : tensor<5x13xbf16>) bias(%b : tensor<5x13xbf16>)
      {normalized_rank = 2 : i64, epsilon = 1.0e-05 : f32}
      : tensor<3x5x13xbf16> -> tensor<3x5x13xbf16>, tensor<3xf32>, tensor<3xf32>
  return %y, %mean, %rstd : tensor<3x5x13xbf16>, tensor<3xf32>, tensor<3xf32>
}

// Backward, f32, without weight, statistics from the forward above run in
// f32 on f32 data.
// RUN: %python %S/Inputs/numerics_ref.py gen %t/b 12 x=4x2x37:f32:-2:3 dy=4x2x37:f32
// RUN: boo-run-module --module=%s --function=forward_f32 --input=@%t/b/x.npy \
// RUN:   --output= --output=@%t/b/mean.npy --output=@%t/b/rstd.npy
// RUN: boo-run-module --module=%s --function=backward_f32 --input=@%t/b/dy.npy \
// RUN:   --input=@%t/b/x.npy --input=@%t/b/mean.npy --input=@%t/b/rstd.npy \
// RUN:   --output=@%t/b/dx.npy --output=@%t/b/dweight.npy --output=@%t/b/dbias.npy
// RUN: %python %S/Inputs/numerics_ref.py layer_norm_bwd %t/b f32 \
// RUN:   --normalized-rank 1 | FileCheck %s --check-prefix=BWD
// RUN: rm -f %t/b/mean.npy %t/b/rstd.npy %t/b/dx.npy %t/b/dweight.npy %t/b/dbias.npy
// RUN: boo-run-module --module=%t/m.boomod --device=cpu:2 --function=forward_f32 --input=@%t/b/x.npy \
// RUN:   --output= --output=@%t/b/mean.npy --output=@%t/b/rstd.npy
// RUN: boo-run-module --module=%t/m.boomod --device=cpu:2 --function=backward_f32 --input=@%t/b/dy.npy \
// RUN:   --input=@%t/b/x.npy --input=@%t/b/mean.npy --input=@%t/b/rstd.npy \
// RUN:   --output=@%t/b/dx.npy --output=@%t/b/dweight.npy --output=@%t/b/dbias.npy
// RUN: %python %S/Inputs/numerics_ref.py layer_norm_bwd %t/b f32 \
// RUN:   --normalized-rank 1 | FileCheck %s --check-prefix=BWD
// BWD:      PASS dx: 296 elements
// BWD-NEXT: PASS dweight: 37 elements
// BWD-NEXT: PASS dbias: 37 elements
func.func @forward_f32(%x: tensor<4x2x37xf32>)
    -> (tensor<4x2x37xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %y, %mean, %rstd = boo.layer_norm %x {normalized_rank = 1 : i64, epsilon = 1.0e-05 : f32}
      : tensor<4x2x37xf32> -> tensor<4x2x37xf32>, tensor<4x2xf32>, tensor<4x2xf32>
  return %y, %mean, %rstd : tensor<4x2x37xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}
func.func @backward_f32(%dy: tensor<4x2x37xf32>, %x: tensor<4x2x37xf32>,
                        %mean: tensor<4x2xf32>, %rstd: tensor<4x2xf32>)
    -> (tensor<4x2x37xf32>, tensor<37xf32>, tensor<37xf32>) {
  %dx, %dw, %db = boo.layer_norm_bwd %dy, %x, %mean, %rstd {normalized_rank = 1 : i64}
      : tensor<4x2x37xf32>, tensor<4x2x37xf32>, tensor<4x2xf32>, tensor<4x2xf32>
      -> tensor<4x2x37xf32>, tensor<37xf32>, tensor<37xf32>
  return %dx, %dw, %db : tensor<4x2x37xf32>, tensor<37xf32>, tensor<37xf32>
}
