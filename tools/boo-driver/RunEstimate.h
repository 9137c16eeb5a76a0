//===- RunEstimate.h - boo-driver --estimate --------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-driver --estimate --targets gfx942,gfx1100 [--commands-file F]
// [--csv F]`: compiles each command for each chip and prints its
// performance ESTIMATE (docs/PerfModel.md); runs nothing.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TOOLS_BOODRIVER_RUNESTIMATE_H
#define BOO_TOOLS_BOODRIVER_RUNESTIMATE_H

#include "Boo/Harness/CommandList.h"

#include <string>
#include <vector>

namespace mlir::boo::harness {

struct EstimateOptions {
  std::vector<std::string> chips;
  std::string tuningSpec;
  /// One row per command and chip (empty: no CSV).
  std::string csvFile;
};

/// Returns the exit status: 0, 1 if a command failed, 2 on bad options.
int runEstimate(const std::vector<CommandLine> &commands,
                const EstimateOptions &options);

} // namespace mlir::boo::harness

#endif // BOO_TOOLS_BOODRIVER_RUNESTIMATE_H
