// Convolutions on random data, run end to end on the CPU and compared with
// the float64 NumPy reference in Inputs/numerics_ref.py (written apart from
// the compiler: it parses layouts itself and computes the backward ops as
// scatters). `gen` writes inputs already rounded to their storage type; the
// check prints PASS or FAIL with the first mismatch and its bound.

// RUN: rm -rf %t && mkdir -p %t
// The same cases again from a compiled module on the runtime CPU backend.
// RUN: boo-translate --emit-module %s -o %t/m.boomod

// 3-D, f32, NCDHW, 2 groups, mixed strides/dilations, asymmetric padding.
// RUN: %python %S/Inputs/numerics_ref.py gen %t/a 1 x=2x4x5x6x7:f32 w=6x2x3x2x3:f32
// RUN: boo-run-module --module=%s --function=fwd_3d_f32 --device=cpu \
// RUN:   --input=@%t/a/x.npy --input=@%t/a/w.npy --output=@%t/a/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/a f32 fwd --groups 2 \
// RUN:   --strides 2,1,2 --dilations 1,2,1 --pad-low 1,0,2 --pad-high 0,1,1 \
// RUN:   | FileCheck %s --check-prefix=FWD3D
// RUN: rm -f %t/a/out.npy
// RUN: boo-run-module --module=%t/m.boomod --device=cpu:2 --function=fwd_3d_f32 \
// RUN:   --input=@%t/a/x.npy --input=@%t/a/w.npy --output=@%t/a/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/a f32 fwd --groups 2 \
// RUN:   --strides 2,1,2 --dilations 1,2,1 --pad-low 1,0,2 --pad-high 0,1,1 \
// RUN:   | FileCheck %s --check-prefix=FWD3D
// FWD3D: PASS conv: 480 elements
func.func @fwd_3d_f32(%x: tensor<2x4x5x6x7xf32>, %w: tensor<6x2x3x2x3xf32>) -> tensor<2x6x2x5x4xf32> {
  %y = boo.conv %x, %w {groups = 2 : i64, strides = array<i64: 2, 1, 2>,
         dilations = array<i64: 1, 2, 1>, padding_low = array<i64: 1, 0, 2>,
         padding_high = array<i64: 0, 1, 1>}
       : tensor<2x4x5x6x7xf32>, tensor<6x2x3x2x3xf32> -> tensor<2x6x2x5x4xf32>
  return %y : tensor<2x6x2x5x4xf32>
}

// Backward data, f16, NHWC / KYXC, stride 2 with padding (1,1 low, 2,0
// high) and dilation 2 in H.
// RUN: %python %S/Inputs/numerics_ref.py gen %t/b 2 dy=2x3x4x4:f16 w=4x3x3x6:f16
// RUN: boo-run-module --module=%s --function=bwd_data_f16 \
// RUN:   --input=@%t/b/dy.npy --input=@%t/b/w.npy --output=@%t/b/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/b f16 bwd_data \
// RUN:   --layouts NHWC,KYXC,NHWC --x-shape 2x7x8x6 --strides 2,2 \
// RUN:   --dilations 2,1 --pad-low 1,1 --pad-high 2,0 | FileCheck %s --check-prefix=BWDDATA
// RUN: rm -f %t/b/out.npy
// RUN: boo-run-module --module=%t/m.boomod --device=cpu:2 --function=bwd_data_f16 \
// RUN:   --input=@%t/b/dy.npy --input=@%t/b/w.npy --output=@%t/b/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/b f16 bwd_data \
// RUN:   --layouts NHWC,KYXC,NHWC --x-shape 2x7x8x6 --strides 2,2 \
// RUN:   --dilations 2,1 --pad-low 1,1 --pad-high 2,0 | FileCheck %s --check-prefix=BWDDATA
// BWDDATA: PASS conv_bwd_data: 672 elements
func.func @bwd_data_f16(%dy: tensor<2x3x4x4xf16>, %w: tensor<4x3x3x6xf16>) -> tensor<2x7x8x6xf16> {
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>,
          dilations = array<i64: 2, 1>, padding_low = array<i64: 1, 1>,
          padding_high = array<i64: 2, 0>, input_layout = "NHWC",
          filter_layout = "KYXC", output_layout = "NHWC"}
        : tensor<2x3x4x4xf16>, tensor<4x3x3x6xf16> -> tensor<2x7x8x6xf16>
  return %dx : tensor<2x7x8x6xf16>
}

// Backward weight, bf16, odd layouts (input HCWN, filter YCXK, output
// WHNC), 3 groups, stride 2 in W.
// RUN: %python %S/Inputs/numerics_ref.py gen %t/c 3 dy=3x6x2x9:bf16 x=6x6x5x2:bf16
// RUN: boo-run-module --module=%s --function=bwd_weight_bf16 \
// RUN:   --input=@%t/c/dy.npy --input=@%t/c/x.npy --output=@%t/c/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/c bf16 bwd_weight \
// RUN:   --layouts HCWN,YCXK,WHNC --w-shape 2x2x3x9 --groups 3 --strides 1,2 \
// RUN:   --pad-low 0,1 --pad-high 1,1 | FileCheck %s --check-prefix=BWDWEIGHT
// RUN: rm -f %t/c/out.npy
// RUN: boo-run-module --module=%t/m.boomod --device=cpu:2 --function=bwd_weight_bf16 \
// RUN:   --input=@%t/c/dy.npy --input=@%t/c/x.npy --output=@%t/c/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/c bf16 bwd_weight \
// RUN:   --layouts HCWN,YCXK,WHNC --w-shape 2x2x3x9 --groups 3 --strides 1,2 \
// RUN:   --pad-low 0,1 --pad-high 1,1 | FileCheck %s --check-prefix=BWDWEIGHT
// BWDWEIGHT: PASS conv_bwd_weight: 108 elements
func.func @bwd_weight_bf16(%dy: tensor<3x6x2x9xbf16>, %x: tensor<6x6x5x2xbf16>) -> tensor<2x2x3x9xbf16> {
  %dw = boo.conv_bwd_weight %dy, %x {groups = 3 : i64, strides = array<i64: 1, 2>,
          padding_low = array<i64: 0, 1>, padding_high = array<i64: 1, 1>,
          input_layout = "HCWN", filter_layout = "YCXK", output_layout = "WHNC"}
        : tensor<3x6x2x9xbf16>, tensor<6x6x5x2xbf16> -> tensor<2x2x3x9xbf16>
  return %dw : tensor<2x2x3x9xbf16>
}

// Bias gradient, f32, NHWC.
// RUN: %python %S/Inputs/numerics_ref.py gen %t/d 4 dy=2x5x3x7:f32
// RUN: boo-run-module --module=%s --function=bwd_bias_f32 \
// RUN:   --input=@%t/d/dy.npy --output=@%t/d/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/d f32 bwd_bias \
// RUN:   --layouts NHWC,KYXC,NHWC | FileCheck %s --check-prefix=BIAS
// RUN: rm -f %t/d/out.npy
// RUN: boo-run-module --module=%t/m.boomod --device=cpu:2 --function=bwd_bias_f32 \
// RUN:   --input=@%t/d/dy.npy --output=@%t/d/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/d f32 bwd_bias \
// RUN:   --layouts NHWC,KYXC,NHWC | FileCheck %s --check-prefix=BIAS
// BIAS: PASS conv_bwd_bias: 7 elements
func.func @bwd_bias_f32(%dy: tensor<2x5x3x7xf32>) -> tensor<7xf32> {
  %db = boo.conv_bwd_bias %dy {output_layout = "NHWC"} : tensor<2x5x3x7xf32> -> tensor<7xf32>
  return %db : tensor<7xf32>
}

// Depthwise conv + bias + gelu in one boo.fusion, f16, NHWC.
// RUN: %python %S/Inputs/numerics_ref.py gen %t/e 5 x=2x6x6x8:f16 w=8x3x3x1:f16 b=8:f16
// RUN: boo-run-module --module=%s --function=fused_f16 --input=@%t/e/x.npy \
// RUN:   --input=@%t/e/w.npy --input=@%t/e/b.npy --output=@%t/e/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/e f16 fwd --bias --groups 8 \
// RUN:   --layouts NHWC,KYXC,NHWC --pad-low 1,1 --pad-high 1,1 --activation gelu \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: rm -f %t/e/out.npy
// RUN: boo-run-module --module=%t/m.boomod --device=cpu:2 --function=fused_f16 --input=@%t/e/x.npy \
// RUN:   --input=@%t/e/w.npy --input=@%t/e/b.npy --output=@%t/e/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/e f16 fwd --bias --groups 8 \
// RUN:   --layouts NHWC,KYXC,NHWC --pad-low 1,1 --pad-high 1,1 --activation gelu \
// RUN:   | FileCheck %s --check-prefix=FUSED
// FUSED: PASS conv: 576 elements
func.func @fused_f16(%x: tensor<2x6x6x8xf16>, %w: tensor<8x3x3x1xf16>, %b: tensor<8xf16>)
    -> tensor<2x6x6x8xf16> {
  %0 = boo.fusion -> tensor<2x6x6x8xf16> {
    %c = boo.conv %x, %w bias(%b : tensor<8xf16>) {groups = 8 : i64,
           padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>,
           input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"}
         : tensor<2x6x6x8xf16>, tensor<8x3x3x1xf16> -> tensor<2x6x6x8xf16>
    %g = boo.activation gelu %c : tensor<2x6x6x8xf16>
    boo.yield %g : tensor<2x6x6x8xf16>
  }
  return %0 : tensor<2x6x6x8xf16>
}

// Large enough for boo-cpu-outline-parallel (its loops carry more than
// min-work): the compiled module runs its tiles on the runtime's thread pool
// (cpu:2) and must match the reference as the sequential cases do.
// RUN: %python %S/Inputs/numerics_ref.py gen %t/f 6 x=2x10x10x32:f32 w=32x3x3x32:f32
// RUN: boo-opt %s --boo-to-llvm-cpu | FileCheck %s --check-prefix=OUTLINED
// OUTLINED: llvm.func internal @fwd_parallel_threads_parallel_{{[0-9]+}}(
// RUN: boo-run-module --module=%t/m.boomod --device=cpu:2 --function=fwd_parallel_threads \
// RUN:   --input=@%t/f/x.npy --input=@%t/f/w.npy --output=@%t/f/out.npy
// RUN: %python %S/Inputs/numerics_ref.py conv %t/f f32 fwd --layouts NHWC,KYXC,NHWC \
// RUN:   | FileCheck %s --check-prefix=THREADS
// THREADS: PASS conv: 4096 elements
func.func @fwd_parallel_threads(%x: tensor<2x10x10x32xf32>, %w: tensor<32x3x3x32xf32>)
    -> tensor<2x8x8x32xf32> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC",
                        output_layout = "NHWC"}
       : tensor<2x10x10x32xf32>, tensor<32x3x3x32xf32> -> tensor<2x8x8x32xf32>
  return %y : tensor<2x8x8x32xf32>
}
