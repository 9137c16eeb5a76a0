// Compiled modules: boo-translate --emit-module writes one file with the
// code for each target and a manifest; boo-run-module runs it through the
// runtime without compiling. The numbers are checked by hand here (x + y);
// test/Integration/*-numpy.mlir run convolutions and layer norms from a
// compiled module against the NumPy reference.

// RUN: rm -rf %t && mkdir -p %t
// RUN: boo-translate --emit-module %s -o %t/cpu.boomod
// RUN: head -c 7 %t/cpu.boomod | FileCheck %s --check-prefix=MAGIC
// MAGIC: BOOMODL

// RUN: boo-run-module --module=%t/cpu.boomod --function=add --device=cpu \
// RUN:   --input="2x3xf32=[1 2 3][4 5 6]" --input="2x3xf32=10" \
// RUN:   --expected_output="2x3xf32=[11 12 13][14 15 16]" | FileCheck %s --check-prefix=CALL
// RUN: boo-run-module --module=%t/cpu.boomod --function=add --device=cpu:2 \
// RUN:   --input="2x3xf32=[1 2 3][4 5 6]" --input="2x3xf32=10" \
// RUN:   --expected_output="2x3xf32=[11 12 13][14 15 16]" | FileCheck %s --check-prefix=CALL
// CALL-LABEL: EXEC @add
// CALL: result[0]: 2x3xf32=[11 12 13][14 15 16]
// CALL: [SUCCESS]

// LLVM's loop unrolling, off by default, on.
// RUN: boo-translate --emit-module --cpu-loop-unrolling %s -o %t/unrolled.boomod
// RUN: boo-run-module --module=%t/unrolled.boomod --function=add --device=cpu \
// RUN:   --input="2x3xf32=[1 2 3][4 5 6]" --input="2x3xf32=10" \
// RUN:   --expected_output="2x3xf32=[11 12 13][14 15 16]" | FileCheck %s --check-prefix=CALL

// --benchmark times N calls after a warm-up.
// RUN: boo-run-module --module=%t/cpu.boomod --function=add --benchmark=5 \
// RUN:   --input="2x3xf32=1" --input="2x3xf32=2" --output= | FileCheck %s --check-prefix=BENCH
// BENCH: BENCHMARK @add on cpu: 5 calls (steady clock), per call: min {{[0-9.]+}} ms, median {{[0-9.]+}} ms, max {{[0-9.]+}} ms, mean {{[0-9.]+}} ms

// Several targets in one file; the CPU device picks its own code.
// RUN: boo-translate --emit-module --targets=gfx942,cpu,gfx1100 %s -o %t/multi.boomod
// RUN: boo-run-module --module=%t/multi.boomod --function=add \
// RUN:   --input="2x3xf32=1" --input="2x3xf32=2" --expected_output="2x3xf32=3" \
// RUN:   | FileCheck %s --check-prefix=MULTI
// MULTI: [SUCCESS]

// A module without code for the device names the targets it has.
// RUN: boo-translate --emit-module --targets=gfx942,gfx1100 %s -o %t/gpu.boomod
// RUN: not boo-run-module --module=%t/gpu.boomod --function=add \
// RUN:   --input="2x3xf32=1" --input="2x3xf32=2" 2>&1 | FileCheck %s --check-prefix=NOCPU
// NOCPU: boo-run-module: error: '{{.*}}gpu.boomod': the module has no code for {{x86_64|aarch64}}; it has: gfx942, gfx1100

// No GPU here: --device=hip says which part is missing, before compiling.
// RUN: env BOO_HIP_LIBRARY=%t/no-such-libamdhip64.so not boo-run-module \
// RUN:   --module=%t/multi.boomod --device=hip --function=add \
// RUN:   --input="2x3xf32=1" --input="2x3xf32=2" 2>&1 | FileCheck %s --check-prefix=NOHIP
// NOHIP: boo-run-module: error: --device=hip: no HIP runtime: cannot load {{.*}}no-such-libamdhip64.so
// RUN: not boo-run-module --module=%s --device=hip:0 --function=add \
// RUN:   --input="2x3xf32=1" --input="2x3xf32=2" 2>&1 | FileCheck %s --check-prefix=NODEV
// NODEV: boo-run-module: error: --device=hip:0: {{.*(no HIP runtime|no AMD GPU)}}

// Damaged files are rejected with what is wrong.
// RUN: head -c 100 %t/cpu.boomod > %t/truncated.boomod
// RUN: not boo-run-module --module=%t/truncated.boomod --function=add \
// RUN:   --input="2x3xf32=1" --input="2x3xf32=2" 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: boo-run-module: error: '{{.*}}truncated.boomod': invalid module: {{.*}}truncated

// Errors of the compiler side.
// RUN: not boo-translate --emit-module --targets=cpu,gfx9000 %s -o %t/x.boomod 2>&1 | FileCheck %s --check-prefix=BADTARGET
// BADTARGET: boo-translate: error: unknown target 'gfx9000'; targets: cpu, gfx90a, gfx942
// RUN: not boo-translate --emit-module %s 2>&1 | FileCheck %s --check-prefix=NOOUT
// NOOUT: boo-translate: error: --emit-module writes a binary file: pass -o <file>

func.func @add(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = boo.add %x, %y : tensor<2x3xf32>, tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

func.func @conv_bias_relu(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x3x2xf32>,
                          %b: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %c = boo.conv %x, %w {padding_low = array<i64: 1, 1>,
                        padding_high = array<i64: 1, 1>,
                        input_layout = "NHWC", filter_layout = "KYXC",
                        output_layout = "NHWC"}
       : tensor<1x4x4x2xf32>, tensor<3x3x3x2xf32> -> tensor<1x4x4x3xf32>
  %a = boo.add %c, %b {channel_dim = 3 : i64}
       : tensor<1x4x4x3xf32>, tensor<3xf32>
  %r = boo.activation relu %a : tensor<1x4x4x3xf32>
  return %r : tensor<1x4x4x3xf32>
}
