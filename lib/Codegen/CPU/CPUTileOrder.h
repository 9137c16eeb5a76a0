//===- CPUTileOrder.h - The order of a contraction's tiles -*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A contraction's forall visits its tiles in its loop order: for a merged
// channels-first 1x1 convolution (loops n, k, positions, c), every tile of
// output channels reads the whole image again. Where that image is larger
// than half of the L2 cache and the filter fits in half of it, the
// positions' tiles are visited first instead, so that each strip of the
// image stays in the L1 and L2 caches while the filter, read again by
// every strip, stays in L2.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUTILEORDER_H
#define BOO_LIB_CODEGEN_CPU_CPUTILEORDER_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// `op` (a contraction with tile sizes `tiles`, vector loop `vectorLoop`)
/// with its vector loop moved before its row loop (the tiled parallel loop
/// before it), `tiles` permuted alike, where the input read along the
/// vector loop and not the row loop (re-read by every row tile) is larger
/// than half of `l2CacheBytes` (it shares the cache with the output and
/// the other input) and read in place (none of `copies`), and the input
/// read along the row loop and not the vector loop (then re-read by every
/// vector tile) is at most half of it. Otherwise `op` unchanged.
linalg::GenericOp
visitVectorTilesFirst(RewriterBase &rewriter, linalg::GenericOp op,
                      unsigned vectorLoop, SmallVectorImpl<int64_t> &tiles,
                      int64_t l2CacheBytes, ArrayRef<linalg::GenericOp> copies);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUTILEORDER_H
