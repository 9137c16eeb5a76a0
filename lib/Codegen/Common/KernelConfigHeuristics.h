//===- KernelConfigHeuristics.h - Default lowering configs ------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The heuristic boo-select-lowering-config falls back on when no tuning-spec
// rule matches a kernel. It yields a valid config for every kernel and shape
// (docs/TuningSpec.md#the-heuristic).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_COMMON_KERNELCONFIGHEURISTICS_H
#define BOO_LIB_CODEGEN_COMMON_KERNELCONFIGHEURISTICS_H

#include "Boo/Dialect/Boo/IR/BooAttrs.h"

namespace mlir::boo {

/// The heuristic config of the kernel whose loop nest is `nest` on `chip`.
/// Null (with an error at `loc`) only if the heuristic has a bug.
/// The heuristic's config for `nest` on `chip`. `shrink` > 0 halves its
/// register tiles that many times (see boo-select-lowering-config's
/// shrink-tiles).
LoweringConfigAttr selectHeuristicConfig(MLIRContext *ctx, Location loc,
                                         const KernelLoopNest &nest,
                                         const ChipInfo &chip,
                                         int64_t shrink = 0);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_COMMON_KERNELCONFIGHEURISTICS_H
