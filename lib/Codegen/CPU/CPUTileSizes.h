//===- CPUTileSizes.h - The tile sizes of the CPU schedule ------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Step 1 of boo-cpu-tile-and-vectorize: the static tile size of each loop of
// a generic (divisors of the loop extents, so that every tile is full):
// the vector loop, a loop of register rows, a reduction loop, 1 elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUTILESIZES_H
#define BOO_LIB_CODEGEN_CPU_CPUTILESIZES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::boo {

/// The vector loop of `op`: the loop of the output's innermost dim, skipping
/// dims whose loop has extent 1 (a depthwise convolution's one output
/// channel per group: its vector loop is the group loop).
unsigned vectorLoop(linalg::GenericOp op);

/// For a copy with a transposed input (one input, no reductions, the
/// input's innermost non-unit dim indexed by a parallel loop other than
/// `vecDim`), that loop.
std::optional<unsigned> transposedLoop(linalg::GenericOp op, unsigned vecDim);

/// What chooseTileSizes aims for (boo-cpu-tile-and-vectorize's options).
struct TileTargets {
  /// f32 lanes of one vector (`vector-width`).
  int64_t vectorLanes;
  /// The most lanes of the vector loop's tile.
  int64_t vectorTile;
  /// The extent of the register rows' tile (`row-tile`).
  int64_t rowTile;
  /// The extent of the reduction's tile (`reduction-tile`).
  int64_t reductionTile;
  /// The most f32 lanes a contraction's accumulator tile (its rows times
  /// its vector tile) may hold (`accumulator-lanes`): what the host's
  /// vector registers hold with room left for the operands.
  int64_t accumulatorLanes;
  /// Whether the rows of an accumulator tile cut down to
  /// `accumulatorLanes` may leave a remainder of the row loop (splitRowLoop
  /// asks so; every tile chooseTileSizes gives otherwise divides its
  /// loop).
  bool undividedRows = false;
};

/// Chooses tile sizes for `op`, or failure if the op is not a candidate.
FailureOr<SmallVector<int64_t>> chooseTileSizes(linalg::GenericOp op,
                                                const TileTargets &targets);

/// The tiles of a row reduction's combination (splitRowReduction): one row
/// (every parallel loop 1), every reduction loop whole.
SmallVector<int64_t> rowCombineTileSizes(linalg::GenericOp op);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUTILESIZES_H
