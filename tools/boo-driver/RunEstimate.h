//===- RunEstimate.h - boo-driver --estimate --------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-driver --estimate --targets gfx942,gfx1100 [--commands-file F]
// [--csv F] [--estimate-sample N]`: compiles each command for each chip
// and prints its performance ESTIMATE (docs/PerfModel.md), with the counts
// of a sample of its workgroups run on the chip's emulator.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TOOLS_BOODRIVER_RUNESTIMATE_H
#define BOO_TOOLS_BOODRIVER_RUNESTIMATE_H

#include "Boo/Harness/CommandList.h"
#include "Boo/Harness/Estimate.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::boo {
class KernelCache;
} // namespace mlir::boo

namespace mlir::boo::harness {

struct EstimateOptions {
  std::vector<std::string> chips;
  std::string tuningSpec;
  /// One row per command and chip (empty: no CSV).
  std::string csvFile;
  /// Whether the kernels also run on the chip's emulator for their
  /// dynamic counts (docs/Emulator.md, "Profile"), and how many
  /// workgroups of each (0: all).
  bool emulate = true;
  uint64_t sampleWorkgroups = 32;
  /// Whether to print each kernel's report.
  bool details = false;
};

class EmulatorProfiler;

/// Estimates Boo MLIR modules on chips (estimateOnChip), with the
/// emulator's counts when `options.emulate`.
class CommandEstimator {
public:
  CommandEstimator(EstimateOptions options, KernelCache *cache);
  ~CommandEstimator();

  /// `source` is not modified. `emulatorNote` says why the emulator's
  /// counts are missing ("" when they are there or were not asked for).
  FailureOr<CommandEstimate> estimate(ModuleOp source, const ChipInfo &chip,
                                      std::string &error,
                                      std::string &emulatorNote);

private:
  EstimateOptions options;
  std::unique_ptr<EmulatorProfiler> profiler;
};

struct CommandRow;

/// The chip of a run's artifact target ("gfx942", "emu:gfx942"), or null
/// (the CPU).
const ChipInfo *getTargetChip(llvm::StringRef target);

/// A GPU target's run (boo-driver's CSV and plot): the estimate of
/// `source` on `chip`, printed and put in `row`; a failure is a warning.
void addRowEstimate(CommandEstimator &estimator, ModuleOp source,
                    const ChipInfo &chip, CommandRow &row);

/// Returns the exit status: 0, 1 if a command failed, 2 on bad options.
/// The emulator's code objects are compiled through `cache` (may be null).
int runEstimate(const std::vector<CommandLine> &commands,
                const EstimateOptions &options, KernelCache *cache);

} // namespace mlir::boo::harness

#endif // BOO_TOOLS_BOODRIVER_RUNESTIMATE_H
