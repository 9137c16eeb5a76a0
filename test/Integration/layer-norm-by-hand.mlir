// Layer norms run end to end on the CPU, on rows chosen so that every
// statistic and result is exact in binary; the arithmetic is in the comments.
//
// Rows of x (2x4, normalized over the last dim):
//   row 0 = [0 0 2 2]:  mean 1, deviations [-1 -1 1 1], var 1, rstd 1,
//                       xhat = [-1 -1 1 1]
//   row 1 = [3 -1 3 -1]: mean 1, deviations [2 -2 2 -2], var 4, rstd 0.5,
//                       xhat = [1 -1 1 -1]

// Without weight and bias (epsilon 0): y = xhat.
// RUN: boo-run-module --module=%s --function=plain \
// RUN:   --input="2x4xf32=0 0 2 2 3 -1 3 -1" | FileCheck %s --check-prefix=PLAIN
// RUN: boo-run-module --module=%s --function=plain \
// RUN:   --cpu-pipeline-options="vectorize=false" \
// RUN:   --input="2x4xf32=0 0 2 2 3 -1 3 -1" | FileCheck %s --check-prefix=PLAIN
// PLAIN:      result[0]: 2x4xf32=[-1 -1 1 1][1 -1 1 -1]
// PLAIN-NEXT: result[1]: 2xf32=1 1
// PLAIN-NEXT: result[2]: 2xf32=1 0.5
func.func @plain(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>) {
  %y, %mean, %rstd = boo.layer_norm %x {normalized_rank = 1 : i64, epsilon = 0.0 : f32}
      : tensor<2x4xf32> -> tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>
  return %y, %mean, %rstd : tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>
}

// weight [1 2 3 4], bias [0.5 0.5 0.5 0.5], epsilon 0: y = xhat * w + b,
//   row 0 = [-1 -2 3 4] + 0.5 = [-0.5 -1.5 3.5 4.5],
//   row 1 = [1 -2 3 -4] + 0.5 = [1.5 -1.5 3.5 -3.5].
// In bf16 every one of these values is exact.
// RUN: boo-run-module --module=%s --function=affine_bf16 \
// RUN:   --input="2x4xbf16=0 0 2 2 3 -1 3 -1" --input="4xbf16=1 2 3 4" \
// RUN:   --input="4xbf16=0.5" | FileCheck %s --check-prefix=AFFINE
// AFFINE: result[0]: 2x4xbf16=[-0.5 -1.5 3.5 4.5][1.5 -1.5 3.5 -3.5]
func.func @affine_bf16(%x: tensor<2x4xbf16>, %w: tensor<4xbf16>, %b: tensor<4xbf16>)
    -> tensor<2x4xbf16> {
  %y, %mean, %rstd = boo.layer_norm %x weight(%w : tensor<4xbf16>) bias(%b : tensor<4xbf16>)
      {normalized_rank = 1 : i64, epsilon = 0.0 : f32}
      : tensor<2x4xbf16> -> tensor<2x4xbf16>, tensor<2xf32>, tensor<2xf32>
  return %y : tensor<2x4xbf16>
}

// epsilon 3 on row 0 (var 1): rstd = 1/sqrt(1 + 3) = 0.5, so
// y = 0.5 * [-1 -1 1 1] = [-0.5 -0.5 0.5 0.5].
// RUN: boo-run-module --module=%s --function=epsilon \
// RUN:   --input="1x4xf32=0 0 2 2" | FileCheck %s --check-prefix=EPS
// EPS:      result[0]: 1x4xf32=[-0.5 -0.5 0.5 0.5]
// EPS-NEXT: result[1]: 1xf32=0.5
func.func @epsilon(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1xf32>) {
  %y, %mean, %rstd = boo.layer_norm %x {normalized_rank = 1 : i64, epsilon = 3.0 : f32}
      : tensor<1x4xf32> -> tensor<1x4xf32>, tensor<1xf32>, tensor<1xf32>
  return %y, %rstd : tensor<1x4xf32>, tensor<1xf32>
}

// normalized_rank 2 over a 1x2x2 tensor: one row [0 0 2 2] (as 2x2), the
// same statistics as row 0 above.
// RUN: boo-run-module --module=%s --function=rank2 \
// RUN:   --input="1x2x2xf32=0 0 2 2" | FileCheck %s --check-prefix=RANK2
// RANK2:      result[0]: 1x2x2xf32=[{{\[}}-1 -1][1 1]]
// RANK2-NEXT: result[1]: 1xf32=1
func.func @rank2(%x: tensor<1x2x2xf32>) -> (tensor<1x2x2xf32>, tensor<1xf32>) {
  %y, %mean, %rstd = boo.layer_norm %x {normalized_rank = 2 : i64, epsilon = 0.0 : f32}
      : tensor<1x2x2xf32> -> tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>
  return %y, %rstd : tensor<1x2x2xf32>, tensor<1xf32>
}

// Backward, with the statistics above (mean [1 1], rstd [1 0.5]) and
// weight [2 1 1 1]. dx = rstd (g - mean(g) - xhat mean(g xhat)), g = dy w.
//   row 0: dy = [1 0 0 0], g = [2 0 0 0], mean(g) = 0.5,
//          g xhat = [-2 0 0 0], mean(g xhat) = -0.5,
//          dx = 1 * ([2 0 0 0] - 0.5 + 0.5 [-1 -1 1 1]) = [1 -1 0 0]
//   row 1: dy = [0 0 0 2], g = [0 0 0 2], mean(g) = 0.5,
//          g xhat = [0 0 0 -2], mean(g xhat) = -0.5,
//          dx = 0.5 * ([0 0 0 2] - 0.5 + 0.5 [1 -1 1 -1]) = [0 -0.5 0 0.5]
//   dweight = sum over rows of dy xhat = [1*-1, 0, 0, 2*-1] = [-1 0 0 -2]
//   dbias   = sum over rows of dy      = [1 0 0 2]
// RUN: boo-run-module --module=%s --function=backward \
// RUN:   --input="2x4xf32=1 0 0 0 0 0 0 2" --input="2x4xf32=0 0 2 2 3 -1 3 -1" \
// RUN:   --input="2xf32=1 1" --input="2xf32=1 0.5" --input="4xf32=2 1 1 1" \
// RUN:   | FileCheck %s --check-prefix=BWD
// RUN: boo-run-module --module=%s --function=backward \
// RUN:   --cpu-pipeline-options="vectorize=false" \
// RUN:   --input="2x4xf32=1 0 0 0 0 0 0 2" --input="2x4xf32=0 0 2 2 3 -1 3 -1" \
// RUN:   --input="2xf32=1 1" --input="2xf32=1 0.5" --input="4xf32=2 1 1 1" \
// RUN:   | FileCheck %s --check-prefix=BWD
// BWD:      result[0]: 2x4xf32=[1 -1 0 0][0 -0.5 0 0.5]
// BWD-NEXT: result[1]: 4xf32=-1 0 0 -2
// BWD-NEXT: result[2]: 4xf32=1 0 0 2
func.func @backward(%dy: tensor<2x4xf32>, %x: tensor<2x4xf32>, %mean: tensor<2xf32>,
                    %rstd: tensor<2xf32>, %w: tensor<4xf32>)
    -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %dx, %dw, %db = boo.layer_norm_bwd %dy, %x, %mean, %rstd weight(%w : tensor<4xf32>)
      {normalized_rank = 1 : i64}
      : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>
      -> tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
  return %dx, %dw, %db : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>
}
