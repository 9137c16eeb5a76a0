//===- CPUReversals.h - Reversed operands read in place ----------*- C++
//-*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUREVERSALS_H
#define BOO_LIB_CODEGEN_CPU_CPUREVERSALS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// Patterns that remove reversing copies (a backward-data convolution's
/// flipped filter, `w[k][Y-1-y][X-1-x][c]`) from tiled code. A reversal is
/// a linalg.generic copying its one input with some dims reversed
/// (`n-1-d`); the tile pass cannot tile it (a negative coefficient), so it
/// would be a scalar, single-threaded pass over the filter on every call.
///  - A slice of a reversal whose reversed dims have size 1 (a tile of the
///    convolution: its window loops step one at a time) becomes a slice of
///    the reversal's input at the mirrored offsets.
///  - A slice of a slice of a reversal becomes one slice of it (the
///    forall's slice, then the reduction loop's).
///  - An element-wise copy of a reversal (a promotion to f32, a transposing
///    or blocking reorder), and an expand_shape of one whose reversed dims
///    stay whole, copy the reversal's input instead, and their result is
///    reversed: the reversal moves past them to the convolution, where the
///    first pattern removes it.
/// A reversal whose uses are not all rewritten stays.
void populateFoldReversalPatterns(RewritePatternSet &patterns);

/// Applies those patterns to the ops under `root` that use a reversal,
/// directly or through others, and to the ops the patterns create; other
/// ops are not touched (a dead op is not erased).
void foldReversals(Operation *root);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUREVERSALS_H
