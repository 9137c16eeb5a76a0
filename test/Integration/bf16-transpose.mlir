// A bf16 transposing copy (NCHW to NHWC) on the CPU. Its vectorized tiles
// transpose in registers; the shuffles move the bits as i16
// (boo-cpu-lower-vectors): x86 has no bf16 vector shuffles, and LLVM's
// instruction selection aborted on this shape ("Do not know how to soft
// promote this operator's operand"). Integers below 256 are exact in bf16:
// their bits are the upper half of their f32 bits.
// RUN: %python -c "import numpy as np; x = (np.arange(2*480*2*9) %% 251).astype(np.float32).reshape(2, 480, 2, 9); bits = lambda a: (np.ascontiguousarray(a).view(np.uint32) >> 16).astype(np.uint16); bits(x).tofile('%t.x.raw'); bits(x.transpose(0, 2, 3, 1)).tofile('%t.y.raw')"
// RUN: boo-run-module --module=%s --device=cpu --input=2x480x2x9xbf16=@%t.x.raw --expected_output=2x2x9x480xbf16=@%t.y.raw --output= | FileCheck %s
// CHECK: EXEC @transpose
func.func @transpose(%x: tensor<2x480x2x9xbf16>) -> tensor<2x2x9x480xbf16> {
  %e = tensor.empty() : tensor<2x2x9x480xbf16>
  %t = linalg.transpose ins(%x : tensor<2x480x2x9xbf16>) outs(%e : tensor<2x2x9x480xbf16>) permutation = [0, 2, 3, 1]
  return %t : tensor<2x2x9x480xbf16>
}
