//===- CPUDotTiles.h - Contractions as dot products -------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A contraction whose operands both have the reduction innermost (an NHWC
// convolution's image and KYXC filter, a product with B stored [N][K])
// computed as dot products along the reduction, with no transposed copy of
// either (see computeDotTiles).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUDOTTILES_H
#define BOO_LIB_CODEGEN_CPU_CPUDOTTILES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// A register tile of dot products: `rows` positions (rows of the input
/// without the output's innermost loop) by `cols` columns (the output's
/// innermost loop, rows of the other input).
struct DotTile {
  int64_t rows = 0, cols = 0;
};

/// The register tile for `rowExtent` rows and `colExtent` columns: `cols`
/// a divisor of `colExtent` of at most min(8, `lanes`), `rows` at most
/// `rowExtent` (the rows left over are a tile of their own), whose
/// accumulators (rows x cols registers of `lanes`) fit `accumulatorLanes`
/// and whose step (the accumulators, a register per column and one row's)
/// fits `registers`; of these, the one whose steps issue the fewest cycles
/// over the whole output (each step bound by its multiply-adds, its reads,
/// or the latency of 8 independent chains), then the one reading the
/// fewest registers. With `rowsInnermost` (the output's innermost dim is
/// the rows'), `rows` is at most min(8, `lanes`) too. {0, 0} when none
/// fits.
DotTile chooseDotTile(int64_t rowExtent, int64_t colExtent, int64_t lanes,
                      int64_t accumulatorLanes, int64_t registers,
                      bool rowsInnermost);

/// What computeDotTiles may do.
struct DotOptions {
  /// f32 lanes of a vector register, and the host's registers.
  int64_t lanes = 16, registers = 32;
  /// The most lanes of accumulators (boo-cpu-tile-and-vectorize's
  /// accumulator-lanes).
  int64_t accumulatorLanes = 384;
  /// The most output positions sharing each column.
  int64_t maxRows = 64;
  /// The columns' input must be smaller than this (0: any size): larger
  /// ones are packed one block at a time where they are read.
  int64_t maxColBytes = 0;
  /// Channels-first outputs whose two innermost dims (merged) are a
  /// multiple of this are vectorized along them, with no copy
  /// (mergeInnerOutputLoops): no dot products then.
  int64_t positionTile = 16;
};

/// Computes `op` as dot products along its reduction (CPUDotTiles.cpp) when
/// it is a multiply-add contraction of two static inputs that read one
/// reduction loop of at least 16 registers (a multiple of one) as their
/// innermost dim (trailing unit dims aside), its other reductions of
/// extent 1 (a 1x1 window), where one input (the columns: a filter,
/// indexed by the output channels) is a projected permutation and the
/// other (the rows: an image, indexed by the positions) is any linear
/// form; an image that reads the reduction in another dim
/// (channels-first) is transposed first (a copy, tiled with the others).
/// The output's innermost loop is the columns' or the rows' loop (the
/// innermost output loop read by one input only). At most
/// `options.maxRows` output positions share each column (the outputs
/// divided by the columns): the general schedule vectorizes such a
/// contraction along the columns, after a transposed copy of the columns'
/// input, a copy that costs more than it saves where few positions read
/// it.
///
/// One `scf.forall` iteration per tile of columns (chooseDotTile), each
/// reading its rows of the columns' input from memory once; in it, loops
/// over the positions, the rows in register tiles (those left over in a
/// smaller tile), and for each tile one `scf.for` over the reduction in
/// registers of `lanes`: a read of every column's register and of each
/// row's, and rows x columns multiply-adds into accumulators of partial
/// sums. The partial sums along the output's innermost dim are then
/// added across lanes by a tree of shuffles (log2 steps for a whole
/// output vector), added to the initial value and written as one vector.
/// Returns whether it applied.
bool computeDotTiles(RewriterBase &rewriter, linalg::GenericOp op,
                     const DotOptions &options);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUDOTTILES_H
