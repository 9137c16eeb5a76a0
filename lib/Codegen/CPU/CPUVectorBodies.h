//===- CPUVectorBodies.h - Rewrites of vectorized tile bodies ---*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUVECTORBODIES_H
#define BOO_LIB_CODEGEN_CPU_CPUVECTORBODIES_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// The rewrites boo-cpu-tile-and-vectorize applies to vectorized tiles:
///  - `addf(mulf(a, b), c)` on vectors becomes `vector.fma` (LLVM fuses
///    nothing without fast-math flags; a depthwise convolution's body
///    would issue two instructions per lane);
///  - `extf(transpose(x))` becomes `transpose(extf(x))`, so a bf16 filter
///    promoted within its reorder is shuffled as f32 vectors;
///  - a floating-point sum of a 1-D vector (a row's partial sums) becomes a
///    reassociating vector.reduction, added up as a tree.
void populateCPUVectorBodyPatterns(RewritePatternSet &patterns);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUVECTORBODIES_H
