// .npy and raw binary inputs and outputs, written and checked with NumPy.

// f32 in and out; the saved result is not printed.
// RUN: %python -c "import numpy as np; np.save('%t.a.npy', np.arange(6, dtype=np.float32).reshape(2, 3)); np.save('%t.b.npy', np.full((2, 3), 0.5, np.float32))"
// RUN: boo-run-module --module=%s --function=add --input=@%t.a.npy --input=@%t.b.npy \
// RUN:   --output=@%t.sum.npy | FileCheck %s --check-prefix=SAVED
// SAVED:     EXEC @add
// SAVED-NOT: result
// RUN: %python -c "import numpy as np; r = np.load('%t.sum.npy'); assert r.dtype == np.float32 and r.shape == (2, 3), r; assert (r == np.arange(6).reshape(2, 3) + 0.5).all(), r; print('sum ok')" \
// RUN:   | FileCheck %s --check-prefix=SUM
// SUM: sum ok

// A reference computed by NumPy as the expected output, and raw little-endian
// bytes as an input.
// RUN: %python -c "import numpy as np; np.save('%t.ref.npy', np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5); np.full((2, 3), 0.5, np.float32).tofile('%t.b.raw')"
// RUN: boo-run-module --module=%s --function=add --input=@%t.a.npy --input=2x3xf32=@%t.b.raw \
// RUN:   --expected_output=@%t.ref.npy | FileCheck %s --check-prefix=REF
// REF:      result[0]: 2x3xf32=[0.5 1.5 2.5][3.5 4.5 5.5]
// REF-NEXT: [SUCCESS] all function outputs matched their expected values.

// NumPy has no bf16: an f32 .npy for a bf16 argument is rounded to nearest
// even (1 + 2^-8 ties to 1, 1 + 3 * 2^-8 ties to 1 + 2^-6, 0.1 becomes
// 0.10009765625), and bf16 results are saved as f32.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.array([1 + 2**-8, 1 + 3 * 2**-8, 0.1, -3], np.float32))"
// RUN: boo-run-module --module=%s --function=negate_bf16 --input=@%t.x.npy \
// RUN:   --output=@%t.neg.npy
// RUN: %python -c "import numpy as np; r = np.load('%t.neg.npy'); assert r.dtype == np.float32, r.dtype; assert r.tolist() == [-1.0, -1.015625, -0.10009765625, 3.0], r.tolist(); print('bf16 ok')" \
// RUN:   | FileCheck %s --check-prefix=BF16
// BF16: bf16 ok

// f16 the same way, and as native '<f2' data.
// RUN: %python -c "import numpy as np; np.save('%t.h32.npy', np.array([65519, 1 + 2**-11], np.float32)); np.save('%t.h16.npy', np.array([0.5, -2], np.float16))"
// RUN: boo-run-module --module=%s --function=double_f16 --input=@%t.h32.npy | FileCheck %s --check-prefix=F16
// F16: result[0]: 2xf16=INF 2
// RUN: boo-run-module --module=%s --function=double_f16 --input=@%t.h16.npy --output=@%t.h.npy
// RUN: %python -c "import numpy as np; r = np.load('%t.h.npy'); assert r.dtype == np.float16 and r.tolist() == [1.0, -4.0], r; print('f16 ok')" \
// RUN:   | FileCheck %s --check-prefix=F16OK
// F16OK: f16 ok

// Integer .npy files must already have the argument's type: NumPy's default
// int64 for an i32 argument is a type mismatch, i32 works.
// RUN: %python -c "import numpy as np; np.save('%t.i64.npy', np.array([1, 2])); np.save('%t.i32.npy', np.array([7, -9], np.int32))"
// RUN: not boo-run-module --module=%s --function=i32_id --input=@%t.i64.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=I64
// I64: boo-run-module: error: input 0: expected 2xi32, got 2xi64
// RUN: boo-run-module --module=%s --function=i32_id --input=@%t.i32.npy | FileCheck %s --check-prefix=I32
// I32: result[0]: 2xi32=7 -9

// Other type mismatches are errors, not conversions.
// RUN: not boo-run-module --module=%s --function=add --input=@%t.h16.npy \
// RUN:   --input=@%t.b.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: boo-run-module: error: input 0: expected 2x3xf32, got 2xf16

// Fortran order, big-endian data and truncated files are refused.
// RUN: %python -c "import numpy as np; np.save('%t.f.npy', np.asfortranarray(np.ones((2, 3), np.float32))); np.save('%t.be.npy', np.ones((2, 3), '>f4')); open('%t.cut.npy', 'wb').write(open('%t.a.npy', 'rb').read()[:-4])"
// RUN: not boo-run-module --module=%s --function=add --input=@%t.f.npy --input=@%t.b.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: boo-run-module: error: --input #0: '{{.*}}f.npy': Fortran-ordered .npy arrays (fortran_order: True) are not supported; save a C-ordered array (np.ascontiguousarray)
// RUN: not boo-run-module --module=%s --function=add --input=@%t.be.npy --input=@%t.b.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BIGENDIAN
// BIGENDIAN: boo-run-module: error: --input #0: '{{.*}}be.npy': big-endian .npy data ('>f4') is not supported
// RUN: not boo-run-module --module=%s --function=add --input=@%t.cut.npy --input=@%t.b.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: boo-run-module: error: --input #0: '{{.*}}cut.npy': .npy data of 2x3xf32 needs 24 bytes, the file holds 20

#id1 = affine_map<(d0) -> (d0)>
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

func.func @negate_bf16(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %e = tensor.empty() : tensor<4xbf16>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : tensor<4xbf16>) outs(%e : tensor<4xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %n = arith.negf %x : bf16
    linalg.yield %n : bf16
  } -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

func.func @double_f16(%a: tensor<2xf16>) -> tensor<2xf16> {
  %e = tensor.empty() : tensor<2xf16>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%a : tensor<2xf16>) outs(%e : tensor<2xf16>) {
  ^bb0(%x: f16, %o: f16):
    %d = arith.addf %x, %x : f16
    linalg.yield %d : f16
  } -> tensor<2xf16>
  return %r : tensor<2xf16>
}

func.func @i32_id(%a: tensor<2xi32>) -> tensor<2xi32> {
  return %a : tensor<2xi32>
}
