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
#include "Boo/Import/MIOpenImport.h"

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
  /// How many workgroups of each kernel run on the chip's emulator for
  /// their dynamic counts (docs/Emulator.md, "Profile"): 0 all, -1 none
  /// (the IR's counts only).
  int64_t sampleWorkgroups = 32;
  bool emulate() const { return sampleWorkgroups >= 0; }
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

/// A run on artifact target `target` (boo-driver's CSV and plot): on a GPU
/// target, the estimate of `problem` on its chip, printed and put in `row`;
/// a failure is a warning. Nothing on the CPU.
void addRowEstimate(CommandEstimator &estimator, MLIRContext &ctx,
                    const MIOpenProblem &problem, llvm::StringRef target,
                    CommandRow &row);

/// Returns the exit status: 0, 1 if a command failed, 2 on bad options.
/// The emulator's code objects are compiled through `cache` (may be null).
int runEstimate(const std::vector<CommandLine> &commands,
                const EstimateOptions &options, KernelCache *cache);

} // namespace mlir::boo::harness

#endif // BOO_TOOLS_BOODRIVER_RUNESTIMATE_H
