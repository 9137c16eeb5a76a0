// Every way boo-run-module refuses to run: it exits with 1 and one
// "boo-run-module: error: ..." line naming the flag or argument at fault.

// RUN: not boo-run-module --module=%s --function=add --device=gpu 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEVICE
// DEVICE: boo-run-module: error: --device=gpu: invalid device "gpu": expected "cpu", "cpu:N" (N threads, 1-1024), "hip" or "hip:N" (GPU N)
// No AMD GPU here (test/Tools/boo-translate-emit-module.mlir checks both
// messages).
// RUN: not boo-run-module --module=%s --function=add --device=hip 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HIP
// HIP: boo-run-module: error: --device=hip: {{.*(no HIP runtime|no AMD GPU)}}

// RUN: not boo-run-module 2>&1 | FileCheck %s --check-prefix=NOMODULE
// NOMODULE: boo-run-module: error: --module=FILE is required
// RUN: not boo-run-module --module=%t.does-not-exist.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOFILE
// NOFILE: boo-run-module: error: cannot read '{{.*}}does-not-exist.mlir': No such file or directory
// RUN: echo "func.func @f(" > %t.bad.mlir
// RUN: not boo-run-module --module=%t.bad.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: bad.mlir:1:14: error: expected non-function type
// PARSE: boo-run-module: error: cannot parse '{{.*}}bad.mlir'

// --function is needed when there are several public functions.
// RUN: not boo-run-module --module=%s 2>&1 | FileCheck %s --check-prefix=WHICH
// WHICH: boo-run-module: error: '{{.*}}boo-run-module-errors.mlir' has 5 public functions (@add, @conv_like, @dynamic, @calls_undefined, @i32_id); pick one with --function=NAME
// RUN: not boo-run-module --module=%s --function=helper 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRIVATE
// PRIVATE: boo-run-module: error: no public function @helper with a body in the module; public functions: @add, @conv_like, @dynamic, @calls_undefined, @i32_id

// Inputs.
// RUN: not boo-run-module --module=%s --function=add --input=2x3xf32=1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ARITY
// ARITY: boo-run-module: error: @add takes 2 input(s) (2x3xf32, 2x3xf32), got 1 --input
// RUN: not boo-run-module --module=%s --function=add --input=2x3xf32=1 \
// RUN:   --input="2x3xf32=1 2 3 4 5" 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: boo-run-module: error: --input #1: 2x3xf32 needs 6 values, got 5
// RUN: not boo-run-module --module=%s --function=add --input="2x3xf32=1 2 3 4 5 x" \
// RUN:   --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=TOKEN
// TOKEN: boo-run-module: error: --input #0: cannot parse 'x' as f32
// RUN: not boo-run-module --module=%s --function=add --input= \
// RUN:   --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: boo-run-module: error: --input #0: empty tensor; expected e.g. 2x3xf32=1 2 3 4 5 6 or @file.npy
// RUN: not boo-run-module --module=%s --function=add --input=2x3xf32=1 \
// RUN:   --input=@%t.missing.npy 2>&1 | FileCheck %s --check-prefix=NONPY
// NONPY: boo-run-module: error: --input #1: cannot read '{{.*}}missing.npy': No such file or directory
// RUN: not boo-run-module --module=%s --function=add --input=3x2xf32=1 \
// RUN:   --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: boo-run-module: error: input 0: expected 2x3xf32, got 3x2xf32
// RUN: not boo-run-module --module=%s --function=conv_like \
// RUN:   --input=2x3xbf16=1 --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: boo-run-module: error: input 1 (filter): expected 2x3xbf16, got 2x3xf32
// RUN: not boo-run-module --module=%s --function=add --input=2x3xf32=1 \
// RUN:   --input=2x3xf32=1 --input=2x3xf32=1 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: boo-run-module: error: @add takes 2 input(s) (2x3xf32, 2x3xf32), got 3 --input

// Outputs and expected outputs.
// RUN: not boo-run-module --module=%s --function=add --input=2x3xf32=1 \
// RUN:   --input=2x3xf32=1 --output=sum.npy 2>&1 | FileCheck %s --check-prefix=OUTSPEC
// OUTSPEC: boo-run-module: error: --output #0: expected '-' (print), '' (discard) or @FILE.npy, got 'sum.npy'
// RUN: not boo-run-module --module=%s --function=add --input=2x3xf32=1 \
// RUN:   --input=2x3xf32=1 --output=- --output=- 2>&1 | FileCheck %s --check-prefix=OUTCOUNT
// OUTCOUNT: boo-run-module: error: @add has 1 result(s), got 2 --output
// RUN: not boo-run-module --module=%s --function=add --input=2x3xf32=1 \
// RUN:   --input=2x3xf32=1 --expected_output=2x3xf32=2 --expected_output=2x3xf32=2 2>&1 \
// RUN:   | FileCheck %s --check-prefix=EXPCOUNT
// EXPCOUNT: boo-run-module: error: @add has 1 result(s) (2x3xf32), got 2 --expected_output
// RUN: not boo-run-module --module=%s --function=add --input=2x3xf32=1 \
// RUN:   --input=2x3xf32=1 --expected_output=6xf32=2 2>&1 | FileCheck %s --check-prefix=EXPTYPE
// EXPTYPE: boo-run-module: error: --expected_output #0: result 0 of @add is 2x3xf32, got 6xf32

// Functions that cannot be compiled for the CPU.
// RUN: not boo-run-module --module=%s --function=dynamic 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: boo-run-module: error: input 0 of @dynamic has type tensor<?xf32>; compiled modules take statically shaped tensors of f32, f16, bf16, f64, i32, i8 or i64
// RUN: not boo-run-module --module=%s --function=calls_undefined 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNDEFINED
// UNDEFINED: boo-run-module: error: cpu: the module calls external function(s) found neither in the module nor in the C and math libraries: @undefined_helper
// RUN: not boo-run-module --module=%s --function=add \
// RUN:   --cpu-pipeline-options="no-such-option=1" 2>&1 | FileCheck %s --check-prefix=OPTIONS
// OPTIONS: boo-run-module: error: invalid --cpu-pipeline-options 'no-such-option=1'

// i32 text values must fit.
// RUN: not boo-run-module --module=%s --function=i32_id --input=2xi32=1,4294967296 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE
// RANGE: boo-run-module: error: --input #0: cannot parse '4294967296' as i32

#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// Arguments may be named for messages with a `boo.name` attribute.
func.func @conv_like(%input: tensor<2x3xbf16> {boo.name = "input"},
                     %filter: tensor<2x3xbf16> {boo.name = "filter"}) -> tensor<2x3xbf16> {
  return %input : tensor<2x3xbf16>
}

func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

func.func private @undefined_helper(tensor<2xf32>) -> tensor<2xf32>
func.func @calls_undefined(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = func.call @undefined_helper(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

func.func @i32_id(%a: tensor<2xi32>) -> tensor<2xi32> {
  return %a : tensor<2xi32>
}

func.func private @helper() {
  return
}
