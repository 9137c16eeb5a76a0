//===- StridePhases.h - The stuffed taps of backward data -------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A backward data with stride s reads its gradient through a zero-stuffed
// view: for an input position i only the filter taps f with
// (i + d*f - offset) mod s == 0 read a gradient element, the others read a
// stuffed zero (#boo.stride_phases). Those taps are f = r(i) + step*u with
// step = s / gcd(s, d): the phase of i (i mod s) fixes r, and a kernel that
// visits u in [0, ceil(F / step)) instead of f in [0, F) does 1/step of the
// work. The FMA path rewrites the accumulation generic so (every iteration
// computes its own r); the MMA path gives every workgroup one phase.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_GPU_STRIDEPHASES_H
#define BOO_LIB_CODEGEN_GPU_STRIDEPHASES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// One entry of a #boo.stride_phases with stride > 1, and its arithmetic.
struct StridePhase {
  int64_t inputLoop, tapLoop;
  int64_t stride, dilation, offset;
  /// Taps that can contribute to one input position are `tapStep` apart.
  int64_t tapStep;
  /// gcd(stride, dilation): positions with (offset - i) mod stride not a
  /// multiple of it get no tap at all.
  int64_t gcd;
  /// (dilation / gcd)^-1 modulo tapStep.
  int64_t inverse;

  /// Iterations of the compressed tap loop for a filter of `taps` taps.
  int64_t getNumSteps(int64_t taps) const;

  /// For input position `i` (in [0, inputExtent)): the first tap that
  /// can contribute, r(i) in [0, tapStep), and whether any can (null when
  /// always true).
  std::pair<Value, Value> buildFirstTap(OpBuilder &b, Location loc, Value i,
                                        int64_t inputExtent) const;
};

/// The entries of `op`'s #boo.stride_phases whose stride is > 1 (none if
/// it has no such attribute).
SmallVector<StridePhase> getStridePhases(Operation *op);

/// FMA path: rewrites an accumulation generic with #boo.stride_phases
/// (after inlineDataMovementReads, so that its tap loops are defined only by
/// the loop-bounds operand) to loop over the compressed taps u: its body
/// computes f = r(i) + step*u for every iteration and leaves the
/// accumulator unchanged where f is past the filter or no tap exists.
/// Returns the new generic, or `op` unchanged when a tap loop is read by an
/// operand map (nothing to gain without inlined reads).
linalg::GenericOp skipStuffedTaps(RewriterBase &rewriter, linalg::GenericOp op);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_GPU_STRIDEPHASES_H
