// Runs small linalg-on-tensors functions on the CPU and checks their printed
// results, which were computed by hand.

// RUN: boo-run-module --module=%s --function=add --device=cpu \
// RUN:   --input="2x3xf32=[1 2 3][4 5 6]" --input="2x3xf32=0.5 0.5 0.5 0.5 0.5 0.5" \
// RUN:   | FileCheck %s --check-prefix=ADD
// ADD:      EXEC @add
// ADD-NEXT: result[0]: 2x3xf32=[1.5 2.5 3.5][4.5 5.5 6.5]
// ADD-NOT:  result[1]

// MLIR on the CPU is compiled into the module boo-translate --emit-module
// would write and run by the runtime; --dump-object-file writes its host
// code object, an ELF shared object with one entry point per function.
// RUN: boo-run-module --module=%s --function=add --device=cpu \
// RUN:   --input=2x3xf32=1 --input=2x3xf32=2 --dump-object-file=%t.so \
// RUN:   | FileCheck %s --check-prefix=ADD3
// ADD3: result[0]: 2x3xf32=[3 3 3][3 3 3]
// RUN: llvm-readelf --file-header --dyn-syms %t.so | FileCheck %s --check-prefix=OBJECT
// OBJECT: Type: DYN (Shared object file)
// OBJECT: boo_entry_add
// RUN: not boo-run-module --module=%s --function=add --device=emu:gfx942 \
// RUN:   --input=2x3xf32=1 --input=2x3xf32=2 --dump-object-file=%t.emu.so 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTCPU
// NOTCPU: boo-run-module: error: --cpu-pipeline-options and --dump-object-file apply to MLIR run on a cpu device

// A single value is a splat; commas and nested brackets are separators.
// RUN: boo-run-module --module=%s --function=add \
// RUN:   --input="2x3xf32=[[1, 2, 3], [4, 5, 6]]" --input=2x3xf32=-1 \
// RUN:   | FileCheck %s --check-prefix=SPLAT
// SPLAT: result[0]: 2x3xf32=[0 1 2][3 4 5]

// [1 2 3; 4 5 6] x [1 0; 0 1; 1 1] = [4 5; 10 11]
// RUN: boo-run-module --module=%s --function=matmul \
// RUN:   --input="2x3xf32=1 2 3 4 5 6" --input="3x2xf32=1 0 0 1 1 1" \
// RUN:   | FileCheck %s --check-prefix=MATMUL
// MATMUL: result[0]: 2x2xf32=[4 5][10 11]
// The same with LLVM's loop unrolling (off by default).
// RUN: boo-run-module --module=%s --function=matmul --cpu-loop-unrolling \
// RUN:   --input="2x3xf32=1 2 3 4 5 6" --input="3x2xf32=1 0 0 1 1 1" \
// RUN:   | FileCheck %s --check-prefix=MATMUL

// bf16 rounds to nearest even: 1 + 2^-8 is a tie and stays 1; 1 + 2^-7 is
// exact; 0.1 + 0.2 are 0.10009765625 + 0.2001953125 in bf16, whose sum
// 0.30029296875 rounds to 0.30078125.
// RUN: boo-run-module --module=%s --function=add_bf16 \
// RUN:   --input="4xbf16=1 1 0.1 -2" --input="4xbf16=0.00390625 0.0078125 0.2 0.5" \
// RUN:   | FileCheck %s --check-prefix=BF16
// BF16: result[0]: 4xbf16=1 1.00781 0.300781 -1.5

// i8 arithmetic wraps; 0x hex and the unsigned spelling 255 (-1) parse.
// RUN: boo-run-module --module=%s --function=add_i8 \
// RUN:   --input="3xi8=100 -128 3" --input="3xi8=100 255 0x4" \
// RUN:   | FileCheck %s --check-prefix=I8
// I8: result[0]: 3xi8=-56 127 7

// Rank 0, and two results. --function may be omitted only for a module with
// one public function (see boo-run-module-errors.mlir).
// RUN: boo-run-module --module=%s --function=scale --input=f32=1.25 \
// RUN:   | FileCheck %s --check-prefix=SCALAR
// SCALAR: result[0]: f32=2.5
// RUN: boo-run-module --module=%s --function=sum_and_difference \
// RUN:   --input="2xf32=1 2" --input="2xf32=0.5 4" \
// RUN:   | FileCheck %s --check-prefix=TWO
// TWO:      result[0]: 2xf32=1.5 6
// TWO-NEXT: result[1]: 2xf32=0.5 -2

// --output: '' discards a result, '-' prints it.
// RUN: boo-run-module --module=%s --function=sum_and_difference \
// RUN:   --input="2xf32=1 2" --input="2xf32=0.5 4" --output= --output=- \
// RUN:   | FileCheck %s --check-prefix=DISCARD
// DISCARD-NOT: result[0]
// DISCARD:     result[1]: 2xf32=0.5 -2

// Long results are elided like iree-run-module: each innermost row prints
// "..." once the element budget is spent.
// RUN: boo-run-module --module=%s --function=add --print_max_element_count=4 \
// RUN:   --input="2x3xf32=1 2 3 4 5 6" --input=2x3xf32=0 \
// RUN:   | FileCheck %s --check-prefix=ELIDE
// ELIDE: result[0]: 2x3xf32=[1 2 3][4...]

// --expected_output compares with rtol/atol (NumPy's isclose).
// RUN: boo-run-module --module=%s --function=sum_and_difference \
// RUN:   --input="2xf32=1 2" --input="2xf32=0.5 4" \
// RUN:   --expected_output="2xf32=1.5 6" --expected_output="2xf32=0.5 -2" \
// RUN:   | FileCheck %s --check-prefix=MATCH
// MATCH: [SUCCESS] all function outputs matched their expected values.
// RUN: not boo-run-module --module=%s --function=sum_and_difference \
// RUN:   --input="2xf32=1 2" --input="2xf32=0.5 4" \
// RUN:   --expected_output="2xf32=1.5 6" --expected_output="2xf32=0.5 -2.5" \
// RUN:   | FileCheck %s --check-prefix=MISMATCH
// MISMATCH:      result[1]: 2xf32=0.5 -2
// MISMATCH-NEXT: [FAILED] result[1]: 1 of 2 elements differ (rtol=1E-05, atol=1E-06):
// MISMATCH-NEXT:   at [1] (element 1): got -2, expected -2.5 (|diff| 0.5)
// MISMATCH-NOT:  SUCCESS
// RUN: boo-run-module --module=%s --function=sum_and_difference \
// RUN:   --input="2xf32=1 2" --input="2xf32=0.5 4" --atol=0.5 \
// RUN:   --expected_output="2xf32=1.5 6" --expected_output="2xf32=0.5 -2.5" \
// RUN:   | FileCheck %s --check-prefix=MATCH

// The scalar-loop variant of the pipeline gives the same results.
// RUN: boo-run-module --module=%s --function=matmul \
// RUN:   --cpu-pipeline-options="vectorize=false form-fusions=false" \
// RUN:   --input="2x3xf32=1 2 3 4 5 6" --input="3x2xf32=1 0 0 1 1 1" \
// RUN:   | FileCheck %s --check-prefix=MATMUL

#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<() -> ()>

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

func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>)
                     outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

func.func @add_bf16(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xbf16> {
  %e = tensor.empty() : tensor<4xbf16>
  %r = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xbf16>, tensor<4xbf16>) outs(%e : tensor<4xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %s = arith.addf %x, %y : bf16
    linalg.yield %s : bf16
  } -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

func.func @add_i8(%a: tensor<3xi8>, %b: tensor<3xi8>) -> tensor<3xi8> {
  %e = tensor.empty() : tensor<3xi8>
  %r = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<3xi8>, tensor<3xi8>) outs(%e : tensor<3xi8>) {
  ^bb0(%x: i8, %y: i8, %o: i8):
    %s = arith.addi %x, %y : i8
    linalg.yield %s : i8
  } -> tensor<3xi8>
  return %r : tensor<3xi8>
}

func.func @scale(%a: tensor<f32>) -> tensor<f32> {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%a : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %two : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

func.func @sum_and_difference(%a: tensor<2xf32>, %b: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<2xf32>
  %r:2 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1],
                         iterator_types = ["parallel"]}
      ins(%a, %b : tensor<2xf32>, tensor<2xf32>) outs(%e, %e : tensor<2xf32>, tensor<2xf32>) {
  ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32):
    %s = arith.addf %x, %y : f32
    %d = arith.subf %x, %y : f32
    linalg.yield %s, %d : f32, f32
  } -> (tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>
}
