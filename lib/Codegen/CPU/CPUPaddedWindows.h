//===- CPUPaddedWindows.h - Window loops that skip the padding ---*- C++
//-*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUPADDEDWINDOWS_H
#define BOO_LIB_CODEGEN_CPU_CPUPADDEDWINDOWS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// The positions of a tiled convolution along a padded dim of its input,
/// where some of them may read padding and the others not: position `i`
/// reads the padded row `constant + coeff * iv + sum(base) + stride * i`.
struct PaddedTileRows {
  /// The induction variable of the window loop (a filter tap `kw`).
  Value iv;
  int64_t coeff = 1, constant = 0;
  /// Values defined outside that loop (the tile's first output column).
  SmallVector<Value> base;
  int64_t stride = 1;
  /// The tile's positions, and which dim of its accumulator they are (the
  /// tile's output dims of extent > 1, in order).
  int64_t positions = 1;
  unsigned accDim = 0;
  /// The padding before and after the unpadded rows, and their number.
  int64_t low = 0, high = 0, extent = 0;
};

/// Narrows the reduction loops of a tiled convolution to the iterations
/// that read some of its input, not only its zero padding.
///
/// `tile` is a tiled multiply-add (`out + a * b`) inside `reductionLoops`
/// (the scf.for loops over its reduction tiles). Where one of its inputs
/// is a chain of unit-stride slices of a zero `tensor.pad`, each padded
/// dim's offset along the chain is `base + c * iv + k`: `iv` the induction
/// variable of one of those loops (step 1, constant bounds; a filter tap
/// `kh`), `base` a sum of values defined outside it (the output row of the
/// tile). The tile reads the rows `[base + c*iv + k, ... + size)`; the
/// iterations where they all lie in the padding add only zeros and are
/// skipped: the loop's bounds become `max(lb, ...)` and `min(ub, ...)` of
/// `base` (affine.max, affine.min). A 3x3 convolution at 7x7 multiplies
/// 21 window rows by the filter where 18 are in the image.
/// A padded dim whose tile spans several positions (an output row of 7
/// columns), of which an iteration can have only some in the padding, is
/// appended to `partial` for splitPaddedRows. Returns whether a loop was
/// narrowed.
bool clipPaddedWindowLoops(RewriterBase &rewriter, linalg::GenericOp tile,
                           ArrayRef<scf::ForOp> reductionLoops,
                           SmallVectorImpl<PaddedTileRows> &partial);

/// Replaces `contract` (the vectorized tile of `rows`) by an
/// `scf.index_switch` on the numbers of its positions that read padding
/// at each end: the whole contraction when none does, else one of the
/// positions in between (`vector.extract_strided_slice` of the image and
/// the accumulator, `vector.insert_strided_slice` of the result). A 3x3
/// convolution at 7x7, one row of padding on each side, computes 18 of
/// the 21 window columns of a row. Each case reads the contraction's
/// inputs itself. Only where the padding is at least an eighth of the
/// unpadded rows (each case is another copy of the contraction to
/// compile), with at most 8 cases; iterations with padding at both ends
/// (a tile wider than the image) take the whole contraction. Returns
/// whether it applied.
bool splitPaddedRows(RewriterBase &rewriter, vector::ContractionOp contract,
                     const PaddedTileRows &rows);

/// Marks `write`, the write of a vectorized tile, for
/// splitMarkedPaddedRows: `index` is its PaddedTileRows' index. (The
/// contraction is formed by the cleanup after vectorization.)
void markPaddedRows(vector::TransferWriteOp write, unsigned index);

/// Applies splitPaddedRows to the contraction each write under `root`
/// marked by markPaddedRows writes, with `rows[index]`, and removes the
/// marks.
void splitMarkedPaddedRows(RewriterBase &rewriter, Operation *root,
                           ArrayRef<PaddedTileRows> rows);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUPADDEDWINDOWS_H
