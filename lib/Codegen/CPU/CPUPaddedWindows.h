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
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

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
/// Returns whether a loop was narrowed.
bool clipPaddedWindowLoops(RewriterBase &rewriter, linalg::GenericOp tile,
                           ArrayRef<scf::ForOp> reductionLoops);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUPADDEDWINDOWS_H
