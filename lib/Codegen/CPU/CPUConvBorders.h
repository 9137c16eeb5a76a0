//===- CPUConvBorders.h - Convolutions without padded copies -----*- C++
//-*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUCONVBORDERS_H
#define BOO_LIB_CODEGEN_CPU_CPUCONVBORDERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// A convolution whose windowed input is a zero-padded tensor reads the
/// padding only at the borders of its output. When the input is
/// channels-last (its innermost dim is no window) and its other inputs are
/// at most `maxOtherInputBytes` (a depthwise convolution's filter: each
/// piece below prepares its own copy of them), the generic is split along
/// its
/// padded windows into an interior piece, which reads the unpadded input
/// directly (a slice: no copy), and border pieces (the first and last
/// output rows and columns), which read small padded copies of the input
/// rows they need; each piece's zero initial value is its own fill, and
/// the pieces are inserted into one result. The full padded copy of the
/// input is gone. The pieces are appended to `pieces`; returns whether it
/// applied.
/// Only padded inputs of at least `minInputBytes` are peeled, but for
/// strided convolutions with fewer than 16 multiply-adds per element of the
/// padded input (a stride-2 depthwise one), whose padded copy costs more
/// than their arithmetic.
bool peelPaddedBorders(RewriterBase &rewriter, linalg::GenericOp op,
                       int64_t maxOtherInputBytes, int64_t minInputBytes,
                       SmallVectorImpl<linalg::GenericOp> &pieces);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUCONVBORDERS_H
